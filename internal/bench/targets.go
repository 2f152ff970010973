package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Targets of issue 7.
const (
	targetInitialOverFloor = 1.25 // (a)/(c), initial sync at targetN
	targetNoOpOverGET      = 1.2  // (a)/(c), no-op sync
	targetPerRRsetOverSync = 50   // (b)/(a) at targetN
	targetN                = 10_000
)

// ratio is the ratio of the medians of two cells; ok is false when either
// is missing.
func (r *report) ratio(version string, n int, s Scenario, num, den WriterID) (float64, bool) {
	a, ok1 := r.res.Cell(version, n, s, num)
	c, ok2 := r.res.Cell(version, n, s, den)
	if !ok1 || !ok2 || len(a.Samples) == 0 || len(c.Samples) == 0 {
		return 0, false
	}
	return float64(a.Stats().Median) / float64(c.Stats().Median), true
}

// minusOne renders a request count less the one GET the target allows.
func minusOne(gets string) string {
	var n int
	if _, err := fmt.Sscan(gets, &n); err != nil {
		return gets
	}
	return fmt.Sprint(n - 1)
}

func verdict(ok bool, by string) string {
	if ok {
		return "**met**"
	}
	return "**missed** " + by
}

func (r *report) targets(benches []GoBench) {
	r.p("## Targets")
	r.p("Each ratio is of medians measured in this one run. \"By\" is how far the measured value is from the target, relative to the target.")
	var rows [][]string
	for _, s := range r.res.Servers {
		v := s.Version
		if x, ok := r.ratio(v, targetN, Initial, Sync, Floor); ok {
			rows = append(rows, []string{"(a)/(c) ≤ 1.25, initial sync, 10,000 RRsets", v, fmt.Sprintf("%.2f", x),
				verdict(x <= targetInitialOverFloor, fmt.Sprintf("by %.0f%%", (x/targetInitialOverFloor-1)*100))})
		}
	}
	for _, s := range r.res.Servers {
		v := s.Version
		for _, n := range r.res.Plan.Sizes {
			c, ok := r.res.Cell(v, n, NoOp, Sync)
			if !ok {
				continue
			}
			gets, patches := requestRange(c, "GET"), requestRange(c, "PATCH")
			other := otherRequests(c)
			okCalls := gets == "1" && patches == "0" && other == 0
			rows = append(rows, []string{fmt.Sprintf("no-op sync is 1 GET and 0 PATCH, %s RRsets", groupDigits(n)), v,
				requestsText(c) + " in every run", verdict(okCalls, fmt.Sprintf("by %s GET and %d other requests", minusOne(gets), other))})
			if x, ok := r.ratio(v, n, NoOp, Sync, Floor); ok {
				rows = append(rows, []string{fmt.Sprintf("no-op (a) ≤ 1.2 × the GET alone (c), %s RRsets", groupDigits(n)), v, fmt.Sprintf("%.2f", x),
					verdict(x <= targetNoOpOverGET, fmt.Sprintf("by %.0f%%", (x/targetNoOpOverGET-1)*100))})
			}
		}
	}
	for _, s := range r.res.Servers {
		v := s.Version
		for _, sc := range Scenarios() {
			for _, w := range []WriterID{PerRRset, PerRRsetWrites} {
				x, ok := r.ratio(v, targetN, sc, w, Sync)
				if !ok {
					continue
				}
				what := fmt.Sprintf("(%s)/(a) ≥ 50, %s, 10,000 RRsets", w.Letter(), sc.Title())
				note := ""
				if w == PerRRsetWrites {
					note = " (b′ is a lower bound of b, so (b)/(a) is at least this)"
				}
				rows = append(rows, []string{what, v, fmt.Sprintf("%.1f%s", x, note),
					verdict(x >= targetPerRRsetOverSync, fmt.Sprintf("by %.0f%%", (1-x/targetPerRRsetOverSync)*100))})
			}
		}
	}
	for _, fam := range families(benches, "BenchmarkPipeline/") {
		growth, allowed, ok := nlognGrowth(fam)
		if !ok {
			continue
		}
		rows = append(rows, []string{"pure canonicalise + diff + check grows ≤ n·log n (" + strings.TrimPrefix(fam[0].Family(), "BenchmarkPipeline/") + ")", "—",
			fmt.Sprintf("ns/RRset × %.2f from %s to %s RRsets; n·log n allows × %.2f", growth, groupDigits(fam[0].N()), groupDigits(fam[len(fam)-1].N()), allowed),
			verdict(growth <= allowed, fmt.Sprintf("by %.0f%%", (growth/allowed-1)*100))})
	}
	r.table([]string{"target", "PowerDNS", "measured", "verdict"}, rows)
}

// requestRange renders how many requests of method each run made: "1", or
// "1–3" when runs differ.
func requestRange(c Cell, method string) string {
	lo, hi := math.MaxInt, 0
	for _, s := range c.Samples {
		n := s.Counts.Requests[method]
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(c.Samples) == 0 {
		return "—"
	}
	if lo == hi {
		return groupDigits(lo)
	}
	return groupDigits(lo) + "–" + groupDigits(hi)
}

// requestsText renders the requests per sync by method, e.g. "2 GET,
// 1 PATCH, 2 PUT".
func requestsText(c Cell) string {
	seen := map[string]bool{}
	for _, s := range c.Samples {
		for m := range s.Counts.Requests {
			seen[m] = true
		}
	}
	methods := make([]string, 0, len(seen))
	for _, m := range []string{"GET", "PATCH", "PUT", "POST", "DELETE"} {
		if seen[m] {
			methods = append(methods, m)
			delete(seen, m)
		}
	}
	for m := range seen {
		methods = append(methods, m)
	}
	slices.Sort(methods[len(methods)-len(seen):])
	parts := make([]string, 0, len(methods))
	for _, m := range methods {
		parts = append(parts, requestRange(c, m)+" "+m)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// otherRequests is the most requests of a method other than GET and PATCH
// that one run made.
func otherRequests(c Cell) int {
	most := 0
	for _, s := range c.Samples {
		n := s.Counts.Total() - s.Counts.Requests["GET"] - s.Counts.Requests["PATCH"]
		most = max(most, n)
	}
	return most
}

// families groups the benchmarks whose name starts with prefix by family,
// each sorted by size.
func families(benches []GoBench, prefix string) [][]GoBench {
	var order []string
	by := map[string][]GoBench{}
	for _, b := range benches {
		if !strings.HasPrefix(b.Name, prefix) || b.N() == 0 {
			continue
		}
		f := b.Family()
		if _, ok := by[f]; !ok {
			order = append(order, f)
		}
		by[f] = append(by[f], b)
	}
	out := make([][]GoBench, 0, len(order))
	for _, f := range order {
		fam := by[f]
		slices.SortFunc(fam, func(a, b GoBench) int { return a.N() - b.N() })
		out = append(out, fam)
	}
	return out
}

// nlognGrowth compares how the cost per RRset grows from the smallest to
// the largest size with how log n grows: a cost of c·n·log n has a cost per
// RRset of c·log n.
func nlognGrowth(fam []GoBench) (growth, allowed float64, ok bool) {
	if len(fam) < 2 {
		return 0, 0, false
	}
	first, last := fam[0], fam[len(fam)-1]
	a, b := first.Median("ns/rrset"), last.Median("ns/rrset")
	if math.IsNaN(a) || math.IsNaN(b) || a <= 0 {
		return 0, 0, false
	}
	return b / a, math.Log(float64(last.N())) / math.Log(float64(first.N())), true
}
