// Package backofftest provides a fake Clock for tests of code that uses
// package backoff. Time moves only when the test says so, and no test
// sleeps.
package backofftest

import (
	"sync"
	"time"

	"github.com/pdnskit/reconcile/backoff"
)

// Clock is a fake backoff.Clock. A manual clock (NewClock) moves only with
// Advance, firing the timers it passes. An automatic clock (NewAutoClock)
// moves by each timer's duration as the timer is made and fires it at once,
// so that code waiting on it (backoff.Retry) runs straight through while
// Waits records how long it would have waited. It is safe for concurrent
// use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	auto   bool
	timers []*timer
	waits  []time.Duration
}

var _ backoff.Clock = (*Clock)(nil)

// NewClock returns a manual clock set to start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// NewAutoClock returns an automatic clock set to start.
func NewAutoClock(start time.Time) *Clock { return &Clock{now: start, auto: true} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires once the clock reaches Now()+d.
func (c *Clock) NewTimer(d time.Duration) backoff.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	t := &timer{clock: c, c: make(chan time.Time, 1), deadline: c.now.Add(d)}
	c.timers = append(c.timers, t)
	if c.auto && d > 0 {
		c.now = t.deadline
	}
	c.fireLocked()
	return t
}

// Advance moves a manual or automatic clock forward by d, firing the timers
// it passes.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	c.fireLocked()
}

// Waits returns the duration of every timer made so far, in order.
func (c *Clock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// Pending returns how many timers have neither fired nor been stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func (c *Clock) fireLocked() {
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.deadline.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	clear(c.timers[len(kept):])
	c.timers = kept
}

type timer struct {
	clock    *Clock
	c        chan time.Time
	deadline time.Time
}

func (t *timer) C() <-chan time.Time { return t.c }

func (t *timer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	for i, other := range t.clock.timers {
		if other == t {
			t.clock.timers = append(t.clock.timers[:i], t.clock.timers[i+1:]...)
			return true
		}
	}
	return false
}
