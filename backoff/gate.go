package backoff

import (
	"errors"
	"sync"
	"time"
)

// Gate tells whether a condition is sustained: observed on checks spaced
// over a span, with no contrary observation in between. A caller keys it by
// what the condition is about, so one Gate tracks many names; it is meant
// for decisions a single observation must not make, such as deleting
// records whose names vanished from one read of the desired state, or
// concluding that DNS authority for a zone is really lost.
//
// A Gate of N checks over a span D counts a check only when it comes at
// least D/(N-1) after the last counted one; an earlier check neither
// counts nor changes the streak (it may still find the Gate open). So a
// burst of re-checks, such as a controller's object re-enqueued by its own
// status write, counts once, and a streak changes at most N times: the
// Gate opens on the Nth counted check, D after the first. One contrary
// observation ends the streak. Next tells when the next check counts, for
// a controller's RequeueAfter.
//
// Memory grows only with keys whose condition currently holds: a contrary
// observation drops the key, and Forget and ForgetIdle drop keys no longer
// checked. A Gate is safe for concurrent use.
//
// A Gate lives in memory, so a restart (or a change of leader) would start
// every streak again, and a controller that restarts more often than the
// span would never act. ObserveStored lets it keep a streak where it keeps
// the rest of its state, such as an annotation or a status field of the
// object the condition is about, in the one-line text form of Streak: it
// takes the stored text and returns the text to store. Current and Resume
// are the same in two steps.
//
// A stored streak is believed only while it is recent: one whose next
// check is past due by more than the Gate's stale bound (WithStaleAfter,
// DefaultStaleAfter by default) starts again, so that a streak restored
// from a backup, re-applied from a dump or edited by hand cannot open the
// Gate on one check.
type Gate struct {
	checks int
	span   time.Duration
	// spacing is the least time between two counted checks.
	spacing time.Duration
	// staleAfter is how far past due a stored streak's next check may be.
	staleAfter time.Duration
	clock      Clock

	mu      sync.Mutex
	streaks map[string]held
}

// held is a key's streak and when the key was last checked, counted or
// not, which ForgetIdle goes by.
type held struct {
	streak Streak
	seen   time.Time
}

// NewGate returns a Gate that opens after checks observations spanning at
// least span. Only observations at least span/(checks-1) apart count (see
// Gate). DefaultSustainChecks and DefaultSustainSpan are sensible values;
// checks below 1 count as 1 and a negative span as 0. Its options are
// WithClock and WithStaleAfter.
func NewGate(checks int, span time.Duration, opts ...GateOption) *Gate {
	cfg := gateConfig(opts)
	g := &Gate{
		checks:     max(checks, 1),
		span:       max(span, 0),
		staleAfter: cfg.staleAfter,
		clock:      cfg.clock,
		streaks:    make(map[string]held),
	}
	if g.checks > 1 {
		g.spacing = g.span / time.Duration(g.checks-1)
	}
	return g
}

// Observe records one check of key's condition and reports whether the
// condition is now sustained. A check that holds starts a streak, or
// counts in the running one when it comes late enough after the last
// counted check (see Gate); a check that does not hold ends the streak.
func (g *Gate) Observe(key string, holds bool) bool {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.observe(key, holds, now)
}

// observe is Observe with the lock held.
func (g *Gate) observe(key string, holds bool, now time.Time) bool {
	if !holds {
		delete(g.streaks, key)
		return false
	}
	h, ok := g.streaks[key]
	switch {
	case !ok:
		h.streak = Streak{Checks: 1, Since: now, Last: now}
	case g.counts(h.streak, now):
		h.streak.Checks++
		h.streak.Last = now
	}
	h.seen = now
	g.streaks[key] = h
	return g.sustained(h.streak, now)
}

// counts reports whether a check at now counts in s.
func (g *Gate) counts(s Streak, now time.Time) bool {
	return s.Checks < g.checks && !now.Before(s.Last.Add(g.spacing))
}

func (g *Gate) sustained(s Streak, now time.Time) bool {
	return s.Checks >= g.checks && now.Sub(s.Since) >= g.span
}

// Sustained reports whether key's condition is sustained, without recording
// a check.
func (g *Gate) Sustained(key string) bool {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.streaks[key]
	return ok && g.sustained(h.streak, now)
}

// Next returns when a check of key next counts, for a controller's
// RequeueAfter. That is the time of the next counted check, or, for the
// check that completes the streak and once it is complete, the time the
// Gate opens. A time not after now means a check now counts (or finds the
// Gate open). ok is false when key has no streak, when any check that
// holds counts. A controller requeues at Next, not sooner: an earlier
// check changes nothing. Next is a time on the Gate's clock (WithClock);
// NextIn gives it as a duration, for a controller's RequeueAfter.
func (g *Gate) Next(key string) (at time.Time, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.streaks[key]
	if !ok {
		return time.Time{}, false
	}
	return g.next(h.streak), true
}

