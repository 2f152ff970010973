package bench

import (
	"fmt"
	"time"
)

// ownershipCost is one table of what recording ownership costs: the floor
// with no ownership, with comments and with the metadata store, per server
// where they ran.
func (r *report) ownershipCost() {
	var rows [][]string
	for _, s := range r.res.Servers {
		k := s.Key()
		for _, n := range r.res.Plan.Sizes() {
			for _, sc := range Scenarios() {
				bare, ok := r.res.Cell(k, n, sc, FloorBare)
				if !ok {
					continue
				}
				comments, metadata := "refused by the backend", "not run"
				var withComments, withMetadata Cell
				var okC, okM bool
				if s.Store == string(StoreComments) {
					withComments, okC = r.res.Cell(k, n, sc, Floor)
					withMetadata, okM = r.res.Cell(k, n, sc, FloorMetadata)
					comments = "not run"
				} else {
					withMetadata, okM = r.res.Cell(k, n, sc, Floor)
				}
				b := bare.Stats().Median
				if okC {
					comments = timesOf(withComments, b)
				}
				if okM {
					metadata = timesOf(withMetadata, b)
				}
				rows = append(rows, []string{s.Label(), groupDigits(n), sc.Title(), fmtDuration(b) + " · " + requestsText(bare), comments, metadata})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	r.p("## What ownership costs")
	r.p("The same records written by the floor with no ownership at all (c₀), with the ownership comments in the same PATCH (c where the store is comments), " +
		"and with the metadata store (c where the store is metadata, cₘ where the server keeps comments but the claims are written as the metadata store writes them): " +
		"median time, its ratio to no ownership, and the requests. With comments the ownership is bytes in the PATCH; with the metadata store it is a GET of the " +
		"zone's metadata in every sync, a claim record POSTed before a PATCH that creates RRsets and a release record after one that deletes them.")
	r.table([]string{"PowerDNS", "RRsets", "scenario", "no ownership (c₀)", "comments", "metadata store"}, rows)
}

// timesOf renders c's median, its ratio to base, and its requests.
func timesOf(c Cell, base time.Duration) string {
	m := c.Stats().Median
	return fmt.Sprintf("%s (%.2f×) · %s", fmtDuration(m), float64(m)/float64(base), requestsText(c))
}

// perObjectWriters are the writers of the per-object scenario.
var perObjectWriters = []WriterID{Apply, PerRRset, PerRRsetWrites}

// perObject is the per-object scenario: per server, size and scenario, the
// time and requests of each operation of (d), (b) and (b′).
func (r *report) perObject() {
	var rows [][]string
	for _, s := range r.res.Servers {
		k := s.Key()
		for _, n := range r.res.Plan.Sizes() {
			for _, sc := range Scenarios() {
				row := []string{s.Label(), groupDigits(n), sc.Title()}
				found := false
				objects := 0
				for _, w := range perObjectWriters {
					c, ok := r.res.Cell(k, n, sc, w)
					if !ok {
						row = append(row, "not run")
						continue
					}
					found = true
					objects = objectsOf(c)
					st := c.Stats()
					row = append(row, fmt.Sprintf("%s; per object %s, %s", fmtDuration(st.Median), fmtDuration(perOp(st.Median, objects)), perObjectRequests(c, objects)))
				}
				if !found {
					continue
				}
				row = append(row, groupDigits(objects))
				for _, den := range []WriterID{PerRRset, PerRRsetWrites} {
					if x, ok := r.ratio(k, n, sc, Apply, den); ok {
						row = append(row, fmt.Sprintf("%.2f", x))
					} else {
						row = append(row, "—")
					}
				}
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	r.p("## Per-object writes")
	r.p("One object per RRset in one zone, reconciled one after another: (d) `Reconciler.Apply` (`Remove` for a deleted object), (b) one filtered GET " +
		"and, when the RRset is not as wanted, one PATCH (where ownership lives in metadata, also a GET of the zone's metadata, and a claim or release record around a create or delete), (b′) one blind PATCH (dns-operator). Each cell: the median time of reconciling all the " +
		"scenario's objects, the time per object (that median divided by the objects), and the requests per object (by method, every run the same unless a range shows). " +
		"In *no-op sync* every object is reconciled and nothing changes (a resync): (d)/(b) there is a steady-state Apply against one filtered GET (and the metadata GET, where ownership lives there).")
	r.table([]string{"PowerDNS", "RRsets", "scenario", "(d) Apply", "(b) filtered GET (+ PATCH)", "(b′) blind PATCH", "objects", "(d)/(b)", "(d)/(b′)"}, rows)
}

// objectsOf is the number of objects the cell's writer reconciled in each
// run.
func objectsOf(c Cell) int {
	cs, err := NewCase(c.Scenario, c.N)
	if err != nil {
		return 0
	}
	return len(cs.Objects)
}

func perOp(d time.Duration, objects int) time.Duration {
	if objects == 0 {
		return 0
	}
	return d / time.Duration(objects)
}

// perObjectRequests renders the requests per object by method, e.g.
// "1 GET + 1 PATCH", or a range over the runs when they differ.
func perObjectRequests(c Cell, objects int) string {
	if objects == 0 || len(c.Samples) == 0 {
		return "—"
	}
	total := 0
	parts := ""
	for _, m := range []string{"GET", "PATCH", "POST", "PUT", "DELETE"} {
		lo, hi := requestBounds(c, m)
		if hi == 0 {
			continue
		}
		total += hi
		if parts != "" {
			parts += " + "
		}
		if lo == hi {
			parts += fmt.Sprintf("%s %s", trimFloat(float64(hi)/float64(objects)), m)
		} else {
			parts += fmt.Sprintf("%s–%s %s", trimFloat(float64(lo)/float64(objects)), trimFloat(float64(hi)/float64(objects)), m)
		}
	}
	if total == 0 {
		return "no request"
	}
	return parts
}

// requestBounds are the fewest and most requests of method in one run.
func requestBounds(c Cell, method string) (lo, hi int) {
	lo = -1
	for _, s := range c.Samples {
		n := s.Counts.Requests[method]
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return max(lo, 0), hi
}

// trimFloat prints x with at most two decimals and no trailing zeros.
func trimFloat(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return trimDot(s)
}

func trimDot(s string) string {
	if s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}
