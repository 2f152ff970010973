package reconcile

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/joeig/go-powerdns/v3"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// op is one operation on a zone — a Sync, a Plan, an Apply or a Remove — in
// progress: read → decide → write, with what it asks (intent), what it read
// (scope), its session with the server and its Result.
type op struct {
	r     *Reconciler
	verb  string // for errors: "sync", "plan", "apply", "remove"
	zone  string
	mem   *zoneMemory
	t     tally
	srv   session
	res   Result
	store OwnershipStore
	in    intent
	scope readScope
	gate  *gateObserver
	// requeueKey keys the operation's requeue streak in the zone's memory.
	requeueKey string
	// released is set when a background release of the zone lock took
	// over the turn (see finish).
	released atomic.Bool
}

// tally counts what one operation asked of the server; a lock freed in the
// background still counts, so it is counted atomically.
type tally struct {
	requests, patches atomic.Int64
}

func (r *Reconciler) newOp(verb, zone string, in intent, scope readScope, record bool) *op {
	mem := r.memory(zone)
	o := &op{r: r, verb: verb, zone: zone, mem: mem, in: in, scope: scope,
		gate: mem.observer(r.cfg, record), res: Result{Zone: zone}}
	o.srv = r.server.session(&o.t)
	if len(in.keys) == 1 {
		o.requeueKey = absenceKey(in.keys[0])
	}
	return o
}

// errorf wraps err with the operation and zone, or returns nil.
func (o *op) errorf(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s: %w", o.verb, o.zone, err)
}

// read reads what the operation covers: the zone, or the RRsets at one
// name, then, with the metadata store, the zone's metadata, where ownership
// is. In that order: a claim is written before its RRset, so every RRset of
// the read has its claim in the later read of the metadata (a release
// comes after its delete, so a claim read without its RRset is harmless).
// readAt is when the read began, for the zone lock.
func (o *op) read(ctx context.Context) (obs *observation, readAt time.Time, err error) {
	if o.store == OwnershipAuto {
		if o.store, err = o.srv.ownershipStore(ctx); err != nil {
			return nil, readAt, err
		}
	}
	readAt = o.r.cfg.clock.Now()
	q := pdnsapi.ZoneQuery{RRsetName: o.scope.name, RRsetType: o.scope.typ}
	z, err := o.srv.zone(ctx, o.zone, q)
	if err != nil {
		return nil, readAt, fmt.Errorf("read zone: %w", err)
	}
	var md []powerdns.Metadata
	if o.store == OwnershipMetadata {
		if md, err = o.srv.metadata(ctx, o.zone); err != nil {
			return nil, readAt, err
		}
	}
	obs, err = observe(o.zone, z, md, o.r.cfg.managedBy, o.scope, o.r.cfg.logger.Warn)
	return obs, readAt, err
}

// decide is decide, for this operation.
func (o *op) decide(obs *observation) decision {
	return decide(o.in, obs, o.r.cfg.rules(), recallOf{o.gate, o.mem})
}

// recallOf answers decide's questions from the zone's memory.
type recallOf struct {
	gate *gateObserver
	mem  *zoneMemory
}

func (r recallOf) sustained(k rrset.Key) bool { return r.gate.sustained(k) }

func (r recallOf) refused(c rrset.Change, live *rrset.Set) ([]pdnserrors.Problem, bool) {
	return r.mem.refused(c, live)
}

// report puts a decision into the Result.
func (o *op) report(d decision) {
	o.res.Blocked, o.res.Deferred, o.res.Refused, o.res.Handovers = d.blocked, d.deferred, d.refused, d.handovers
}

// run is the operation after its turn: read, decide, write.
func (o *op) run(ctx context.Context) (err error) {
	obs, readAt, err := o.read(ctx)
	if err != nil {
		return o.errorf(err)
	}
	return o.errorf(o.write(ctx, obs, readAt, o.decide(obs)))
}

// write carries out a decision: the zone lock when a change needs it (and,
// when another writer may have written since the read, a new read and a new
// decision under it), then the changes, and the memory of the zone.
func (o *op) write(ctx context.Context, obs *observation, readAt time.Time, d decision) (err error) {
	o.report(d)
	if len(d.plan.Changes) == 0 && !o.claimsToSettle(obs, nil) {
		o.remember(d, nil)
		return nil
	}
	var lk *lock
	if d.locking {
		lk, err = o.takeLock(ctx, readAt)
		defer o.freeLock(ctx, lk, &err)
		if err != nil {
			return err
		}
		if lk.contended {
			o.res.Postponed, o.res.PostponedFor = d.plan.Changes, lk.holders
			return nil
		}
		if lk.stale {
			// Another writer wrote since the read: read again and decide
			// anew, now that no other writer can write. Every rule, the
			// deletion policy included, applies to what the new read
			// shows.
			if obs, _, err = o.read(ctx); err != nil {
				return err
			}
			d = o.decide(obs)
			o.report(d)
		}
	}
	o.mem.keepRefusals(o.in.inScope, d.refused)
	applied, err := o.apply(ctx, obs, d, lk)
	o.endStreaks(applied)
	return err
}

// freeLock releases the lock at the end of a write. When the caller gave up
// (ctx ended), it must not wait for a server that may not answer: the lock
// is freed in the background, within releaseBound, and the zone's turn in
// this Reconciler is kept until then, so that no operation of the zone
// takes the lock meanwhile. A failure to free it is reported only when the
// operation has no error of its own: a lock left held is ignored by other
// writers after DefaultLockTTL.
func (o *op) freeLock(ctx context.Context, lk *lock, errp *error) {
	if lk == nil || lk.held == "" || lk.keep {
		return
	}
	if ctx.Err() != nil {
		o.released.Store(true)
		go func() {
			defer o.endTurn()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
			defer cancel()
			_ = o.releaseLock(ctx, lk)
		}()
		return
	}
	if err := o.releaseLock(ctx, lk); err != nil && *errp == nil {
		*errp = err
	}
}

// releaseBound bounds freeing the zone lock after the caller gave up.
const releaseBound = 5 * time.Second

// endTurn ends the operation's turn at the zone.
func (o *op) endTurn() { <-o.mem.turn }

// remember updates the zone's memory after a decision that found nothing
// to write: refusals that no longer stand are forgotten, and deletion-gate
// streaks of RRsets wanted again end.
func (o *op) remember(d decision, applied []rrset.Change) {
	o.mem.keepRefusals(o.in.inScope, d.refused)
	o.endStreaks(applied)
}

// endStreaks ends the deletion-gate streaks of RRsets wanted again or
// deleted: a later absence starts counting anew.
func (o *op) endStreaks(applied []rrset.Change) {
	if !o.gate.record || o.gate.gate.Len() == 0 {
		return
	}
	var ended []rrset.Key
	for rr := range o.in.desired.Unordered() {
		ended = append(ended, rr.Key())
	}
	for _, c := range applied {
		if c.Op == rrset.OpDelete {
			ended = append(ended, c.Key())
		}
	}
	o.gate.settle(ended)
}
