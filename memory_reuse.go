package reconcile

import (
	"slices"
	"sync/atomic"

	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// Reuse between operations: what did not change is not made again.
//
// A Sync canonicalises every RRset it is given and every RRset it reads,
// which for a large zone is most of what it costs the client. The first
// no-op Sync after a write is given what the Sync before it was given,
// and reads a zone that differs from the last read only in the RRsets
// written (and the SOA, where PowerDNS raises the serial). So the zone's
// memory keeps:
//
//   - the desired RRsets of the last Sync as given, with the Set they made:
//     a Sync given equal RRsets (compared field by field, never hashed)
//     takes that Set;
//   - the Set of the last whole read, with the keys PowerDNS answered
//     otherwise than in their canonical form: an RRset read again exactly
//     as it was answered before, in canonical form then, is taken from it
//     rather than parsed again.
//
// Both Sets are read-only once made. Every RRset a Result names is a copy
// (Result.detach), so that no caller's change to one reaches them. Only
// operations that write keep or take them: a Plan or Live hands its reads
// out. Forget drops them.

// desiredMemo is what the zone's last Sync was given, and what it made of it.
type desiredMemo struct {
	owner string
	// given is a copy of the RRsets as given: their strings are shared
	// (Go strings do not change), their Records slices copied.
	given []rrset.RRset
	set   *rrset.Set
	// sum is desiredHash(set), 0 until first asked.
	sum atomic.Uint64
}

// liveMemo is the Set of the zone's last whole read.
type liveMemo struct {
	set *rrset.Set
	// uncanonical holds the keys whose RRset PowerDNS answered otherwise
	// than as the Set holds it (a record disabled, or one content, the
	// order of the contents, the name or the type spelt otherwise).
	uncanonical map[rrset.Key]struct{}
}

// desiredFor returns the Set a Sync of the zone makes of given, stamped
// with st: the last Sync's, when it was given equal RRsets.
func (m *zoneMemory) desiredFor(zone string, st stamp, given []rrset.RRset) (*rrset.Set, *desiredMemo, error) {
	m.mu.Lock()
	dm := m.desired
	m.mu.Unlock()
	if dm != nil && dm.owner == st.owner && sameGiven(dm.given, given) {
		return dm.set, dm, nil
	}
	set, err := st.desiredSet(zone, given)
	if err != nil {
		return nil, nil, err
	}
	if _, soa := set.Get(rrset.Key{Name: set.Zone(), Type: "SOA"}); soa {
		// A Sync that asks for the SOA has its serial replaced by the
		// live one in its Set (withLiveSerial): that Set is its own.
		return set, nil, nil
	}
	dm = &desiredMemo{owner: st.owner, given: copyGiven(given), set: set}
	m.mu.Lock()
	m.desired = dm
	m.mu.Unlock()
	return set, dm, nil
}

// sameGiven reports whether a and b hold the same RRsets, field by field,
// in the same order.
func sameGiven(a, b []rrset.RRset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Type != y.Type || x.TTL != y.TTL || x.ManagedBy != y.ManagedBy ||
			x.Owner != y.Owner || x.Comment != y.Comment || !slices.Equal(x.Records, y.Records) {
			return false
		}
	}
	return true
}

// copyGiven copies given, the records of all its RRsets in one array.
func copyGiven(given []rrset.RRset) []rrset.RRset {
	n := 0
	for i := range given {
		n += len(given[i].Records)
	}
	records := make([]string, 0, n)
	out := make([]rrset.RRset, len(given))
	for i, rr := range given {
		start := len(records)
		records = append(records, rr.Records...)
		rr.Records = records[start:len(records):len(records)]
		out[i] = rr
	}
	return out
}

// lastLive returns the zone's last whole read, or nil.
func (m *zoneMemory) lastLive() *liveMemo {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live
}

// keepLive keeps obs, a whole read, for the next one.
func (m *zoneMemory) keepLive(obs *observation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.live = &liveMemo{set: obs.set, uncanonical: obs.uncanonical}
}

// reuse returns the RRset of the last whole read that p, as PowerDNS
// answers it now, makes: the same when p is exactly as answered then, in
// canonical form, every record enabled. Ownership and the note are the
// caller's to read again from p's comments.
func (l *liveMemo) reuse(p *zonejson.RRset) (rrset.RRset, bool) {
	if l == nil {
		return rrset.RRset{}, false
	}
	rr, ok := l.set.Get(rrset.Key{Name: p.Name, Type: p.Type})
	if !ok || !answeredAs(p, &rr) {
		return rrset.RRset{}, false
	}
	if _, ok := l.uncanonical[rr.Key()]; ok {
		return rrset.RRset{}, false
	}
	return rr, true
}

// answeredAs reports whether p holds exactly rr's name, type, TTL and
// records, in order, every one enabled.
func answeredAs(p *zonejson.RRset, rr *rrset.RRset) bool {
	if p.Name != rr.Name || p.Type != rr.Type || p.TTL != rr.TTL || len(p.Records) != len(rr.Records) {
		return false
	}
	for i := range p.Records {
		if p.Records[i].Disabled || p.Records[i].Content != rr.Records[i] {
			return false
		}
	}
	return true
}
