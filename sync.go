package reconcile

import (
	"context"
	"fmt"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/rrset"
)

// Sync makes zone hold the desired RRsets of this Reconciler's writer.
//
// It is for writers that know every record they want in a zone:
//
//  1. it canonicalises desired (two spellings of one key with different
//     data are an *InputError, and nothing is sent), then reads the zone
//     once;
//  2. it diffs desired and live and checks the changes with package
//     conflict, so a write that would collide with other data or another
//     writer's RRset is blocked before PowerDNS sees it (Result.Blocked);
//  3. it holds back deletes that have not passed the sustained-absence gate
//     or would trip the delete guard (Result.Deferred);
//  4. it sends every allowed change in one atomic PATCH, deletes first,
//     split only when larger than the server accepts, taking the zone lock
//     first when a change creates, adopts or takes over an RRset;
//  5. if PowerDNS still refuses (another writer changed the zone since the
//     read), it isolates the refused RRsets, applies the rest and reports
//     the refused ones with their problems (Result.Refused). A refused
//     change is not sent again until it or the data at its name changes.
//
// Every desired RRset is stamped with the Reconciler's writer (and the
// owner of WithOwner). A nil error means every change was applied, blocked
// or deferred on purpose; transport and server failures are errors
// classified by package errors, and bad input is an *InputError.
// Result.RequeueAfter says when to sync again; the Result is valid with an
// error too (see Result for how a controller returns them).
//
// Sync returns when ctx ends, also while waiting for another operation of
// the zone by this Reconciler or for a server that does not answer; a zone
// lock it holds then is freed in the background, within five seconds.
func (r *Reconciler) Sync(ctx context.Context, zone string, desired []rrset.RRset, opts ...SyncOption) (res Result, err error) {
	defer r.observed(OperationSync, zone, time.Now(), &res, &err)
	o, err := r.syncOp("sync", zone, desired, opts, writes)
	if err != nil {
		return Result{Zone: zone}, err
	}
	return o.do(ctx, o.run)
}

// Plan reads the zone and reports what Sync(ctx, zone, desired, opts...)
// would do now, writing nothing: a dry run, the read and decide steps of a
// Sync. It records no observation in the deletion gate, so a delete is
// planned only when the gate has already opened for it or opens on a first
// observation (WithDeletionGate(1, 0)); any other delete of an RRset absent
// from desired shows as deferred, although the Sync that records the next
// observation may let it through.
func (r *Reconciler) Plan(ctx context.Context, zone string, desired []rrset.RRset, opts ...SyncOption) (pr PlanResult, err error) {
	defer r.observed(OperationPlan, zone, time.Now(), &pr.Result, &err)
	o, err := r.syncOp("plan", zone, desired, opts, dryRun)
	if err != nil {
		return PlanResult{Result: Result{Zone: zone}}, err
	}
	var plan rrset.Plan
	res, err := o.do(ctx, func(ctx context.Context) error {
		obs, err := o.read(ctx)
		if err != nil {
			return o.errorf(err)
		}
		d := o.decide(obs)
		o.report(d)
		plan = d.plan
		return nil
	})
	res.RequeueAfter = 0
	return PlanResult{Result: res, Plan: plan}, err
}

// syncOp checks a Sync's or a Plan's input and makes its operation.
func (r *Reconciler) syncOp(verb, zone string, desired []rrset.RRset, opts []SyncOption, eff effect) (*op, error) {
	rc := newSyncConfig(opts)
	canonical, err := canonicalZone(zone)
	if err != nil {
		return nil, err
	}
	st, err := newStamp(canonical, r.cfg.managedBy, rc.owner)
	if err != nil {
		return nil, err
	}
	var (
		want  *rrset.Set
		given *desiredMemo
	)
	if eff == writes {
		want, given, err = r.memory(canonical).desiredFor(canonical, st, desired)
	} else {
		// A Plan hands its Set out (PlanResult.Plan): its own.
		want, err = st.desiredSet(canonical, desired)
	}
	if err != nil {
		return nil, err
	}
	in := intent{desired: want, deletes: deleteGated, force: rc.forceDeletes}
	if rc.teardown {
		in.deletes = deleteNow
	}
	o := r.newOp(verb, canonical, in, readScope{}, eff)
	o.given = given
	return o, nil
}

