package reconcile

import (
	"context"
	"fmt"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// PlanResult is what a Sync of a zone would do now.
type PlanResult struct {
	// Zone is the zone's canonical name.
	Zone string
	// Plan holds the changes Sync would send, in the order it would send
	// them.
	Plan rrset.Plan
	// Blocked lists the writes Sync would refuse before PowerDNS saw them.
	Blocked []conflict.Conflict
	// Refused lists the changes PowerDNS refused before that Sync would
	// not send again (each Remembered).
	Refused []Refusal
	// Deferred lists the deletes Sync would hold back.
	Deferred []Deferral
	// Requests counts the API calls Plan made, all of them reads.
	Requests int
}

// Plan reads the zone and reports what Sync(ctx, zone, desired, opts...)
// would do now, writing nothing: a dry run. It makes the same decisions as
// Sync, with one difference: it records no observation in the deletion
// gate, so a delete is planned only when the gate has already opened for it
// or opens on a first observation (WithDeletionGate(1, 0)); any other
// delete of an RRset absent from desired shows as deferred, although the
// Sync that records the next observation may let it through.
func (r *Reconciler) Plan(ctx context.Context, zone string, desired []rrset.RRset, opts ...SyncOption) (PlanResult, error) {
	var sc syncConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&sc)
		}
	}
	canonical, err := rrset.CanonicalZone(zone)
	if err != nil {
		return PlanResult{Zone: zone}, &InputError{Zone: zone, Err: err}
	}
	s := &syncRun{r: r, zone: canonical, res: Result{Zone: canonical}}
	unlock, err := r.lockZone(ctx, canonical)
	if err != nil {
		return PlanResult{Zone: canonical}, fmt.Errorf("plan %s: %w", canonical, err)
	}
	defer unlock()

	out := PlanResult{Zone: canonical}
	err = s.dryRun(ctx, desired, sc, &out)
	out.Requests = s.res.Requests
	return out, err
}

// dryRun is run up to the plan, without taking the zone lock, writing, or
// changing what the Reconciler remembers (deletion gate, refusals).
func (s *syncRun) dryRun(ctx context.Context, desired []rrset.RRset, sc syncConfig, out *PlanResult) error {
	r := s.r
	want, err := desiredSet(s.zone, r.cfg.managedBy, desired)
	if err != nil {
		return err
	}
	if _, err := r.ownershipStore(ctx, s); err != nil {
		return fmt.Errorf("plan %s: detect ownership store: %w", s.zone, err)
	}
	md, err := s.listMetadata(ctx)
	if err != nil {
		return fmt.Errorf("plan %s: %w", s.zone, err)
	}
	live, err := s.read(ctx, md)
	if err != nil {
		return fmt.Errorf("plan %s: %w", s.zone, err)
	}
	held := r.previewDeletes(s.zone, want, live.set, sc)
	withHeld := want
	if len(held) > 0 {
		withHeld = cloneSet(want)
		for _, d := range held {
			_ = withHeld.Add(d.RRset)
		}
	}
	checked := conflict.Check(withHeld, live.set, r.cfg.managedBy,
		conflict.WithPolicy(r.cfg.policy),
		conflict.WithAdoption(r.cfg.adopt),
		conflict.WithDisabledLive(live.disabled...),
	)
	out.Blocked = checked.Conflicts
	out.Deferred = withoutTakenOver(held, checked.Plan)
	out.Plan, out.Refused = r.previewRemembered(s.zone, checked.Plan, live.set)
	return nil
}

// previewDeletes is holdDeletes without recording an observation: a delete
// passes the gate only when the gate is already sustained for it or opens on
// a first observation.
func (r *Reconciler) previewDeletes(zone string, want, live *rrset.Set, sc syncConfig) []Deferral {
	writer := r.cfg.managedBy
	opensAtOnce := r.cfg.deleteChecks <= 1 && r.cfg.deleteSpan == 0
	owned := 0
	var deferred []Deferral
	var passing []rrset.RRset
	for rr := range live.All() {
		if rr.ManagedBy != writer {
			continue
		}
		owned++
		if _, ok := want.Get(rr.Key()); ok {
			continue
		}
		switch {
		case r.cfg.upsertOnly:
			deferred = append(deferred, Deferral{RRset: rr, Reason: DeferUpsertOnly})
		case !opensAtOnce && !r.gate.Sustained(gateKey(zone, rr.Key())):
			deferred = append(deferred, Deferral{RRset: rr, Reason: DeferGate})
		default:
			passing = append(passing, rr)
		}
	}
	if !sc.forceDeletes && owned >= r.cfg.guardMin &&
		float64(len(passing)) > r.cfg.guardFraction*float64(owned) {
		for _, rr := range passing {
			deferred = append(deferred, Deferral{RRset: rr, Reason: DeferGuard})
		}
	}
	return deferred
}

// previewRemembered is skipRemembered without forgetting stale memos.
func (r *Reconciler) previewRemembered(zone string, plan rrset.Plan, live *rrset.Set) (rrset.Plan, []Refusal) {
	r.memoMu.Lock()
	defer r.memoMu.Unlock()
	memos := r.refusals[zone]
	if len(memos) == 0 {
		return plan, nil
	}
	var refused []Refusal
	out := plan
	out.Changes = make([]rrset.Change, 0, len(plan.Changes))
	for _, c := range plan.Changes {
		if m, ok := memos[memoKey(c)]; ok && m.fingerprint == fingerprint(c, live) {
			refused = append(refused, Refusal{Change: c, Problems: m.problems, Remembered: true})
			continue
		}
		out.Changes = append(out.Changes, c)
	}
	return out, refused
}
