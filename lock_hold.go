package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/joeig/go-powerdns/v3"

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
// up to the hold after this Reconciler's last write. So a lock is kept at
// most maxLockHold after it was taken: the operation that finds it older
// frees it, and the Reconciler takes that zone's lock again no sooner than
// holdRest later, the longest another writer waits between two tries, so
// that one waiting gets the zone. A process that ends while it holds the
// lock between operations leaves it behind, as one that ends during a
// write does: other writers' creates in the zone are postponed until it is
// DefaultLockTTL old. Close frees the locks held.

// DefaultLockHold is how long a Reconciler keeps the zone lock after an
// operation that took it, for its next operation in the zone that needs it.
const DefaultLockHold = 200 * time.Millisecond

// maxLockHold bounds how long one lock is kept over several operations,
// and so how long another writer waits for a zone this Reconciler writes
// without pause; well under DefaultLockWait.
const maxLockHold = time.Second

// holdRest is how long a Reconciler leaves a zone's lock free after it
// freed one kept for maxLockHold: the longest another writer waits between
// two tries of the lock.
const holdRest = lockRetryLeast + lockRetrySpread

// heldLock is a zone lock kept between operations, in the zone's memory.
type heldLock struct {
	lk lock
	// md is the zone's metadata as read when the lock was taken.
	md    []powerdns.Metadata
	timer *time.Timer
}

// takeHeld takes the lock the Reconciler keeps for the zone, if any: the
// operation goes on with it, or frees it.
func (m *zoneMemory) takeHeld() (*heldLock, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.held
	if h == nil {
		return nil, false
	}
	m.held = nil
	h.timer.Stop()
	return h, true
}

// readHeld reads, under a lock kept from an earlier operation, what
// tryLock reads under a lock it takes: the zone's metadata again where
// ownership is recorded there (claims written since are in it), then the
// zone, never with it.
func (o *op) readHeld(ctx context.Context, h *heldLock) (zonejson.Zone, []powerdns.Metadata, error) {
	md := h.md
	if o.store == OwnershipMetadata {
		var err error
		if md, err = o.srv.metadata(ctx, o.zone); err != nil {
			return zonejson.Zone{}, nil, err
		}
	}
	z, err := o.readZone(ctx)
	if err != nil {
		return zonejson.Zone{}, nil, err
	}
	return z, md, nil
}

// restBeforeLock waits, before the Reconciler takes the zone's lock, for
// the rest after one it kept for maxLockHold.
func (o *op) restBeforeLock(ctx context.Context) error {
	wait := time.Until(o.mem.restUntil)
	if wait <= 0 {
		return nil
	}
	return sleep(ctx, wait)
}

// keepLock keeps lk, held by the operation, for the Reconciler's next
// operation in the zone, and reports whether it did: not when holding is
// off or the Reconciler closed, and not once the lock is maxLockHold old,
// when the zone rests instead. In the zone's turn.
func (o *op) keepLock(lk *lock, md []powerdns.Metadata) bool {
	hold := o.r.cfg.lockHold
	if hold <= 0 || o.r.closed.Load() {
		return false
	}
	if time.Since(lk.taken) >= o.r.cfg.lockHoldMax {
		o.mem.restUntil = time.Now().Add(holdRest)
		return false
	}
	h := &heldLock{lk: *lk, md: md}
	o.mem.mu.Lock()
	defer o.mem.mu.Unlock()
	h.timer = time.AfterFunc(hold, func() { o.r.freeHeld(o.mem, o.zone, h) })
	o.mem.held = h
	return true
}

// freeHeld frees the lock h the Reconciler kept for zone once the hold ran
// out, unless an operation went on with it since. It takes no turn: an
// operation that comes meanwhile takes a lock of its own, and one that
// reads or updates is not held up by the release.
func (r *Reconciler) freeHeld(mem *zoneMemory, zone string, h *heldLock) {
	mem.mu.Lock()
	if mem.held != h {
		mem.mu.Unlock()
		return
	}
	mem.held = nil
	// Counted while still under mu, so that Close, which takes the
	// held locks under it too, waits for this release.
	r.releasing.Add(1)
	mem.mu.Unlock()
	defer r.releasing.Done()
	ctx, cancel := context.WithTimeout(context.Background(), releaseBound)
	defer cancel()
	r.warnLockLeft(zone, r.dropHeld(ctx, zone, h))
}

// dropHeld deletes h's held-lock kind. Its request belongs to no
// operation's Result.
func (r *Reconciler) dropHeld(ctx context.Context, zone string, h *heldLock) error {
	var t tally
	return dropLock(ctx, r.server.session(&t), zone, h.lk.held)
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
	h, ok := mem.takeHeld()
	if !ok {
		return nil
	}
	return r.dropHeld(ctx, zone, h)
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
		release, err := mem.takeTurn(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("close: wait for the operation on %s in progress: %w", zone, err))
			return false
		}
		defer release()
		if err := r.releaseHeld(ctx, mem, zone); err != nil {
			errs = append(errs, fmt.Errorf("close: %s: %w", zone, err))
		}
		return true
	})
	r.releasing.Wait()
	return errors.Join(errs...)
}
