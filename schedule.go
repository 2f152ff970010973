package reconcile

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pdnskit/reconcile/backoff"
)

// A zone's schedule in a Reconciler: when each of its operations on the
// zone goes, and how long the zone lock stays with the Reconciler between
// them. It owns
//
//   - the turn: one operation of the zone writes at a time;
//   - the Applies waiting for the turn, which the one that takes it may
//     carry out with its own (group commit, batch.go);
//   - the zone lock kept since the last operation that took it
//     (lock_hold.go), and the moment the Reconciler yields the zone to
//     another writer after it freed one kept as long as it may be.
//
// Its timing runs on the Reconciler's clock (WithClock), so that a test
// steps a fake clock through a hold. It is apart from the zone's
// memory (memory.go), which Forget and DeleteZone reset: an operation in
// progress keeps its turn through both.
type schedule struct {
	clock  backoff.Clock
	policy holdPolicy
	turn   chan struct{}

	// mu guards the rest: Applies queue, and a kept lock's hold runs out,
	// outside the turn.
	mu sync.Mutex
	// waiting are the Applies waiting for the turn, in the order they
	// came.
	waiting []*waiter
	// held is the zone lock kept since the last operation that took it,
	// or nil.
	held *heldLock
	// yieldUntil is until when the Reconciler lets another writer waiting
	// for the zone take its lock first (holdPolicy).
	yieldUntil time.Time
	// freeing counts the kept locks being freed as their hold ran out.
	freeing sync.WaitGroup

	// waited adds up the time operations spent waiting on the schedule,
	// for a run's time budget (see the benchmarks).
	waited scheduleWaits
}

// scheduleWaits is where the zone's operations spent their time waiting
// on the schedule, for the turn (an Apply that waits with others until a
// batch takes it), and how many batches carried how many Applies.
type scheduleWaits struct {
	turn             atomic.Int64 // nanoseconds
	batches, members atomic.Int64
}

// since adds the real time since start to d.
func since(d *atomic.Int64, start time.Time) { d.Add(int64(time.Since(start))) }

func newSchedule(clock backoff.Clock, policy holdPolicy) *schedule {
	return &schedule{clock: clock, policy: policy, turn: make(chan struct{}, 1)}
}

// tryTurn takes the zone's turn if no operation holds it.
func (s *schedule) tryTurn() (release func(), ok bool) {
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, true
	default:
		return nil, false
	}
}

// takeTurn waits for the zone's turn in this Reconciler: one operation of a
// zone at a time. Waiting ends with ctx, so an operation never outlives its
// context, even behind another one stuck on a server that does not answer.
func (s *schedule) takeTurn(ctx context.Context) (release func(), err error) {
	defer since(&s.waited.turn, time.Now())
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// enqueue adds w to the Applies waiting for the zone's turn.
func (s *schedule) enqueue(w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting = append(s.waiting, w)
}

// dequeue drops w from the waiting Applies, if it is still there.
func (s *schedule) dequeue(w *waiter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.waiting, w)
	if i < 0 {
		return false
	}
	s.waiting = slices.Delete(s.waiting, i, i+1)
	return true
}

// takeBatch takes out of the waiting Applies those the one that took the
// turn, lead, carries out: in the order they came, from the first, each
// with a context still live, up to maxBatch and their RRsets within
// maxBytes, and each at a name unrelated to that of every live Apply that
// came before it, taken or not, so that no Apply overtakes an earlier one
// at a related name. waiting is false when lead is no longer waiting (a
// batch carried it); lead is a member unless an earlier Apply is at a
// related name.
func (s *schedule) takeBatch(lead *waiter, maxBytes int) (members []*waiter, waiting bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.waiting, lead) {
		return nil, false
	}
	var earlier []string // the names of the live Applies considered
	size := 0
	s.waiting = slices.DeleteFunc(s.waiting, func(w *waiter) bool {
		if w != lead && w.ctx.Err() != nil {
			return false // it drops itself
		}
		name := w.o.scope.name
		take := len(members) < maxBatch && (len(members) == 0 || size+w.o.size() <= maxBytes) &&
			!slices.ContainsFunc(earlier, func(n string) bool { return related(n, name) })
		earlier = append(earlier, name)
		if take {
			members, size = append(members, w), size+w.o.size()
			since(&s.waited.turn, w.queued)
		}
		return take
	})
	s.waited.batches.Add(1)
	s.waited.members.Add(int64(len(members)))
	return members, true
}

// queued reports whether Applies wait for the zone's turn.
func (s *schedule) queued() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiting) > 0
}

// holdPolicy says how long the zone lock stays with the Reconciler after
// an operation that took it (lock_hold.go).
type holdPolicy struct {
	// hold is how long a lock is kept after each operation (WithLockHold);
	// 0 frees it at once.
	hold time.Duration
	// most is how long one lock is kept over several operations before
	// the Reconciler looks whether another writer waits for the zone.
	most time.Duration
	// yield is how long, after it freed a lock for a writer that may be
	// waiting, the Reconciler lets such a writer take the zone first.
	yield time.Duration
}

