package backoff_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
)

// TestGateResumeStale checks the stale bound: a stored streak whose next
// check is past due by more than the bound is dropped, one within it is
// taken up, whatever its number of checks. The Gate counts 3 checks over 2
// minutes, so a check counts a minute after the last counted one.
func TestGateResumeStale(t *testing.T) {
	now := epoch.Add(365 * 24 * time.Hour)
	const year = 365 * 24 * time.Hour
	tests := []struct {
		name  string
		bound time.Duration // 0: the default
		in    backoff.Streak
		// kept is whether the streak is taken up, sustained whether the
		// Gate is then open.
		kept, sustained bool
	}{
		{"next check due a minute ago", 0,
			backoff.Streak{Checks: 2, Since: now.Add(-3 * time.Minute), Last: now.Add(-2 * time.Minute)}, true, false},
		{"next check due the bound ago", 0,
			backoff.Streak{Checks: 2, Since: now.Add(-time.Hour - 2*time.Minute), Last: now.Add(-time.Hour - time.Minute)}, true, false},
		{"next check due just over the bound ago", 0,
			backoff.Streak{Checks: 2, Since: now.Add(-time.Hour - 2*time.Minute - 1), Last: now.Add(-time.Hour - time.Minute - 1)}, false, false},
		{"a 10-minute resync: next check due 9 minutes ago", 0,
			backoff.Streak{Checks: 1, Since: now.Add(-10 * time.Minute), Last: now.Add(-10 * time.Minute)}, true, false},
		{"a year-old check", 0,
			backoff.Streak{Checks: 1, Since: now.Add(-year), Last: now.Add(-year)}, false, false},
		{"a year-old complete streak", 0,
			backoff.Streak{Checks: 3, Since: now.Add(-year), Last: now.Add(-year + 2*time.Minute)}, false, false},
		{"complete, opened 30 minutes ago", 0,
			backoff.Streak{Checks: 3, Since: now.Add(-32 * time.Minute), Last: now.Add(-30 * time.Minute)}, true, true},
		{"complete, opened two hours ago", 0,
			backoff.Streak{Checks: 3, Since: now.Add(-122 * time.Minute), Last: now.Add(-120 * time.Minute)}, false, false},
		{"many checks, a year ago", 0,
			backoff.Streak{Checks: 40, Since: now.Add(-year), Last: now.Add(-year + time.Hour)}, false, false},
		{"zero last, since a year ago", 0, backoff.Streak{Checks: 3, Since: now.Add(-year)}, false, false},
		{"zero since is now", 0, backoff.Streak{Checks: 3, Last: now.Add(-year)}, true, false},
		{"future since is now", 0, backoff.Streak{Checks: 3, Since: now.Add(year), Last: now.Add(year)}, true, false},
		{"a bound of 10 minutes: due 15 minutes ago", 10 * time.Minute,
			backoff.Streak{Checks: 2, Since: now.Add(-17 * time.Minute), Last: now.Add(-16 * time.Minute)}, false, false},
		{"a bound of 10 minutes: due 5 minutes ago", 10 * time.Minute,
			backoff.Streak{Checks: 2, Since: now.Add(-7 * time.Minute), Last: now.Add(-6 * time.Minute)}, true, false},
		{"a bound of a week: a day-old complete streak", 7 * 24 * time.Hour,
			backoff.Streak{Checks: 3, Since: now.Add(-24 * time.Hour), Last: now.Add(-24*time.Hour + 2*time.Minute)}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := []backoff.GateOption{backoff.WithClock(backofftest.NewClock(now))}
			if tc.bound > 0 {
				opts = append(opts, backoff.WithStaleAfter(tc.bound))
			}
			g := backoff.NewGate(3, 2*time.Minute, opts...)
			g.Observe("api.", true) // replaced by Resume whatever it says
			g.Resume("api.", tc.in)
			_, ok := g.Current("api.")
			assert.Equal(t, tc.kept, ok, "taken up")
			assert.Equal(t, tc.sustained, g.Sustained("api."))

			// ObserveStored says why, from the text form: a check on the
			// streak taken up, as Observe after Resume.
			if tc.in.Since.IsZero() || tc.in.Last.IsZero() {
				return // the text form holds both times
			}
			text, err := tc.in.MarshalText()
			require.NoError(t, err)
			g = backoff.NewGate(3, 2*time.Minute, opts...)
			obs := g.ObserveStored("api.", string(text), true)
			if tc.kept {
				assert.NoError(t, obs.Discarded)
				twoSteps := backoff.NewGate(3, 2*time.Minute, opts...)
				twoSteps.Resume("api.", tc.in)
				assert.Equal(t, twoSteps.Observe("api.", true), obs.Sustained)
			} else {
				assert.ErrorIs(t, obs.Discarded, backoff.ErrStaleStreak)
				s, _ := g.Current("api.")
				assert.Equal(t, backoff.Streak{Checks: 1, Since: now, Last: now}, s, "the check starts a streak again")
				assert.False(t, obs.Sustained)
				assert.True(t, obs.Changed)
			}
		})
	}
}

