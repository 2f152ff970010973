package bench

import (
	"context"
	"fmt"
)

// WriterID names one of the writers compared.
type WriterID int

// The writers. The zero value is invalid.
const (
	// Sync is the library: Reconciler.Sync with the desired RRsets.
	Sync WriterID = iota + 1
	// Apply is the library used by a per-object controller:
	// Reconciler.Apply for each object it reconciles, Reconciler.Remove
	// for each deleted one.
	Apply
	// PerRRset is a per-object controller without the library: for each
	// object it reconciles, one filtered GET of its RRset and, when that
	// differs, one PATCH of that RRset alone, through go-powerdns.
	PerRRset
	// PerRRsetWrites is one PATCH per object, sent blind, without reading
	// anything first: what dns-operator does. Where PerRRset writes, it
	// sends the same PATCHes in the same order.
	PerRRsetWrites
	// Floor is what PowerDNS itself costs: one GET of the zone (and of its
	// metadata where ownership lives there) and the PATCH bodies, encoded
	// before the clock started, that write the same data the library
	// writes, ownership included, over net/http.
	Floor
	// FloorBare is Floor without any ownership: the same records, no
	// comment and no claim.
	FloorBare
	// FloorMetadata is Floor with ownership in zone metadata (one claim
	// record, as the library's metadata store writes) on a server where
	// the library would use comments: what that store costs on the same
	// server.
	FloorMetadata
)

// Writers lists the writers in report order.
func Writers() []WriterID {
	return []WriterID{Sync, Apply, PerRRset, PerRRsetWrites, Floor, FloorBare, FloorMetadata}
}

// Letter is the writer's label in tables.
func (w WriterID) Letter() string {
	switch w {
	case Sync:
		return "a"
	case Apply:
		return "d"
	case PerRRset:
		return "b"
	case PerRRsetWrites:
		return "b′"
	case Floor:
		return "c"
	case FloorBare:
		return "c₀"
	case FloorMetadata:
		return "cₘ"
	}
	return fmt.Sprintf("WriterID(%d)", int(w))
}

// Flag is the writer's name in command-line flags: a, d, b, bw, c, c0 or
// cm.
func (w WriterID) Flag() string {
	switch w {
	case PerRRsetWrites:
		return "bw"
	case FloorBare:
		return "c0"
	case FloorMetadata:
		return "cm"
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
	return 0, fmt.Errorf("unknown writer %q: want a, d, b, bw, c, c0 or cm", name)
}

// PerObject reports whether the writer makes requests per object, so that
// its runs are long and need no warm-up (their first requests warm the
// server).
func (w WriterID) PerObject() bool { return w == Apply || w == PerRRset || w == PerRRsetWrites }

// String is the writer's name in reports.
func (w WriterID) String() string {
	switch w {
	case Sync:
		return "Reconciler.Sync"
	case Apply:
		return "Reconciler.Apply (Remove) per object"
	case PerRRset:
		return "one filtered GET per object, then one PATCH if needed"
	case PerRRsetWrites:
		return "one blind PATCH per object"
	case Floor:
		return "floor: one raw GET + prebuilt PATCH, ownership as the library writes it"
	case FloorBare:
		return "floor without ownership"
	case FloorMetadata:
		return "floor with ownership in zone metadata"
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