// waiters is what an operation saw, under a lock kept as long as it may
// be, of other writers waiting for the zone.
type waiters int8

const (
	waitersUnseen waiters = iota // not looked at
	waitersNone
	waitersSome
)

// holdDecision is what becomes of a lock when the operation holding it
// ends.
type holdDecision struct {
	// keep is true when the lock is kept, until until; capped is set when
	// the lock will then have been kept as long as it may be, without a
	// look at whether another writer waits for the zone.
	keep   bool
	until  time.Time
	capped bool
	// renew is true when the lock is kept as one taken now: it was kept
	// as long as it may be, and no other writer was waiting.
	renew bool
	// yieldUntil, when set, is until when the Reconciler lets a writer
	// waiting for the zone take it first (lock.go, tryLock).
	yieldUntil time.Time
}

// afterOperation decides what becomes of a lock taken at taken when the
// operation holding it ends at now. A lock is kept for the hold, and for
// as long as it may be (most) before the Reconciler looks whether another
// writer waits for the zone: the operation that goes on with it then
// reads the zone's metadata too (seen). Nobody waiting renews the lock;
// someone waiting has it freed, and the zone yielded to that writer for a
// moment. An operation that ran past most on a lock it took younger saw
// nothing: the lock is kept for the next operation to look.
func (p holdPolicy) afterOperation(taken, now time.Time, seen waiters) holdDecision {
	old := now.Sub(taken) >= p.most
	switch {
	case p.hold <= 0:
		return holdDecision{}
	case old && seen == waitersNone:
		return holdDecision{keep: true, until: now.Add(p.hold), capped: p.hold >= p.most, renew: true}
	case old && seen == waitersSome:
		return holdDecision{yieldUntil: now.Add(p.yield)}
	case old:
		return holdDecision{keep: true, until: now.Add(p.hold), capped: true}
	}
	until, end := now.Add(p.hold), taken.Add(p.most)
	if !until.Before(end) {
		return holdDecision{keep: true, until: end, capped: true}
	}
	return holdDecision{keep: true, until: until}
}

// pastCap reports whether a lock taken at taken has been kept as long as
// it may be, so that an operation going on with it looks whether another
// writer waits.
func (s *schedule) pastCap(taken time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock.Now().Sub(taken) >= s.policy.most
}

// keep keeps h for the Reconciler's next operation in the zone, or frees
// it by its policy (afterOperation, with what the operation saw of waiting
// writers in h.lk.waiters), and reports whether it kept it. A lock kept runs out at its hold's end, when the
// schedule gives it up and calls free with it, outside the turn, unless an
// operation took it (takeHeld) first. In the zone's turn.
func (s *schedule) keep(h *heldLock, free func(*heldLock)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	d := s.policy.afterOperation(h.lk.taken, now, h.lk.waiters)
	if !d.yieldUntil.IsZero() {
		s.yieldUntil = d.yieldUntil
	}
	if !d.keep {
		return false
	}
	if d.renew {
		h.lk.taken = now
	}
	// What was seen of waiting writers holds for this decision only.
	h.lk.waiters = waitersUnseen
	stop, timer := make(chan struct{}), s.clock.NewTimer(d.until.Sub(now))
	h.capped, h.stop, h.timer = d.capped, stop, timer
	go func() {
		select {
		case <-timer.C():
			if s.ranOut(h, stop) {
				defer s.freeing.Done()
				free(h)
			}
		case <-stop:
		}
	}()
	s.held = h
	return true
}

// ranOut gives up h once its hold, the one stop ends, ran out, unless an
// operation took it since, and reports whether it did. Nobody looked
// whether a writer waits for a lock kept as long as it may be: the
// Reconciler yields the zone to one for a moment. The caller frees it, then calls
// freeing.Done.
func (s *schedule) ranOut(h *heldLock, stop chan struct{}) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != h || h.stop != stop {
		return false
	}
	s.held = nil
	if h.capped {
		s.yieldUntil = s.clock.Now().Add(s.policy.yield)
	}
	s.freeing.Add(1)
	return true
}

// waitFreed waits for the kept locks being freed as their hold ran out.
func (s *schedule) waitFreed() { s.freeing.Wait() }

// yielding reports whether the Reconciler lets a writer waiting for the
// zone take its lock first: for a moment after it freed a lock kept as
// long as it may be.
func (s *schedule) yielding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock.Now().Before(s.yieldUntil)
}

// takeHeld takes the lock the Reconciler keeps for the zone, if any: the
// operation goes on with it, or frees it.
func (s *schedule) takeHeld() (*heldLock, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held
	if h == nil {
		return nil, false
	}
	s.held = nil
	h.timer.Stop()
	close(h.stop)
	return h, true
}