// TestGateRestoreStale checks that Restore, which knows no Last, drops a
// streak whose checks, at the earliest they can have been, leave the next
// one past due by more than the bound.
func TestGateRestoreStale(t *testing.T) {
	now := epoch.Add(24 * time.Hour)
	for _, tc := range []struct {
		name   string
		since  time.Time
		checks int
		kept   bool
	}{
		{"two checks from 10 minutes ago", now.Add(-10 * time.Minute), 2, true},
		{"two checks from 62 minutes ago", now.Add(-62 * time.Minute), 2, true},
		{"two checks from 63 minutes ago", now.Add(-63 * time.Minute), 2, false},
		{"three checks from a day ago", now.Add(-24 * time.Hour), 3, false},
		{"more checks than minutes since", now.Add(-time.Hour), 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(backofftest.NewClock(now)))
			g.Restore("api.", tc.since, tc.checks)
			_, _, ok := g.Streak("api.")
			assert.Equal(t, tc.kept, ok)
		})
	}
}

// TestGateStaleOnlyStored checks that the bound judges stored streaks
// only: a streak the Gate holds in memory is judged by its checks, however
// long ago they were.
func TestGateStaleOnlyStored(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock), backoff.WithStaleAfter(time.Minute))
	g.Observe("api.", true)
	clock.Advance(time.Hour)
	g.Observe("api.", true)
	clock.Advance(time.Hour)
	assert.True(t, g.Observe("api.", true), "three checks, an hour apart")
}

func TestGateNextIn(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	wait, ok := g.NextIn("api.")
	assert.False(t, ok, "no streak: any check counts")
	assert.Zero(t, wait)

	steps := []struct {
		after time.Duration
		holds bool
		wait  time.Duration
		ok    bool
	}{
		{0, true, time.Minute, true},
		{20 * time.Second, true, 40 * time.Second, true}, // too soon: counts for nothing
		{40 * time.Second, true, time.Minute, true},
		{time.Minute, true, 0, true},           // open
		{time.Hour, true, 0, true},             // still open: no wait
		{time.Second, false, 0, false},         // ended
		{time.Second, true, time.Minute, true}, // a new streak
	}
	for i, s := range steps {
		clock.Advance(s.after)
		g.Observe("api.", s.holds)
		wait, ok := g.NextIn("api.")
		assert.Equal(t, s.ok, ok, "step %d", i)
		assert.Equal(t, s.wait, wait, "step %d", i)
		if next, ok := g.Next("api."); ok {
			assert.Equal(t, max(next.Sub(clock.Now()), 0), wait, "step %d: Next as a duration", i)
		}
	}

	// A controller that requeues after NextIn opens the Gate on schedule,
	// with no clock of its own.
	clock = backofftest.NewClock(epoch)
	g = backoff.NewGate(5, 4*time.Minute, backoff.WithClock(clock))
	for !g.Observe("api.", true) {
		wait, _ := g.NextIn("api.")
		require.Positive(t, wait)
		clock.Advance(wait)
	}
	assert.Equal(t, epoch.Add(4*time.Minute), clock.Now())
}
