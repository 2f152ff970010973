package bench

import (
	"context"
	"fmt"
)

// WriterID names one of the three writers compared.
type WriterID int

// The writers. The zero value is invalid.
const (
	// Sync is the library: Reconciler.Sync with the desired RRsets.
	Sync WriterID = iota + 1
	// PerRRset is a per-object controller: for each object it
	// reconciles, one filtered GET of its RRset and, when that differs,
	// one PATCH of that RRset alone, through go-powerdns.
	PerRRset
	// PerRRsetWrites is PerRRset without its reads: one PATCH per object,
	// sent blind. It does a subset of PerRRset's work (the same PATCHes,
	// in the same order), so its time is a lower bound of PerRRset's.
	PerRRsetWrites
	// Floor is what PowerDNS itself costs: one GET of the zone and one
	// PATCH whose body was encoded before the clock started, over
	// net/http.
	Floor
)

// Writers lists the writers in report order.
func Writers() []WriterID { return []WriterID{Sync, PerRRset, PerRRsetWrites, Floor} }

// Letter is the writer's label in tables: a, b, b′ or c.
func (w WriterID) Letter() string {
	switch w {
	case Sync:
		return "a"
	case PerRRset:
		return "b"
	case PerRRsetWrites:
		return "b′"
	case Floor:
		return "c"
	}
	return fmt.Sprintf("WriterID(%d)", int(w))
}

// Flag is the writer's name in command-line flags: a, b, bw or c.
func (w WriterID) Flag() string {
	if w == PerRRsetWrites {
		return "bw"
	}
	return w.Letter()
}

// ParseWriter reads a writer's Flag.
func ParseWriter(name string) (WriterID, error) {
	for _, w := range Writers() {
		if w.Flag() == name {
			return w, nil
		}
	}
	return 0, fmt.Errorf("unknown writer %q: want a, b, bw or c", name)
}

// Slow reports whether the writer makes a request per RRset, so that it
// runs only where the plan says.
func (w WriterID) Slow() bool { return w == PerRRset || w == PerRRsetWrites }

// String is the writer's name in reports.
func (w WriterID) String() string {
	switch w {
	case Sync:
		return "Reconciler.Sync"
	case PerRRset:
		return "one PATCH per RRset, each after a GET of that RRset"
	case PerRRsetWrites:
		return "one PATCH per RRset, without the GETs"
	case Floor:
		return "floor: one raw GET + one prebuilt PATCH"
	}
	return w.Letter()
}

// Writer is one way of making the benchmark zone hold what a Case desires.
type Writer interface {
	ID() WriterID
	// Prepare does everything that may happen before the clock starts
	// (building the input, encoding bodies) and returns the timed part.
	Prepare(ctx context.Context, c Case) (func(context.Context) error, error)
	// Counter counts the timed part's requests.
	Counter() *Counter
}
