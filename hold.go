package reconcile

import (
	"cmp"
	"slices"
	"time"

	"github.com/pdnskit/reconcile/rrset"
)

// minDeferPace is the shortest requeue suggested while deletes wait.
const minDeferPace = time.Second

// gateIdle is how long a deletion-gate entry may go unobserved before it is
// dropped: far beyond any sensible gate span, so only entries of zones and
// names nobody syncs any more go.
const gateIdle = 24 * time.Hour

// holdDeletes decides which of the writer's live RRsets that are absent from
// want may be deleted by this Sync, and returns the others, which the plan
// keeps where they are:
//
//   - with WithUpsertOnly, none is deleted;
//   - an RRset must have been absent on the gate's number of consecutive
//     syncs spanning its span (one bad read of the desired state, such as
//     a nameserver flap, deletes nothing);
//   - if the deletes that pass the gate exceed the delete guard's share of
//     the writer's RRsets in the zone, none is deleted unless forced.
//
// It records one observation per RRset in the gate: call it once per Sync.
// A dry run (Plan) records nothing: a delete then passes only where the gate
// has opened already, or opens on a first observation.
func (r *Reconciler) holdDeletes(zone string, want, live *rrset.Set, sc syncConfig, dry bool) []Deferral {
	writer := r.cfg.managedBy
	// No streak anywhere (the steady state): nothing to forget for the
	// RRsets still wanted, and no key to build for them.
	streaks := !dry && r.gate.Len() > 0
	if !dry {
		r.gate.ForgetIdle(gateIdle)
	}
	observe := func(key string) bool {
		if dry {
			return r.cfg.deleteChecks <= 1 && r.cfg.deleteSpan == 0 || r.gate.Sustained(key)
		}
		return r.gate.Observe(key, true)
	}
	owned := 0
	var held []Deferral
	var passing []rrset.RRset
	for rr := range live.Unordered() {
		if rr.ManagedBy != writer {
			continue
		}
		owned++
		if _, ok := want.Get(rr.Key()); ok {
			if streaks {
				r.gate.Forget(gateKey(zone, rr.Key()))
			}
			continue
		}
		switch {
		case r.cfg.upsertOnly:
			held = append(held, Deferral{RRset: rr, Reason: DeferUpsertOnly})
		case !observe(gateKey(zone, rr.Key())):
			held = append(held, Deferral{RRset: rr, Reason: DeferGate})
		default:
			passing = append(passing, rr)
		}
	}
	if !sc.forceDeletes && owned >= r.cfg.guardMin &&
		float64(len(passing)) > r.cfg.guardFraction*float64(owned) {
		for _, rr := range passing {
			held = append(held, Deferral{RRset: rr, Reason: DeferGuard})
		}
		passing = nil
	}
	for _, rr := range passing {
		if !dry {
			// The delete goes ahead: a later absence starts a new streak.
			r.gate.Forget(gateKey(zone, rr.Key()))
		}
	}
	slices.SortFunc(held, func(a, b Deferral) int {
		return cmp.Or(cmp.Compare(a.RRset.Name, b.RRset.Name), cmp.Compare(a.RRset.Type, b.RRset.Type))
	})
	return held
}

// recheckHolds carries the decisions of holdDeletes over to a new read of
// the zone: the same keys stay held, with their data as now read, as long
// as they are still the writer's.
func (r *Reconciler) recheckHolds(live *rrset.Set, held []Deferral) []Deferral {
	out := held[:0]
	for _, d := range held {
		rr, ok := live.Get(d.RRset.Key())
		if ok && rr.ManagedBy == r.cfg.managedBy {
			out = append(out, Deferral{RRset: rr, Reason: d.Reason})
		}
	}
	return out
}

func gateKey(zone string, k rrset.Key) string {
	return zone + " " + k.Name + " " + k.Type
}
