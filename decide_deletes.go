package reconcile

import (
	"cmp"
	"slices"

	"github.com/pdnskit/reconcile/rrset"
)

// The deletion policy: steps from a plan to a plan, each holding back some
// of the deletes of the writer's RRsets that are absent from the desired
// state (in the manner of external-dns's policies). Every delete an
// operation plans passes through them, whatever path planned it: a plan
// made again on a re-read under the zone lock included.

// absentDelete is a delete the policy may hold back.
type absentDelete struct {
	index int // in the plan
	rr    rrset.RRset
}

// deletePolicy holds back some of the deletes it is given, returning the
// ones that pass and the deferrals of the others.
type deletePolicy func(deletes []absentDelete) (pass []absentDelete, held []Deferral)

// upsertOnly holds back every delete.
func upsertOnly(deletes []absentDelete) ([]absentDelete, []Deferral) {
	held := make([]Deferral, len(deletes))
	for i, d := range deletes {
		held[i] = Deferral{RRset: d.rr, Reason: DeferUpsertOnly}
	}
	return nil, held
}

// gate holds back the deletes of RRsets not absent for long enough: one bad
// read of the desired state (a nameserver flap) deletes nothing.
func gate(sustained func(rrset.Key) bool) deletePolicy {
	return func(deletes []absentDelete) (pass []absentDelete, held []Deferral) {
		for _, d := range deletes {
			if sustained(d.rr.Key()) {
				pass = append(pass, d)
			} else {
				held = append(held, Deferral{RRset: d.rr, Reason: DeferGate})
			}
		}
		return pass, held
	}
}

// guard holds back every delete when together they would remove more than
// fraction of the owned RRsets of a writer that holds at least least of
// them.
func guard(fraction float64, least, owned int) deletePolicy {
	return func(deletes []absentDelete) ([]absentDelete, []Deferral) {
		if owned < least || float64(len(deletes)) <= fraction*float64(owned) {
			return deletes, nil
		}
		held := make([]Deferral, len(deletes))
		for i, d := range deletes {
			held[i] = Deferral{RRset: d.rr, Reason: DeferGuard}
		}
		return nil, held
	}
}

// policyFor is the deletion policy of an operation.
func policyFor(in intent, ru rules, owned int, rec recall) []deletePolicy {
	switch {
	case in.deletes == deleteNow:
		return nil
	case ru.upsertOnly:
		return []deletePolicy{upsertOnly}
	}
	steps := []deletePolicy{gate(rec.sustained)}
	if !in.force {
		steps = append(steps, guard(ru.guardFraction, ru.guardMin, owned))
	}
	return steps
}

// holdDeletes runs the deletion policy over the plan's deletes of absent
// RRsets and returns the plan without the held ones, and their deferrals
// sorted by key. Deletes that replace nothing the writer asked for (another
// step's, e.g. an explicit Remove of an adopted RRset) are Diff's too: the
// policy sees every delete of the plan.
func holdDeletes(plan rrset.Plan, in intent, obs *observation, ru rules, rec recall) (rrset.Plan, []Deferral) {
	var deletes []absentDelete
	for i, c := range plan.Changes {
		if c.Op == rrset.OpDelete {
			deletes = append(deletes, absentDelete{index: i, rr: *c.Old})
		}
	}
	steps := policyFor(in, ru, ownedBy(obs, ru.writer, deletes), rec)
	if len(deletes) == 0 || len(steps) == 0 {
		return plan, nil
	}
	var deferred []Deferral
	pass := deletes
	for _, step := range steps {
		var held []Deferral
		pass, held = step(pass)
		deferred = append(deferred, held...)
	}
	if len(deferred) == 0 {
		return plan, nil
	}
	keep := make(map[int]bool, len(pass))
	for _, d := range pass {
		keep[d.index] = true
	}
	out := plan
	out.Changes = make([]rrset.Change, 0, len(plan.Changes)-len(deferred))
	for i, c := range plan.Changes {
		if c.Op != rrset.OpDelete || keep[i] {
			out.Changes = append(out.Changes, c)
		}
	}
	slices.SortFunc(deferred, func(a, b Deferral) int {
		return cmp.Or(cmp.Compare(a.RRset.Name, b.RRset.Name), cmp.Compare(a.RRset.Type, b.RRset.Type))
	})
	return out, deferred
}

// ownedBy counts the writer's RRsets in the observation, for the delete
// guard; it is needed only when there are deletes to judge.
func ownedBy(obs *observation, writer string, deletes []absentDelete) int {
	if len(deletes) == 0 {
		return 0
	}
	n := 0
	for rr := range obs.set.Unordered() {
		if rr.ManagedBy == writer {
			n++
		}
	}
	return n
}
