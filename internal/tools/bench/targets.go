package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The targets. Each is a bound on a ratio of medians measured in one run.
const (
	// targetSyncOverFloor bounds (a)/(c) in every cell where the library
	// keeps ownership in comments (gsqlite3 the target, gpgsql, gmysql and LMDB
	// from 5.1 held to it too), and in every no-op sync, where (c) is the
	// GET of the zone, and of its metadata where ownership lives there.
	targetSyncOverFloor = 1.15
	// targetSyncOverFloorMetadata bounds (a)/(c) where ownership lives in
	// zone metadata (LMDB before 5.1), no-op syncs aside.
	targetSyncOverFloorMetadata = 1.3
	// targetApplyOverGET bounds (d)/(b) in the no-op sync: a steady-state
	// Apply against one filtered GET. targetApplyOverGETPatch bounds it in
	// the 1%-changed sync: a changed Apply against a filtered GET and a
	// PATCH.
	targetApplyOverGET      = 1.2
	targetApplyOverGETPatch = 1.2
)

// Bound is a target on a ratio: the ratio must not exceed Max.
type Bound struct {
	What string
	Max  float64
}

// syncBound is the bound on (a)/(c) in scenario s on a server whose
// ownership store is store.
func syncBound(s Scenario, store string) Bound {
	switch {
	case s == NoOp && store == string(StoreMetadata):
		return Bound{"no-op (a) ≤ 1.15 × the GETs of the zone and its metadata (c)", targetSyncOverFloor}
	case s == NoOp:
		return Bound{"no-op (a) ≤ 1.15 × the GET of the zone (c)", targetSyncOverFloor}
	case store == string(StoreMetadata):
		return Bound{"(a) ≤ 1.3 × the floor (c), metadata store", targetSyncOverFloorMetadata}
	default:
		return Bound{"(a) ≤ 1.15 × the floor (c)", targetSyncOverFloor}
	}
}

// applyBound is the bound on (d)/(b) in scenario s, if there is one.
func applyBound(s Scenario) (Bound, bool) {
	switch s {
	case NoOp:
		return Bound{"steady-state Apply (d) ≤ 1.2 × one filtered GET (b), per object", targetApplyOverGET}, true
	case Changed:
		return Bound{"changed Apply (d) ≤ 1.2 × filtered GET + PATCH (b), per object", targetApplyOverGETPatch}, true
	}
	return Bound{}, false
}

// Verdict judges a measured ratio x against b: met, or missed by how much
// x exceeds the bound, relative to it.
func (b Bound) Verdict(x float64) string {
	if x <= b.Max {
		return "**met**"
	}
	return fmt.Sprintf("**missed** by %.0f%%", (x/b.Max-1)*100)
}

// wantNoOpGETs is the GETs a no-op Sync makes with ownership in store: of
// the zone, and of its metadata where ownership lives there; it writes
// nothing.
func wantNoOpGETs(store string) int {
	if store == string(StoreMetadata) {
		return 2
	}
	return 1
}

// fewRuns notes the runs behind a ratio when they are fewer than the
// targets ask for (15).
func (r *report) fewRuns(k ServerKey, n int, s Scenario, ws ...WriterID) string {
	least := 0
	for _, w := range ws {
		if c, ok := r.res.Cell(k, n, s, w); ok && (least == 0 || len(c.Samples) < least) {
			least = len(c.Samples)
		}
	}
	if least > 0 && least < minTargetRuns {
		return fmt.Sprintf(" (%d runs)", least)
	}
	return ""
}

// minTargetRuns is the fewest runs per cell the targets are judged on.
const minTargetRuns = 15

// ratio is the ratio of the medians of two cells; ok is false when either
// is missing.
func (r *report) ratio(k ServerKey, n int, s Scenario, num, den WriterID) (float64, bool) {
	a, ok1 := r.res.Cell(k, n, s, num)
	c, ok2 := r.res.Cell(k, n, s, den)
	if !ok1 || !ok2 || len(a.Samples) == 0 || len(c.Samples) == 0 {
		return 0, false
	}
	return float64(a.Stats().Median) / float64(c.Stats().Median), true
}

func (r *report) targets(benches []GoBench) {
	r.p("## Targets")
	r.p("Each ratio is of medians measured in this one run, of 15 runs per cell or more unless *measured* says fewer (the plan is in *What is measured*). \"Missed by\" is how far the measured " +
		"ratio is above the target, relative to the target. (a)/(c) is held to 1.15 on every server whose ownership store is comments: gsqlite3 " +
		"is the target, gpgsql and gmysql (two frontends behind a round-robin) and LMDB from 5.1 are reported against the same bound.")
	var rows [][]string
	for _, s := range r.res.Servers {
		k := s.Key()
		for _, n := range r.res.Plan.Sizes() {
			for _, sc := range Scenarios() {
				if x, ok := r.ratio(k, n, sc, Sync, Floor); ok {
					b := syncBound(sc, s.Store)
					rows = append(rows, []string{b.What, s.Label(), groupDigits(n), sc.Title(), fmt.Sprintf("%.2f%s", x, r.fewRuns(k, n, sc, Sync, Floor)), b.Verdict(x)})
				}
				if c, ok := r.res.Cell(k, n, NoOp, Sync); ok && sc == NoOp {
					want := wantNoOpGETs(s.Store)
					gets, patches, other := requestRange(c, "GET"), requestRange(c, "PATCH"), otherRequests(c)
					okCalls := gets == fmt.Sprint(want) && (patches == "0" || patches == "—") && other == 0
					verdict := "**met**"
					if !okCalls {
						verdict = fmt.Sprintf("**missed**: %s GET, %d other requests", gets, other)
					}
					rows = append(rows, []string{fmt.Sprintf("no-op (a) makes %d GET and nothing else", want), s.Label(), groupDigits(n), sc.Title(),
						requestsText(c) + " in every run", verdict})
				}
				if b, ok := applyBound(sc); ok {
					if x, ok := r.ratio(k, n, sc, Apply, PerRRset); ok {
						note := r.fewRuns(k, n, sc, Apply, PerRRset)
						if s.Store == string(StoreMetadata) {
							note += " ((b) reads the zone's metadata too, as the library must)"
						}
						rows = append(rows, []string{b.What, s.Label(), groupDigits(n), sc.Title(), fmt.Sprintf("%.2f%s", x, note), b.Verdict(x)})
					}
				}
			}
		}
	}
	for _, fam := range families(benches, "BenchmarkPipeline/") {
		growth, allowed, ok := nlognGrowth(fam)
		if !ok {
			continue
		}
		b := Bound{Max: allowed}
		rows = append(rows, []string{"pure canonicalise + diff + check grows ≤ n·log n (" + strings.TrimPrefix(fam[0].Family(), "BenchmarkPipeline/") + ")", "—", "—", "—",
			fmt.Sprintf("ns/RRset × %.2f from %s to %s RRsets; n·log n allows × %.2f", growth, groupDigits(fam[0].N()), groupDigits(fam[len(fam)-1].N()), allowed),
			b.Verdict(growth)})
	}
	r.table([]string{"target", "PowerDNS", "RRsets", "scenario", "measured", "verdict"}, rows)
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
