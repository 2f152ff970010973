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
	s, sc, err := r.newRun(zone, opts)
	if err != nil {
		return PlanResult{Zone: zone}, err
	}
	canonical := s.zone
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
	s.dry = true
	want, err := desiredSet(s.zone, s.r.cfg.managedBy, desired)
	if err != nil {
		return err
	}
	live, _, _, err := s.readAll(ctx)
	if err != nil {
		return err
	}
	held := s.r.holdDeletes(s.zone, want, live.set, sc, true)
	out.Plan = s.plan(want, held, live)
	out.Blocked, out.Deferred, out.Refused = s.res.Blocked, s.res.Deferred, s.res.Refused
	return nil
}
