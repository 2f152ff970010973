package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/internal/zonejson"
)

// Holding the zone lock between operations.
//
// A controller that reconciles one object at a time creates one RRset per
// call, and the zone lock is three of each create's five requests: take,
// check, free. So an operation that took the lock keeps it for
// WithLockHold once it is done, and the Reconciler's next operation in the
// zone that needs the lock within that time goes on with it: it reads the
// zone and writes as under a lock it took itself, then keeps it again. The
// lock is held all along, so every other writer's try sees it, and each
// operation still decides on a read made under the lock after the one
// before it wrote: what the lock guarantees (lock.go) holds for each of
// them as it does for one. A run of creates pays the lock once.
//
// What it costs other writers is the wait: they find the zone locked for
// up to the hold after this Reconciler's last write. A writer that waits
// for the lock leaves a trace, a waiting kind in the zone's metadata
// (lock.go), and a lock is kept maxLockHold before the Reconciler looks
// for one: the operation that goes on with a lock kept that long reads the
// zone's metadata too, and keeps the lock as one taken anew when nobody
// waits, or frees it when done. After freeing a lock kept that long, the
// Reconciler lets a writer waiting for the zone take it first, for
// holdYield (the longest such a writer waits between two tries): its own
// next try gives way when it finds a waiting kind. Nobody waiting, nothing
// is given up: a Reconciler that writes a zone alone keeps its lock for
// as long as it writes. A process that ends while it holds the lock
// between operations leaves it behind, as one that ends during a write
// does: other writers' creates in the zone are postponed until it is
// DefaultLockTTL old. Close frees the locks held.

// DefaultLockHold is how long a Reconciler keeps the zone lock after an
// operation that took it, for its next operation in the zone that needs it.
const DefaultLockHold = 200 * time.Millisecond

// maxLockHold is how long one lock is kept over several operations before
// the Reconciler looks whether another writer waits for the zone, and so
// about how long such a writer waits for a zone this Reconciler writes
// without pause; well under DefaultLockWait.
const maxLockHold = time.Second

// holdYield is how long a Reconciler lets a writer waiting for a zone take
// its lock first, after it freed one it kept maxLockHold: the longest
// another writer waits between two tries of the lock.
const holdYield = lockRetryLeast + lockRetrySpread

// holdPolicy is the configured hold of the zone lock between operations.
func (c *config) holdPolicy() holdPolicy {
	return holdPolicy{hold: c.lockHold, most: c.lockHoldMax, yield: holdYield}
}

// heldLock is a zone lock kept between operations, in the zone's
// schedule.
type heldLock struct {
	lk lock
	// md is the zone's metadata as read when the lock was taken.
	md []powerdns.Metadata
	// capped is set when the hold ends where the lock has been kept as
	// long as it may be; stop is closed when an operation takes the lock
	// before the hold ends.
	capped bool
	stop   chan struct{}
	timer  backoff.Timer
}

// readHeld reads, under a lock kept from an earlier operation, what
// tryLock reads under a lock it takes: the zone's metadata again where
// ownership is recorded there (claims written since are in it), or where
// the lock has been kept as long as it may be (to look whether another
// writer waits for the zone), then the zone, never with it.
func (o *op) readHeld(ctx context.Context, h *heldLock) (zonejson.Zone, []powerdns.Metadata, error) {
	md := h.md
	pastCap := o.mem.sched.pastCap(h.lk.taken)
	if o.store == OwnershipMetadata || pastCap {
		var err error
		if md, err = o.srv.metadata(ctx, o.zone); err != nil {
			return zonejson.Zone{}, nil, err
		}
	}
	if pastCap {
		h.lk.waiters = waitersNone
		if view := viewLock(md, o.r.ownKind, o.r.cfg.clock.Now(), o.r.cfg.lockTTL); len(view.waiting) > 0 {
			h.lk.waiters = waitersSome
		}
	}
	z, err := o.readZone(ctx)
	if err != nil {
		return zonejson.Zone{}, nil, err
	}
	return z, md, nil
}

// keepLock keeps lk, held by the operation, for the Reconciler's next
// operation in the zone, and reports whether it did: not when holding is
// off or the Reconciler closed, and not once the lock has been kept as
// long as it may unless nobody waits for the zone. In the zone's turn.
func (o *op) keepLock(lk *lock, md []powerdns.Metadata) bool {
	if o.r.closed.Load() {
		return false
	}
	zone := o.zone
	return o.mem.sched.keep(&heldLock{lk: *lk, md: md}, func(h *heldLock) { o.r.holdRanOut(zone, h) })
}

// holdRanOut frees the lock h the Reconciler kept for zone once its hold
// ran out. It takes no turn: an operation that comes meanwhile takes a lock
// of its own, and one that reads or updates is not held up by the release.
func (r *Reconciler) holdRanOut(zone string, h *heldLock) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseBound)
	defer cancel()
	r.warnLockLeft(zone, r.freeLockKind(ctx, zone, h.lk.held))
}

// freeLockKind frees a zone lock outside any operation: one kept whose
// hold ran out, one Close or Forget frees, one an operation whose caller
// gave up leaves to free. Its requests belong to no operation's Result: an
// Observer is told of them as an OperationFreeLock of their own.
func (r *Reconciler) freeLockKind(ctx context.Context, zone, kind string) (err error) {
	res := Result{Zone: zone}
	defer r.observed(OperationFreeLock, zone, time.Now(), &res, &err)
	var t tally
	err = dropLock(ctx, r.server.session(&t), zone, kind)
	res.Requests = int(t.requests.Load())
	return err
}

// warnLockLeft logs err, a kept lock that could not be freed outside any
// operation, which has no Result to report it in.
func (r *Reconciler) warnLockLeft(zone string, err error) {
	if err != nil {
		r.cfg.logger.Warn("zone lock kept after a write left held; other writers ignore it after the lock TTL",
			"zone", zone, "error", err)
	}
}

// releaseHeld frees the lock the Reconciler keeps for the zone, if any.
func (r *Reconciler) releaseHeld(ctx context.Context, mem *zoneMemory, zone string) error {
	h, ok := mem.sched.takeHeld()
	if !ok {
		return nil
	}
	return r.freeLockKind(ctx, zone, h.lk.held)
}

// Close frees the zone locks the Reconciler keeps between operations
// (WithLockHold), waiting for each zone's operation in progress and for
// the locks being freed as their hold ran out, and makes
// every later operation free its lock when done. Call it when the
// Reconciler is no longer used, such as when a controller's manager stops:
// a lock left by a process that ended keeps other writers from creating in
// its zone until it is DefaultLockTTL old. It returns the first error of
// each zone whose lock it could not free, or ctx's.
func (r *Reconciler) Close(ctx context.Context) error {
	r.closed.Store(true)
	var errs []error
	r.zones.Range(func(key, value any) bool {
		mem, zone := value.(*zoneMemory), key.(string)
		release, err := mem.sched.takeTurn(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("close: wait for the operation on %s in progress: %w", zone, err))
			return false
		}
		defer release()
		if err := r.releaseHeld(ctx, mem, zone); err != nil {
			errs = append(errs, fmt.Errorf("close: %s: %w", zone, err))
		}
		mem.sched.waitFreed()
		return true
	})
	return errors.Join(errs...)
}
