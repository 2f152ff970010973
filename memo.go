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
		_, _ = io.WriteString(h, rr.Name+" "+rr.Type+" "+strconv.FormatUint(uint64(rr.TTL), 10)+" "+rr.ManagedBy+"\n")
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

// remember records that PowerDNS refused the changes of u.
func (r *Reconciler) remember(zone string, u unit, problems []pdnserrors.Problem, live *rrset.Set) {
	r.memoMu.Lock()
	defer r.memoMu.Unlock()
	m := r.refusals[zone]
	if m == nil {
		m = make(map[string]refusalMemo)
		r.refusals[zone] = m
	}
	for _, c := range u.changes {
		m[memoKey(c)] = refusalMemo{fingerprint: fingerprint(c, live), problems: problems}
	}
}

// skipRemembered removes from plan the changes PowerDNS refused before and
// that nothing has changed since, reporting them as remembered refusals.
// Unless dry, it forgets memos that no longer match a planned change, so the
// memory holds only refusals still current.
func (r *Reconciler) skipRemembered(zone string, plan rrset.Plan, live *rrset.Set, res *Result, dry bool) rrset.Plan {
	r.memoMu.Lock()
	defer r.memoMu.Unlock()
	old := r.refusals[zone]
	if len(old) == 0 {
		return plan
	}
	kept := make(map[string]refusalMemo)
	out := plan
	out.Changes = make([]rrset.Change, 0, len(plan.Changes))
	for _, c := range plan.Changes {
		key := memoKey(c)
		if m, ok := old[key]; ok && m.fingerprint == fingerprint(c, live) {
			kept[key] = m
			res.Refused = append(res.Refused, Refusal{Change: c, Problems: m.problems, Remembered: true})
			continue
		}
		out.Changes = append(out.Changes, c)
	}
	switch {
	case dry:
	case len(kept) == 0:
		delete(r.refusals, zone)
	default:
		r.refusals[zone] = kept
	}
	return out
}
