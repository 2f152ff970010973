package reconcile

import (
	"slices"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// intent is what one operation asks of a zone.
type intent struct {
	// desired holds the RRsets the operation wants, canonical and stamped
	// with the writer and owner.
	desired *rrset.Set
	// keys are the keys the operation may change: nil for every key of the
	// zone (Sync), the one key of an Apply or a Remove.
	keys []rrset.Key
	// deletes says how the writer's RRsets absent from desired go.
	deletes deleteMode
	// force lets the deletes pass the delete guard (ForceDeletes).
	force bool
	// owner, for an explicit delete, is the object asking for it: an
	// RRset recorded for another object of the writer is not deleted.
	owner string
	// adopt lets the operation take RRsets no writer holds, whatever the
	// writer's standing rule (EnsureZone's apex).
	adopt bool
}

// deleteMode is how an operation deletes the writer's absent RRsets.
type deleteMode int

const (
	// deleteGated: through the deletion policy (Sync): upsert-only, the
	// sustained-absence gate, the delete guard.
	deleteGated deleteMode = iota
	// deleteNow: at once, the caller asked for it (Remove, Teardown).
	deleteNow
)

// othersOwn reports whether an explicit delete would take an RRset from
// another object of the writer than the one asking.
func (in intent) othersOwn(c rrset.Change) bool {
	return c.Op == rrset.OpDelete && in.deletes == deleteNow && in.owner != "" && c.Old.Owner != "" && c.Old.Owner != in.owner
}

// inScope reports whether the operation may change k.
func (in intent) inScope(k rrset.Key) bool {
	return in.keys == nil || slices.Contains(in.keys, k)
}

// rules are the writer's standing policies.
type rules struct {
	writer        string
	upsertOnly    bool
	guardFraction float64
	guardMin      int
	adopt         bool
	conflicts     []conflict.CheckOption
	// version is the server's version, "" before it is known: a delete
	// it refuses (rrset.CheckVersion) is not sent.
	version string
}

func (c *config) rules() rules {
	return rules{
		writer:        c.managedBy,
		upsertOnly:    c.upsertOnly,
		guardFraction: c.guardFraction,
		guardMin:      c.guardMin,
		adopt:         c.adopt,
		conflicts:     c.conflictOptions(),
	}
}

// adopting returns the rules with adoption on.
func (ru rules) adopting() rules {
	ru.adopt = true
	ru.conflicts = append(slices.Clip(ru.conflicts), conflict.WithAdoption(true))
	return ru
}

// recall is what decide asks of the Reconciler's memory of the zone.
type recall interface {
	// sustained reports whether the writer's RRset at k has been absent
	// from the desired state long enough to be deleted (the deletion
	// gate). Asked once per absent RRset per decision.
	sustained(k rrset.Key) bool
	// refused returns the problems of c when PowerDNS refused it before
	// and neither it nor the live data at its name has changed since.
	refused(c rrset.Change, live *rrset.Set) ([]pdnserrors.Problem, bool)
}

// decision is what to do.
type decision struct {
	// plan holds the changes to send, in the order to send them.
	plan      rrset.Plan
	blocked   []conflict.Conflict
	deferred  []Deferral
	refused   []Refusal // remembered refusals, not sent again
	handovers []Handover
	// locking is true when a change needs the zone lock: it creates an
	// RRset at a key no writer holds, adopts one, or takes one over.
	locking bool
}

// decide turns what an operation wants and what PowerDNS holds into what to
// send. It is a pure function of its arguments: no I/O, and no change to
// the Reconciler's memory, which rec only reads (the deletion gate's answer
// is recorded by its implementation, once per key).
//
// The steps, each narrowing what the one before planned:
//
//  1. rrset.Diff of desired and live, for the writer, narrowed to the
//     operation's keys; an explicit delete of another writer's RRset, or
//     of one no writer holds without adoption, is blocked (Remove); a
//     delete of the apex SOA or NS is dropped, and blocked when asked for
//     (conflict.ApexRequired); the writer's RRsets PowerDNS stores with a
//     record twice, which Diff reads as desired, are written again
//     (repairs);
//  2. the deletion policy holds back deletes of absent RRsets that are not
//     asked for: upsert-only, the sustained-absence gate, the delete guard
//     (decide_deletes.go);
//  3. conflict.CheckPlan blocks writes that break a rule at their name, or
//     land on another writer's RRset, judged with the held-back RRsets in
//     place; with takeover it adds the deletes that make room;
//  4. changes PowerDNS refused before, unchanged since, are not sent again;
//  5. deletes the server's version refuses (LUA from PowerDNS 5.1) are not
//     sent: they are refused with the version (versionRefusals).
func decide(in intent, obs *observation, ru rules, rec recall) decision {
	live := obs.set
	desired := withLiveSerial(in.desired, obs)
	plan := rrset.Diff(desired, live, ru.writer)
	var d decision
	if in.keys != nil {
		plan.Changes = slices.DeleteFunc(plan.Changes, func(c rrset.Change) bool {
			return !in.inScope(c.Key()) || in.othersOwn(c)
		})
		// Deletes come first in a plan.
		plan.Changes = append(d.explicitDeletes(in, obs, ru), plan.Changes...)
	}
	plan.Changes = append(plan.Changes, repairs(in, obs, desired, plan, ru.writer)...)
	// A zone keeps its apex SOA and NS: a Sync or a Teardown leaves them
	// without a word, a Remove that names one is blocked.
	apex := live.Zone()
	plan.Changes = slices.DeleteFunc(plan.Changes, func(c rrset.Change) bool {
		if !isApexFrame(apex, c) {
			return false
		}
		if in.keys != nil {
			d.blocked = append(d.blocked, conflict.Conflict{Key: c.Key(), Kind: conflict.ApexRequired, RRset: *c.Old, With: []rrset.RRset{*c.Old}})
		}
		return true
	})

	plan, d.deferred = holdDeletes(plan, in, obs, ru, rec)

	opts := append(slices.Clip(ru.conflicts), conflict.WithDisabledLive(obs.disabled...))
	checked := conflict.CheckPlan(plan, live, opts...)
	d.blocked = append(d.blocked, checked.Conflicts...)
	displaced := make(map[rrset.Key]bool, len(checked.Displaced))
	for _, rr := range checked.Displaced {
		displaced[rr.Key()] = true
	}
	if len(displaced) > 0 {
		// A takeover deletes a held-back RRset in the same PATCH as the
		// write that needs its place: it is no longer deferred.
		d.deferred = slices.DeleteFunc(d.deferred, func(def Deferral) bool {
			return displaced[def.RRset.Key()]
		})
	}

	d.plan = checked.Plan
	d.plan.Changes = slices.DeleteFunc(d.plan.Changes, func(c rrset.Change) bool {
		problems, ok := rec.refused(c, live)
		if ok {
			d.refused = append(d.refused, Refusal{Change: c, Problems: problems, Remembered: true})
		}
		return ok
	})
	d.plan.Changes = slices.DeleteFunc(d.plan.Changes, func(c rrset.Change) bool {
		r, ok := versionRefusal(c, ru.version)
		if ok {
			d.refused = append(d.refused, r)
		}
		return ok
	})

	for _, c := range d.plan.Changes {
		switch {
		case c.Op == rrset.OpCreate:
			d.locking = true
		case c.Op == rrset.OpUpdate && c.Old.ManagedBy != ru.writer:
			d.locking = true // adoption
		case c.Op == rrset.OpUpdate && c.New.Owner != "" && c.Old.Owner != c.New.Owner:
			d.handovers = append(d.handovers, Handover{Key: c.Key(), From: c.Old.Owner, To: c.New.Owner})
		case c.Op == rrset.OpDelete && c.Old.ManagedBy != ru.writer:
			d.locking = true // a takeover, or a Remove that adopts
		case c.Op == rrset.OpDelete && displaced[c.Key()]:
			d.locking = true // a takeover of the writer's own RRset
		}
	}
	return d
}

// versionRefusal returns the refusal of c when it is a delete that a
// server of version refuses: PowerDNS 5.1 refuses to delete LUA RRsets
// through its API (422, "Update of Lua records is not allowed") unless
// enable-lua-record-updates is set, as it refuses to write them, and the
// writes are refused before anything is read (learnServer). The refusal
// carries the *rrset.VersionError's message, classified as PowerDNS
// classifies its own; the rest of the plan goes.
func versionRefusal(c rrset.Change, version string) (Refusal, bool) {
	if c.Op != rrset.OpDelete || version == "" {
		return Refusal{}, false
	}
	k := c.Key()
	err := rrset.CheckVersion(rrset.RRset{Name: k.Name, Type: k.Type}, version)
	if err == nil {
		return Refusal{}, false
	}
	return Refusal{Change: c, Problems: []pdnserrors.Problem{{
		Reason: pdnserrors.InvalidRequest, Name: k.Name, Type: k.Type, Message: err.Error(),
	}}}, true
}

// isApexFrame reports a delete of the apex SOA or NS, which no operation
// makes: a zone without them is broken, not emptied (DeleteZone removes a
// zone), and a writer holds them when EnsureZone created its zone.
func isApexFrame(apex string, c rrset.Change) bool {
	return c.Op == rrset.OpDelete && c.Old.Name == apex && (c.Old.Type == "SOA" || c.Old.Type == "NS")
}

// explicitDeletes returns the deletes of an operation that asks for its
// keys to be gone (Remove) which Diff does not plan, since Diff never
// deletes what is not the writer's: an RRset no writer holds, adopted and
// deleted, and disabled RRsets. Another writer's RRset, and one no writer
// holds without adoption, are blocked instead.
func (d *decision) explicitDeletes(in intent, obs *observation, ru rules) []rrset.Change {
	if in.deletes != deleteNow {
		return nil
	}
	var out []rrset.Change
	for _, k := range in.keys {
		if _, wanted := in.desired.Get(k); wanted {
			continue
		}
		rr, ok := obs.set.Get(k)
		disabled := false
		if !ok {
			i := slices.IndexFunc(obs.disabled, func(rr rrset.RRset) bool { return rr.Key() == k })
			if i < 0 {
				continue
			}
			rr, disabled = obs.disabled[i], true
		}
		switch {
		case rr.ManagedBy == ru.writer && !disabled, rr.ManagedBy == ru.writer && in.owner != "" && rr.Owner != "" && rr.Owner != in.owner:
			// Diff deletes it, or it is another object's (othersOwn).
		case rr.ManagedBy == ru.writer, rr.ManagedBy == "" && ru.adopt:
			old := rr
			out = append(out, rrset.Change{Op: rrset.OpDelete, Old: &old})
		case rr.ManagedBy == "":
			d.blocked = append(d.blocked, conflict.Conflict{Key: k, Kind: conflict.Unowned, RRset: rr, With: []rrset.RRset{rr}})
		default:
			d.blocked = append(d.blocked, conflict.Conflict{Key: k, Kind: conflict.NotOwner, RRset: rr, With: []rrset.RRset{rr}})
		}
	}
	return out
}

// deleteRank orders deletes before writes.
func deleteRank(c rrset.Change) int {
	if c.Op == rrset.OpDelete {
		return 0
	}
	return 1
}
