package bench

import (
	"testing"
	"time"
)

func TestSyncBound(t *testing.T) {
	for _, tc := range []struct {
		s     Scenario
		store Store
		max   float64
	}{
		{Initial, StoreComments, 1.15},
		{Deleted, StoreComments, 1.15},
		{Initial, StoreMetadata, 1.3},
		{Changed, StoreMetadata, 1.3},
		{NoOp, StoreComments, 1.15},
		{NoOp, StoreMetadata, 1.15},
	} {
		if got := syncBound(tc.s, string(tc.store)).Max; got != tc.max {
			t.Errorf("%s on %s: bound %.2f, want %.2f", tc.s, tc.store, got, tc.max)
		}
	}
	for _, s := range []Scenario{Initial, Deleted} {
		if _, ok := applyBound(s); ok {
			t.Errorf("%s has an Apply target", s)
		}
	}
	for _, s := range []Scenario{NoOp, Changed} {
		if b, ok := applyBound(s); !ok || b.Max != 1.2 {
			t.Errorf("%s: Apply target %.2f, %v; want 1.2", s, b.Max, ok)
		}
	}
}

func TestVerdict(t *testing.T) {
	b := Bound{Max: 1.15}
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{1.0, "**met**"},
		{1.15, "**met**"},
		{1.38, "**missed** by 20%"},
		{2.3, "**missed** by 100%"},
	} {
		if got := b.Verdict(tc.x); got != tc.want {
			t.Errorf("Verdict(%.2f) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

// cell is a cell of writer w whose runs took ds milliseconds.
func cell(k ServerKey, n int, s Scenario, w WriterID, ms ...int) Cell {
	c := Cell{Version: k.Version, Backend: k.Backend, N: n, Scenario: s, Writer: w}
	for _, m := range ms {
		c.Samples = append(c.Samples, Sample{Duration: time.Duration(m) * time.Millisecond})
	}
	return c
}

func TestRatioByServer(t *testing.T) {
	sqlite := ServerKey{Backend: "gsqlite3", Version: "4.9.18"}
	lmdb := ServerKey{Backend: "lmdb", Version: "4.9.18"}
	r := &report{res: &Results{Cells: []Cell{
		cell(sqlite, 1000, NoOp, Sync, 11, 12, 13),
		cell(sqlite, 1000, NoOp, Floor, 10, 10, 10),
		cell(lmdb, 1000, NoOp, Sync, 30, 30, 30),
		cell(lmdb, 1000, NoOp, Floor, 20, 20, 20),
	}}}
	// One version on two backends: each ratio is of its own server's cells.
	if x, ok := r.ratio(sqlite, 1000, NoOp, Sync, Floor); !ok || x != 1.2 {
		t.Errorf("gsqlite3 ratio %.2f, %v; want 1.2", x, ok)
	}
	if x, ok := r.ratio(lmdb, 1000, NoOp, Sync, Floor); !ok || x != 1.5 {
		t.Errorf("LMDB ratio %.2f, %v; want 1.5", x, ok)
	}
	if _, ok := r.ratio(lmdb, 1000, Initial, Sync, Floor); ok {
		t.Error("a ratio of cells not run")
	}
}