// do runs body in the zone's turn and fills in the Result's counts and
// requeue.
func (o *op) do(ctx context.Context, body func(context.Context) error) (Result, error) {
	err := o.turnFor(ctx, body)
	o.res.detach()
	o.res.Requests, o.res.Patches = int(o.t.requests.Load()), int(o.t.patches.Load())
	o.res.RequeueAfter = o.requeueAfter(err)
	return o.res, err
}

// turnFor runs body in the zone's turn. An operation on one name that finds
// the turn taken first reads and decides beside the operation holding it
// (decideBeside): when that decision sends nothing, the operation ends
// there, without waiting for writes to other keys of the zone.
func (o *op) turnFor(ctx context.Context, body func(context.Context) error) error {
	var release func()
	ok := false
	// An Apply does not overtake Applies waiting for the turn.
	if !o.batches || !o.mem.sched.queued() {
		release, ok = o.mem.sched.tryTurn()
	}
	if !ok && o.mayDecideBeside() {
		done, err := o.decideBeside(ctx)
		if done {
			return err
		}
	}
	if !ok && o.batches {
		return o.waitForTurn(ctx, body)
	}
	if !ok {
		var err error
		if release, err = o.mem.sched.takeTurn(ctx); err != nil {
			return o.errorf(fmt.Errorf("wait for the operation on the zone in progress: %w", err))
		}
	}
	err := body(ctx)
	if !o.released.Load() {
		release()
	}
	return err
}

// Live reads zone and returns what it holds, as the Reconciler sees it,
// with the writer and owner of each RRset.
//
// It returns every RRset with at least one enabled record (its enabled
// records, in canonical form), with the writer and owner recorded for it in
// either ownership store ("" where none is), in canonical order. It writes
// nothing; use it to check a migration, or to show who holds what.
// LiveZone adds who made the zone, which may not be who holds its apex.
func (r *Reconciler) Live(ctx context.Context, zone string) ([]rrset.RRset, error) {
	live, err := r.live(ctx, zone, false)
	return live.RRsets, err
}

// LiveZone is what a zone holds and who made it, as Reconciler.LiveZone
// reads them.
type LiveZone struct {
	// Zone is the zone's canonical name.
	Zone string
	// RRsets are the zone's RRsets, as Live returns them.
	RRsets []rrset.RRset
	// MadeByWriter and MadeBy are who made the zone, as EnsureZone
	// recorded it (ZoneStatus.MadeByWriter and MadeBy): both empty when
	// no maker is recorded.
	MadeByWriter, MadeBy string
	// Requests counts the API calls made.
	Requests int
}

// LiveZone reads zone as Live does, and who made it: one read of the zone,
// and, where ownership is in comments (the metadata store reads every kind
// already), one read of the metadata kind that records the zone's maker.
// It writes nothing and takes no lock.
func (r *Reconciler) LiveZone(ctx context.Context, zone string) (LiveZone, error) {
	return r.live(ctx, zone, true)
}

// live is Live, and with maker LiveZone.
func (r *Reconciler) live(ctx context.Context, zone string, maker bool) (LiveZone, error) {
	canonical, err := canonicalZone(zone)
	if err != nil {
		return LiveZone{Zone: zone}, err
	}
	live := LiveZone{Zone: canonical}
	o := r.newOp("read", canonical, intent{}, readScope{}, dryRun)
	res, err := o.do(ctx, func(ctx context.Context) error {
		obs, _, md, err := o.readRaw(ctx)
		if err != nil {
			return o.errorf(err)
		}
		live.RRsets = obs.set.Sorted()
		if !maker {
			return nil
		}
		if o.store == OwnershipMetadata && md == nil {
			md = []powerdns.Metadata{} // read, and empty
		}
		m, err := recordedMaker(ctx, o.srv, canonical, md)
		if err != nil {
			return o.errorf(err)
		}
		live.MadeByWriter, live.MadeBy = m.writer, m.owner
		return nil
	})
	live.Requests = res.Requests
	return live, err
}

// OwnershipStore returns where this Reconciler records ownership on its
// server: the store WithOwnershipStore named, or the one OwnershipAuto
// picks (asking the server once for its version and backend).
func (r *Reconciler) OwnershipStore(ctx context.Context) (OwnershipStore, error) {
	var t tally
	facts, err := r.server.session(&t).facts(ctx)
	return facts.store, err
}
