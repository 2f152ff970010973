package backoff

import (
	"sync"
	"time"
)

// Gate tells whether a condition is sustained: observed on at least N
// consecutive checks spanning at least D. One contrary observation resets
// it. A caller keys it by what the condition is about, so one Gate tracks
// many names; it is meant for decisions a single observation must not make,
// such as deleting records whose names vanished from one read of the desired
// state, or concluding that DNS authority for a zone is really lost.
//
// Memory grows only with keys whose condition currently holds: a contrary
// observation drops the key, and Forget and ForgetIdle drop keys no longer
// checked. A Gate is safe for concurrent use.
//
// A Gate lives in memory, so a restart (or a change of leader) would start
// every streak again, and a controller that restarts more often than the
// span would never act. Streak and Restore let it keep a streak where it
// keeps the rest of its state, such as an annotation or a status field of
// the object the condition is about.
type Gate struct {
	checks int
	span   time.Duration
	clock  Clock

	mu      sync.Mutex
	streaks map[string]streak
}

// streak is a run of observations of the condition.
type streak struct {
	first, last time.Time
	count       int
}

// NewGate returns a Gate that opens after checks consecutive observations
// spanning at least span (DefaultSustainChecks and DefaultSustainSpan are
// sensible values). checks below 1 count as 1 and a negative span as 0. Its
// only option is WithClock.
func NewGate(checks int, span time.Duration, opts ...GateOption) *Gate {
	cfg := gateConfig(opts)
	return &Gate{
		checks:  max(checks, 1),
		span:    max(span, 0),
		clock:   cfg.clock,
		streaks: make(map[string]streak),
	}
}

// Observe records one check of key's condition and reports whether the
// condition is now sustained.
func (g *Gate) Observe(key string, holds bool) bool {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if !holds {
		delete(g.streaks, key)
		return false
	}
	s, ok := g.streaks[key]
	if !ok {
		s = streak{first: now}
	}
	s.count++
	s.last = now
	g.streaks[key] = s
	return g.sustained(s, now)
}

// Sustained reports whether key's condition is sustained, without recording
// a check.
func (g *Gate) Sustained(key string) bool {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.streaks[key]
	return ok && g.sustained(s, now)
}

// Streak returns key's running streak: when its first check was and how
// many consecutive checks observed the condition. ok is false when key has
// none (its condition does not hold, or was never observed). Store since
// and checks after each Observe that leaves a streak, and restore them with
// Restore after a restart; remove them from the store when ok is false.
func (g *Gate) Streak(key string) (since time.Time, checks int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, ok := g.streaks[key]
	if !ok {
		return time.Time{}, 0, false
	}
	return s.first, s.count, true
}

// Restore puts a streak of key back, as Streak returned it before a
// restart, replacing whatever the Gate holds for key: the next Observe
// continues it, and Sustained answers from it at once. The key counts as
// checked now for ForgetIdle. A stored streak is input from outside (it may
// have been edited, or written by a clock ahead of this one), so Restore
// never panics and never lets the Gate open sooner than the stored streak
// could:
//
//   - checks below 1 is no streak: Restore drops key, as Forget does;
//   - a zero since, or one after now, is taken as now: the span starts
//     again, and the checks count.
func (g *Gate) Restore(key string, since time.Time, checks int) {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if checks < 1 {
		delete(g.streaks, key)
		return
	}
	if since.IsZero() || since.After(now) {
		since = now
	}
	g.streaks[key] = streak{first: since, last: now, count: checks}
}

func (g *Gate) sustained(s streak, now time.Time) bool {
	return s.count >= g.checks && now.Sub(s.first) >= g.span
}

// Forget drops key, as a contrary observation would.
func (g *Gate) Forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.streaks, key)
}

// ForgetIdle drops every key not observed for idle or longer and returns how
// many it dropped: a key nobody checks any more (its object is gone) then
// stops holding memory.
func (g *Gate) ForgetIdle(idle time.Duration) int {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for key, s := range g.streaks {
		if now.Sub(s.last) >= idle {
			delete(g.streaks, key)
			n++
		}
	}
	return n
}

// Len returns how many keys are in a streak.
func (g *Gate) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.streaks)
}
