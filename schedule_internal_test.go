package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff/backofftest"
)

var t0 = time.Unix(1_700_000_000, 0)

func TestHoldPolicyAfterOperation(t *testing.T) {
	p := holdPolicy{hold: 200 * time.Millisecond, most: time.Second, yield: 250 * time.Millisecond}
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name       string
		policy     holdPolicy
		taken, now time.Time
		seen       waiters
		want       holdDecision
	}{
		{name: "hold off", policy: holdPolicy{most: time.Second, yield: p.yield}, taken: ms(0), now: ms(10)},
		{name: "young lock", policy: p, taken: ms(0), now: ms(10), want: holdDecision{keep: true, until: ms(210)}},
		{name: "hold reaches the cap", policy: p, taken: ms(0), now: ms(800),
			want: holdDecision{keep: true, until: ms(1000), capped: true}},
		{name: "hold ends just before the cap", policy: p, taken: ms(0), now: ms(799), want: holdDecision{keep: true, until: ms(999)}},
		{name: "past the cap, not looked at: kept for the next to look", policy: p, taken: ms(0), now: ms(1000),
			want: holdDecision{keep: true, until: ms(1200), capped: true}},
		{name: "past the cap, another waits", policy: p, taken: ms(0), now: ms(5000), seen: waitersSome,
			want: holdDecision{yieldUntil: ms(5250)}},
		{name: "past the cap, nobody waits: renewed", policy: p, taken: ms(0), now: ms(1000), seen: waitersNone,
			want: holdDecision{keep: true, until: ms(1200), renew: true}},
		{name: "renewed, a hold as long as the cap", policy: holdPolicy{hold: time.Second, most: time.Second}, taken: ms(0), now: ms(1500),
			seen: waitersNone, want: holdDecision{keep: true, until: ms(2500), capped: true, renew: true}},
		{name: "nobody waits, before the cap: as any", policy: p, taken: ms(0), now: ms(10), seen: waitersNone,
			want: holdDecision{keep: true, until: ms(210)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.policy.afterOperation(tc.taken, tc.now, tc.seen)
			assert.Equal(t, tc.want.keep, got.keep, "keep")
			assert.Equal(t, tc.want.capped, got.capped, "capped")
			assert.Equal(t, tc.want.renew, got.renew, "renew")
			assert.True(t, tc.want.until.Equal(got.until), "until %v, want %v", got.until, tc.want.until)
			assert.True(t, tc.want.yieldUntil.Equal(got.yieldUntil), "yield until %v, want %v", got.yieldUntil, tc.want.yieldUntil)
		})
	}
}

// keptLock is a lock taken at taken, as an operation hands it to keep.
func keptLock(taken time.Time) *heldLock {
	return &heldLock{lk: lock{held: "X-PDNSKIT-L-TEST-1", taken: taken}}
}

// expiries collects the locks whose hold ran out, as the schedule hands
// them over to be freed.
type expiries chan *heldLock

func (e expiries) expire(h *heldLock) { e <- h }

// next returns the next lock whose hold ran out; the clock fires timers
// synchronously, and the schedule's goroutine hands the lock over.
func (e expiries) next(t *testing.T) *heldLock {
	t.Helper()
	select {
	case h := <-e:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("no hold ran out")
		return nil
	}
}

func (e expiries) none(t *testing.T) {
	t.Helper()
	select {
	case h := <-e:
		t.Fatalf("a hold ran out: %v", h.lk.held)
	default:
	}
}

// TestScheduleHoldRunsOut: a kept lock runs out when the clock passes its
// hold, not before; the schedule then gives it up once, and yields the
// zone to waiting writers only when the lock was kept as long as it may
// be.
func TestScheduleHoldRunsOut(t *testing.T) {
	clock := backofftest.NewClock(t0)
	s := newSchedule(clock, holdPolicy{hold: 200 * time.Millisecond, most: time.Second, yield: 250 * time.Millisecond})
	exp := make(expiries, 4)

	h := keptLock(t0)
	require.True(t, s.keep(h, exp.expire))
	clock.Advance(199 * time.Millisecond)
	exp.none(t)
	clock.Advance(time.Millisecond)
	require.Same(t, h, exp.next(t))
	_, ok := s.takeHeld()
	assert.False(t, ok, "the schedule gave it up")
	s.waitFreed()
	assert.False(t, s.yielding(), "a hold that ran out early yields nothing")

	// Kept again and again, a lock runs out at its cap, and the zone is
	// yielded to waiting writers for a moment.
	taken := clock.Now()
	h = keptLock(taken)
	require.True(t, s.keep(h, exp.expire))
	for range 4 {
		clock.Advance(150 * time.Millisecond)
		got, ok := s.takeHeld()
		require.True(t, ok)
		require.Same(t, h, got)
		require.True(t, s.keep(h, exp.expire))
	}
	// 600 ms after it was taken: the hold would end at 800 ms.
	clock.Advance(199 * time.Millisecond)
	exp.none(t)
	got, ok := s.takeHeld()
	require.True(t, ok)
	clock.Advance(time.Millisecond)
	assert.False(t, s.pastCap(got.lk.taken), "800 ms old")
	require.True(t, s.keep(got, exp.expire), "800 ms old: kept to its cap, 1 s")
	clock.Advance(199 * time.Millisecond)
	exp.none(t)
	clock.Advance(time.Millisecond)
	require.Same(t, h, exp.next(t))
	assert.True(t, s.yielding(), "the zone is yielded from when the lock ran out")
	clock.Advance(249 * time.Millisecond)
	assert.True(t, s.yielding())
	clock.Advance(time.Millisecond)
	assert.False(t, s.yielding())
}

