package backoff_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
)

// storedStep is one reconcile of a controller that keeps the streak in an
// annotation: wait, maybe restart (a new Gate) or find the annotation
// edited, check, and write the annotation back unless the write fails.
type storedStep struct {
	after   time.Duration
	restart bool
	edit    *string // the annotation as someone else left it
	holds   bool
	lost    bool // the write back fails: the annotation stays as it was

	sustained bool
	text      string
	changed   bool
	nextIn    time.Duration
	discarded string // "stale", "text" or ""
}

// streakText is the text form of a streak, for the tables.
func streakText(checks int, since, last time.Duration) string {
	text, err := backoff.Streak{Checks: checks, Since: epoch.Add(since), Last: epoch.Add(last)}.MarshalText()
	if err != nil {
		panic(err)
	}
	return string(text)
}

func ptr(s string) *string { return &s }

func TestGateObserveStored(t *testing.T) {
	const m = time.Minute
	tests := []struct {
		name  string
		steps []storedStep
	}{
		{"stored, counted, cleared when it ends", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: time.Second, holds: true, text: streakText(1, 0, 0), nextIn: 59 * time.Second},
			{after: 59 * time.Second, holds: true, text: streakText(2, 0, m), changed: true, nextIn: m},
			{after: m, holds: true, sustained: true, text: streakText(3, 0, 2*m), changed: true},
			{after: 10 * time.Second, holds: true, sustained: true, text: streakText(3, 0, 2*m)},
			{after: time.Second, holds: false, text: "", changed: true},
			{after: time.Second, holds: false, text: ""},
		}},
		{"a restart goes on from the store", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: m, holds: true, text: streakText(2, 0, m), changed: true, nextIn: m},
			{after: m, restart: true, holds: true, sustained: true, text: streakText(3, 0, 2*m), changed: true},
		}},
		{"a restart with the store lost starts again", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: m, holds: true, text: streakText(2, 0, m), changed: true, nextIn: m},
			{after: m, restart: true, edit: ptr(""), holds: true, text: streakText(1, 2*m, 2*m), changed: true, nextIn: m},
		}},
		{"the store wins: another leader saw the streak end", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: m, holds: true, text: streakText(2, 0, m), changed: true, nextIn: m},
			{after: m, edit: ptr(""), holds: true, text: streakText(1, 2*m, 2*m), changed: true, nextIn: m},
		}},
		{"the store wins: another leader counted a check", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: 2 * m, edit: ptr(streakText(2, 0, m)), holds: true, sustained: true, text: streakText(3, 0, 2*m), changed: true},
		}},
		{"a write that failed is made again", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: m, holds: true, lost: true, text: streakText(2, 0, m), changed: true, nextIn: m},
			// The check counts again, on the streak the store holds.
			{after: time.Second, holds: true, text: streakText(2, 0, m+time.Second), changed: true, nextIn: m},
			{after: time.Second, holds: true, text: streakText(2, 0, m+time.Second), nextIn: 59 * time.Second},
		}},
		{"not a streak: discarded, replaced", []storedStep{
			{edit: ptr("missing since Tuesday"), holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m, discarded: "text"},
			{after: m, holds: true, text: streakText(2, 0, m), changed: true, nextIn: m},
		}},
		{"not a streak, condition gone: removed", []storedStep{
			{edit: ptr("3 checks from yesterday"), holds: false, text: "", changed: true, discarded: "text"},
			{after: m, holds: false, text: ""},
		}},
		{"a complete streak restored from a year-old backup", []storedStep{
			{after: 365 * 24 * time.Hour, edit: ptr(streakText(3, 0, 2*m)), holds: true,
				text: streakText(1, 365*24*time.Hour, 365*24*time.Hour), changed: true, nextIn: m, discarded: "stale"},
		}},
		{"a complete streak restored from a backup of 30 minutes", []storedStep{
			{after: 32 * m, restart: true, edit: ptr(streakText(3, 0, 2*m)), holds: true, sustained: true, text: streakText(3, 0, 2*m)},
		}},
		{"blanks are no streak", []storedStep{
			{edit: ptr("  "), holds: false, text: "", changed: true},
			{holds: false, text: ""},
		}},
		{"another spelling of the Gate's own streak is written once", []storedStep{
			{holds: true, text: streakText(1, 0, 0), changed: true, nextIn: m},
			{after: time.Second, edit: ptr(" 1 check from 2025-01-01T01:00:00+01:00 to 2025-01-01T00:00:00Z"), holds: true,
				text: streakText(1, 0, 0), changed: true, nextIn: 59 * time.Second},
			{after: time.Second, holds: true, text: streakText(1, 0, 0), nextIn: 58 * time.Second},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := backofftest.NewClock(epoch)
			newGate := func() *backoff.Gate { return backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock)) }
			g := newGate()
			annotation := ""
			for i, s := range tc.steps {
				clock.Advance(s.after)
				if s.restart {
					g = newGate()
				}
				if s.edit != nil {
					annotation = *s.edit
				}
				obs := g.ObserveStored("default/api", annotation, s.holds)
				assert.Equal(t, s.sustained, obs.Sustained, "step %d: sustained", i)
				assert.Equal(t, s.text, obs.Text, "step %d: text", i)
				assert.Equal(t, s.changed, obs.Changed, "step %d: changed", i)
				assert.Equal(t, obs.Text != annotation, obs.Changed, "step %d: changed is text != stored", i)
				assert.Equal(t, s.nextIn, obs.NextIn, "step %d: next in", i)
				switch s.discarded {
				case "stale":
					assert.ErrorIs(t, obs.Discarded, backoff.ErrStaleStreak, "step %d", i)
				case "text":
					var textErr *backoff.StreakTextError
					assert.ErrorAs(t, obs.Discarded, &textErr, "step %d", i)
				default:
					assert.NoError(t, obs.Discarded, "step %d", i)
				}
				// The Gate agrees with what it returned.
				assert.Equal(t, obs.Sustained, g.Sustained("default/api"), "step %d", i)
				s2, ok := g.Current("default/api")
				assert.Equal(t, obs.Text != "", ok, "step %d: a streak exactly when there is text", i)
				if ok {
					text, err := s2.MarshalText()
					require.NoError(t, err)
					assert.Equal(t, obs.Text, string(text), "step %d", i)
				}
				if obs.Changed && !s.lost {
					annotation = obs.Text
				}
			}
		})
	}
}

// TestGateObserveStoredWrites checks that the stored text changes at most
// once per counted check however often the condition is checked, so that
// the writes it causes, and the re-checks they trigger, count for nothing.
func TestGateObserveStoredWrites(t *testing.T) {
	for _, every := range []time.Duration{0, time.Millisecond, time.Second, 20 * time.Second, time.Minute, time.Hour} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			clock := backofftest.NewClock(epoch)
			g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
			annotation, writes := "", 0
			for range 500 {
				clock.Advance(every)
				obs := g.ObserveStored("api.", annotation, true)
				if obs.Changed {
					writes++
					annotation = obs.Text
				}
			}
			assert.LessOrEqual(t, writes, 3)
			assert.Positive(t, writes)
		})
	}
}
