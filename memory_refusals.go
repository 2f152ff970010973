package reconcile

import (
	"hash/fnv"
	"io"
	"strconv"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// A refused change is remembered with a fingerprint of itself and of the
// live data at its name, and is not sent again while both are unchanged:
// PowerDNS would refuse it again, and sending it anyway is the retry loop
// that pages people.
type refusalMemo struct {
	key         rrset.Key
	fingerprint uint64
	problems    []pdnserrors.Problem
}

func memoKey(c rrset.Change) string {
	k := c.Key()
	return k.Name + " " + k.Type + " " + c.Op.String()
}

// fingerprint hashes a change together with every live RRset at its name.
func fingerprint(c rrset.Change, live *rrset.Set) uint64 {
	h := fnv.New64a()
	write := func(rr *rrset.RRset) {
		if rr == nil {
			_, _ = io.WriteString(h, "-\n")
			return
		}
		_, _ = io.WriteString(h, rr.Name+" "+rr.Type+" "+strconv.FormatUint(uint64(rr.TTL), 10)+" "+rr.ManagedBy+" "+rr.Owner+" "+strconv.Quote(rr.Comment)+"\n")
		for _, r := range rr.Records {
			_, _ = io.WriteString(h, r+"\n")
		}
	}
	_, _ = io.WriteString(h, c.Op.String()+"\n")
	write(c.New)
	for _, rr := range live.ByName(c.Key().Name) {
		write(&rr)
	}
	return h.Sum64()
}

// refused reports the problems of c when PowerDNS refused it before and
// neither it nor the live data at its name has changed since.
func (m *zoneMemory) refused(c rrset.Change, live *rrset.Set) ([]pdnserrors.Problem, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.refusals) == 0 {
		return nil, false
	}
	memo, ok := m.refusals[memoKey(c)]
	if !ok || memo.fingerprint != fingerprint(c, live) {
		return nil, false
	}
	return memo.problems, true
}

// remember records that PowerDNS refused changes, judged against live.
func (m *zoneMemory) remember(changes []rrset.Change, problems []pdnserrors.Problem, live *rrset.Set) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range changes {
		m.refusals[memoKey(c)] = refusalMemo{key: c.Key(), fingerprint: fingerprint(c, live), problems: problems}
	}
}

// keepRefusals forgets the remembered refusals within scope that the last
// decision did not find current (still planned, nothing changed), so that
// the memory holds only refusals that still stand.
func (m *zoneMemory) keepRefusals(scope func(rrset.Key) bool, current []Refusal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.refusals) == 0 {
		return
	}
	keep := make(map[string]bool, len(current))
	for _, r := range current {
		keep[memoKey(r.Change)] = true
	}
	for key, memo := range m.refusals {
		if !keep[key] && scope(memo.key) {
			delete(m.refusals, key)
		}
	}
}