// NextIn returns how long from now until a check of key next counts: Next
// as a duration on the Gate's own clock, 0 when a check now counts or
// finds the Gate open. It is a controller's RequeueAfter, with no clock of
// its own to keep beside the Gate's. ok is false when key has no streak.
func (g *Gate) NextIn(key string) (wait time.Duration, ok bool) {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.streaks[key]
	if !ok {
		return 0, false
	}
	return max(g.next(h.streak).Sub(now), 0), true
}

// next returns when a check next counts in s, or the Gate opens.
func (g *Gate) next(s Streak) time.Time {
	open := s.Since.Add(g.span)
	if s.Checks >= g.checks {
		return open
	}
	next := s.Last.Add(g.spacing)
	if s.Checks == g.checks-1 && next.Before(open) {
		next = open
	}
	return next
}

// Current returns key's streak; ok is false when key has none (its
// condition does not hold, or was never observed). Store the streak's text
// form after each Observe that leaves one (it changes only when a check
// counts), put it back with Resume after a restart, and remove it from the
// store when ok is false; ObserveStored does all three in one call.
func (g *Gate) Current(key string) (s Streak, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := g.streaks[key]
	return h.streak, ok
}

// Streak returns key's streak as when its first counted check was and how
// many checks counted: Current, in two values. ok is false when key has
// none. Restore puts it back.
func (g *Gate) Streak(key string) (since time.Time, checks int, ok bool) {
	s, ok := g.Current(key)
	return s.Since, s.Checks, ok
}

// Resume puts a streak of key back, as Current returned it before a
// restart. It replaces whatever the Gate holds for key: the next Observe
// continues it, and Sustained and Next answer from it at once. The key
// counts as checked now for ForgetIdle. A stored streak is input from
// outside (it may have been edited, restored from a backup, or written by
// a clock ahead of this one), so Resume never panics and never lets the
// Gate open sooner than the stored streak could:
//
//   - fewer than 1 check is no streak: Resume drops key, as Forget does;
//   - a zero Since, or one after now, is taken as now: the span starts
//     again, and the checks count;
//   - a zero Last, or one before Since, is taken as the earliest time the
//     last counted check can have been (Since plus the spacing of the
//     checks after the first); a Last after now as now;
//   - a stale streak, whose next check (Next, from the values so read) is
//     past due by more than the Gate's stale bound (WithStaleAfter), is no
//     streak: Resume drops key, and the next check that holds starts a
//     streak again. A complete streak is stale once the Gate opened more
//     than the bound ago, since its stored form records no check after the
//     one that completed it.
//
// Current tells whether the streak was taken up (ok is false when it was
// not); ObserveStored reports why.
func (g *Gate) Resume(key string, s Streak) {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	// A stale streak is dropped; Current tells, ObserveStored reports why.
	_ = g.resume(key, s, now)
}

// ErrStaleStreak is what ObserveStored reports in Observation.Discarded for
// a stored streak whose next check is past due by more than the Gate's
// stale bound (WithStaleAfter): a sustained condition is observed on
// consecutive checks, and the checks that would have made this streak one
// did not come.
var ErrStaleStreak = errors.New("backoff: stored streak is stale: its next check is past due by more than the gate's stale bound")

// resume is Resume with the lock held; it returns ErrStaleStreak when it
// dropped a stale streak.
func (g *Gate) resume(key string, s Streak, now time.Time) error {
	if s.Checks < 1 {
		delete(g.streaks, key)
		return nil
	}
	if s.Since.IsZero() || s.Since.After(now) {
		s.Since, s.Last = now, now
	}
	if s.Last.IsZero() || s.Last.Before(s.Since) {
		s.Last = g.earliestLast(s, now)
	}
	if s.Last.After(now) {
		s.Last = now
	}
	if now.Sub(g.next(s)) > g.staleAfter {
		delete(g.streaks, key)
		return ErrStaleStreak
	}
	g.streaks[key] = held{streak: s, seen: now}
	return nil
}

// earliestLast returns Since plus the spacing of s's checks after the
// first, at most now.
func (g *Gate) earliestLast(s Streak, now time.Time) time.Time {
	if g.spacing <= 0 {
		return s.Since
	}
	after := int64(s.Checks - 1)
	if after > int64(now.Sub(s.Since)/g.spacing) {
		return now
	}
	return s.Since.Add(time.Duration(after) * g.spacing)
}

// Restore puts back a streak of key given as Streak returns it: Resume of
// a Streak whose Last is the earliest its checks allow, stale streaks
// dropped as Resume drops them.
func (g *Gate) Restore(key string, since time.Time, checks int) {
	g.Resume(key, Streak{Checks: checks, Since: since})
}

// Forget drops key, as a contrary observation would.
func (g *Gate) Forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.streaks, key)
}

// ForgetIdle drops every key not checked for idle or longer and returns how
// many it dropped. A key nobody checks any more (its object is gone) then
// stops holding memory.
func (g *Gate) ForgetIdle(idle time.Duration) int {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for key, h := range g.streaks {
		if now.Sub(h.seen) >= idle {
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