// TestScheduleRenewsALockNobodyWaitsFor: a lock kept to its cap, looked at
// under it with nobody waiting, is kept as one taken anew; with someone
// waiting it is freed and the zone yielded; not looked at, it is kept for
// the next operation to look.
func TestScheduleRenewsALockNobodyWaitsFor(t *testing.T) {
	clock := backofftest.NewClock(t0)
	s := newSchedule(clock, holdPolicy{hold: 200 * time.Millisecond, most: time.Second, yield: 250 * time.Millisecond})
	exp := make(expiries, 4)
	h := keptLock(t0)
	clock.Advance(time.Second)
	require.True(t, s.pastCap(h.lk.taken))
	h.lk.waiters = waitersNone
	require.True(t, s.keep(h, exp.expire), "renewed")
	assert.Equal(t, clock.Now(), h.lk.taken, "as one taken now")
	assert.Equal(t, waitersUnseen, h.lk.waiters, "what was seen holds for one decision")
	assert.False(t, s.pastCap(h.lk.taken))
	assert.False(t, s.yielding())

	got, ok := s.takeHeld()
	require.True(t, ok)
	clock.Advance(time.Second)
	require.True(t, s.keep(got, exp.expire), "past the cap, unseen: kept")
	assert.True(t, s.pastCap(got.lk.taken), "for the next operation to look")
	got, ok = s.takeHeld()
	require.True(t, ok)
	got.lk.waiters = waitersSome
	assert.False(t, s.keep(got, exp.expire), "someone waits: freed")
	assert.True(t, s.yielding())
	exp.none(t)
	assert.Zero(t, clock.Pending())
}

// TestScheduleTakeHeldStopsTheHold: an operation that takes the kept lock
// stops its hold: the clock passing it frees nothing.
func TestScheduleTakeHeldStopsTheHold(t *testing.T) {
	clock := backofftest.NewClock(t0)
	s := newSchedule(clock, holdPolicy{hold: 200 * time.Millisecond, most: time.Second, yield: 250 * time.Millisecond})
	exp := make(expiries, 1)
	h := keptLock(t0)
	require.True(t, s.keep(h, exp.expire))
	got, ok := s.takeHeld()
	require.True(t, ok)
	require.Same(t, h, got)
	_, ok = s.takeHeld()
	assert.False(t, ok, "taken once")
	clock.Advance(time.Hour)
	exp.none(t)
	assert.Zero(t, clock.Pending(), "its timer stopped")
}

// TestScheduleKeepsNothing: with the hold off, and for a lock kept as long
// as it may be that another writer waits for, keep keeps nothing; only
// the latter yields the zone.
func TestScheduleKeepsNothing(t *testing.T) {
	clock := backofftest.NewClock(t0)
	off := newSchedule(clock, holdPolicy{most: time.Second, yield: 250 * time.Millisecond})
	assert.False(t, off.keep(keptLock(t0), expiries(nil).expire))
	_, ok := off.takeHeld()
	assert.False(t, ok)
	assert.False(t, off.yielding())

	s := newSchedule(clock, holdPolicy{hold: 200 * time.Millisecond, most: time.Second, yield: 250 * time.Millisecond})
	clock.Advance(time.Second)
	waited := keptLock(t0)
	waited.lk.waiters = waitersSome
	assert.False(t, s.keep(waited, expiries(nil).expire))
	assert.True(t, s.yielding())
	assert.Zero(t, clock.Pending())
}

// TestScheduleTurn: one operation of a zone at a time; a try fails while
// the turn is taken, a wait ends with its context, and a released turn is
// taken again.
func TestScheduleTurn(t *testing.T) {
	s := newSchedule(backofftest.NewClock(t0), holdPolicy{})
	release, ok := s.tryTurn()
	require.True(t, ok)
	_, ok = s.tryTurn()
	assert.False(t, ok, "the turn is taken")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.takeTurn(ctx)
	assert.ErrorIs(t, err, context.Canceled, "a wait ends with its context")

	release()
	again, err := s.takeTurn(t.Context())
	require.NoError(t, err)
	again()

	assert.False(t, s.queued())
	w := &waiter{ctx: t.Context()}
	s.enqueue(w)
	assert.True(t, s.queued())
	assert.True(t, s.dequeue(w))
	assert.False(t, s.dequeue(w), "dropped once")
	assert.False(t, s.queued())
}
