package reconcile

import (
	"slices"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// What a read under the zone lock covers.
//
// A create is decided on a read made under the lock after the last write,
// always; what the decision needs of the zone is what stands at the names
// it writes (every type: the type rules, another writer's RRset at the
// key) and at the names above them up to the apex (an NS or DNAME there
// would hide the write, conflict.Occluded). A create of an NS or DNAME
// below the apex needs the whole zone (what it would hide). The names are
// read one filtered GET each, all at once, or the zone whole in one GET:
// whichever is expected to take less time, by the zone's size as the
// Reconciler last saw it against the number of names (byName). A zone it
// has not read whole yet is read whole: that read also tells the memory
// every name.

// rrsetsPerRead is how many RRsets more a whole read of a zone reads in
// the time of one filtered GET. In BenchmarkZoneReads (5.1.5 gsqlite3, a
// busy 2-core machine, medians of 5) a whole read of 1,000 RRsets took
// 3.4 times one filtered GET, of 3,000 7.2 times: a filtered GET costs
// what 420 to 480 RRsets more of a whole read do.
const rrsetsPerRead = 450

// byName reports whether reads filtered GETs are expected to take less
// time than one whole read of a zone of rrsets RRsets. The GETs go at
// once, but are counted one after the other: on a busy server they are,
// and the estimate then errs towards the one whole read.
func byName(rrsets, reads int) bool {
	return (reads-1)*rrsetsPerRead < rrsets
}

// lockedScope is what a read under the zone lock covers for an operation
// at names that wants desired: its names, and the names above them when
// it expects to create (above), or the whole zone (see the top of this
// file). rrsets and whole are what the zone's memory knows of the zone's
// size.
func lockedScope(zone string, names []string, desired *rrset.Set, above bool, rrsets int, whole bool) readScope {
	if !whole || len(names) == 0 {
		return readScope{}
	}
	for rr := range desired.Unordered() {
		if rr.Name != zone && (rr.Type == "NS" || rr.Type == "DNAME") {
			return readScope{}
		}
	}
	s := readScope{name: names[0], names: slices.Clone(names[1:])}
	if above {
		for _, name := range names {
			for _, a := range conflict.Ancestors(zone, name) {
				if !s.covers(rrset.Key{Name: a}) {
					s.ancestors = append(s.ancestors, a)
				}
			}
		}
	}
	if !byName(rrsets, 1+len(s.names)+len(s.ancestors)) {
		return readScope{}
	}
	return s
}
