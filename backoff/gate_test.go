package backoff_test

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
)

// step is one observation of a gate test: wait, then observe.
type step struct {
	after time.Duration
	holds bool
	want  bool
}

func TestGate(t *testing.T) {
	tests := []struct {
		name   string
		checks int
		span   time.Duration
		steps  []step
	}{
		{"opens after checks and span", 3, 2 * time.Minute, []step{
			{0, true, false}, {time.Minute, true, false}, {time.Minute, true, true}, {time.Second, true, true},
		}},
		{"checks too close together count once", 3, 2 * time.Minute, []step{
			{0, true, false}, {time.Second, true, false}, {time.Second, true, false}, {time.Second, true, false},
			{2 * time.Minute, true, false}, {time.Minute, true, true},
		}},
		{"long enough, too few checks", 3, time.Minute, []step{
			{0, true, false}, {time.Hour, true, false}, {time.Second, true, false}, {29 * time.Second, true, true},
		}},
		{"late checks count once each", 3, 2 * time.Minute, []step{
			{0, true, false}, {10 * time.Minute, true, false}, {10 * time.Minute, true, true},
		}},
		{"one check opens after the span", 1, time.Minute, []step{
			{0, true, false}, {59 * time.Second, true, false}, {time.Second, true, true},
		}},
		{"a contrary observation resets", 2, time.Minute, []step{
			{0, true, false}, {time.Minute, false, false}, {time.Second, true, false}, {time.Minute, true, true},
			{0, false, false}, {0, true, false},
		}},
		{"one check, no span", 1, 0, []step{{0, true, true}, {0, false, false}, {0, true, true}}},
		{"out-of-range settings clamp", -4, -time.Minute, []step{{0, true, true}}},
		{"never opens without the condition", 1, 0, []step{{0, false, false}, {time.Hour, false, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := backofftest.NewClock(epoch)
			g := backoff.NewGate(tc.checks, tc.span, backoff.WithClock(clock))
			for i, s := range tc.steps {
				clock.Advance(s.after)
				assert.Equal(t, s.want, g.Observe("api.example.com.", s.holds), "step %d", i)
				assert.Equal(t, s.want, g.Sustained("api.example.com."), "step %d", i)
			}
		})
	}
}

func TestGateKeys(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(2, time.Minute, backoff.WithClock(clock))
	g.Observe("a.", true)
	g.Observe("b.", true)
	g.Observe("c.", false)
	assert.Equal(t, 2, g.Len(), "contrary observations hold no memory")

	clock.Advance(time.Minute)
	assert.True(t, g.Observe("a.", true))
	assert.False(t, g.Sustained("b."), "b was checked once")
	assert.False(t, g.Sustained("unknown."))

	g.Forget("a.")
	assert.False(t, g.Sustained("a."))

	clock.Advance(10 * time.Minute)
	g.Observe("d.", true)
	assert.Equal(t, 1, g.ForgetIdle(5*time.Minute), "b was last checked 11 minutes ago")
	assert.Equal(t, 1, g.Len())
}

func TestGateConcurrent(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, time.Minute, backoff.WithClock(clock))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				key := fmt.Sprintf("n%d.example.com.", (w+i)%5)
				g.Observe(key, i%7 != 0)
				g.Sustained(key)
				if since, checks, ok := g.Streak(key); ok && i%11 == 0 {
					g.Restore(key, since, checks)
				}
				if i%50 == 0 {
					clock.Advance(time.Second)
					g.ForgetIdle(time.Hour)
				}
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, g.Len(), 5)
}

func TestGateStreak(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	_, _, ok := g.Streak("a.")
	assert.False(t, ok, "never observed")

	g.Observe("a.", true)
	clock.Advance(time.Minute)
	g.Observe("a.", true)
	since, checks, ok := g.Streak("a.")
	assert.True(t, ok)
	assert.Equal(t, epoch, since, "the first check of the streak")
	assert.Equal(t, 2, checks)

	g.Sustained("a.")
	_, checks, _ = g.Streak("a.")
	assert.Equal(t, 2, checks, "Sustained records no check")

	g.Observe("a.", false)
	since, checks, ok = g.Streak("a.")
	assert.False(t, ok, "a contrary observation ends the streak")
	assert.True(t, since.IsZero())
	assert.Zero(t, checks)
}

// TestGateRestore replays a restart: a streak kept outside the Gate (as
// text, as an annotation would keep it) and restored into a new Gate opens
// it on schedule, where a new Gate without it starts again.
func TestGateRestore(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	before := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	before.Observe("api.", true)
	clock.Advance(time.Minute)
	assert.False(t, before.Observe("api.", true))
	since, checks, ok := before.Streak("api.")
	require.True(t, ok)
	stored := map[string]string{"since": since.Format(time.RFC3339Nano), "checks": strconv.Itoa(checks)}

	// The restart: a new Gate, the old one gone.
	clock.Advance(time.Minute)
	after := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	fresh := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	since, err := time.Parse(time.RFC3339Nano, stored["since"])
	require.NoError(t, err)
	checks, err = strconv.Atoi(stored["checks"])
	require.NoError(t, err)
	after.Restore("api.", since, checks)

	assert.True(t, after.Observe("api.", true), "the third check, two minutes after the first")
	assert.False(t, fresh.Observe("api.", true), "without the stored streak, the first check again")
	_, checks, _ = after.Streak("api.")
	assert.Equal(t, 3, checks)
}

func TestGateRestoreInput(t *testing.T) {
	const key = "api."
	now := epoch.Add(time.Hour)
	tests := []struct {
		name      string
		since     time.Time
		checks    int
		ok        bool
		wantSince time.Time
		sustained bool // right after Restore, with 3 checks over 2 minutes
	}{
		{"a streak under way", now.Add(-time.Minute), 2, true, now.Add(-time.Minute), false},
		{"a sustained streak", now.Add(-10 * time.Minute), 5, true, now.Add(-10 * time.Minute), true},
		{"enough checks, too recent", now.Add(-time.Minute), 7, true, now.Add(-time.Minute), false},
		{"one check", now, 1, true, now, false},
		{"zero checks is no streak", now.Add(-time.Hour), 0, false, time.Time{}, false},
		{"negative checks is no streak", now.Add(-time.Hour), -3, false, time.Time{}, false},
		{"zero since starts the span now", time.Time{}, 9, true, now, false},
		{"future since starts the span now", now.Add(time.Hour), 9, true, now, false},
		{"huge checks", now.Add(-time.Hour), math.MaxInt, true, now.Add(-time.Hour), true},
		{"far past since is stale", time.Unix(-1<<40, 0), 3, false, time.Time{}, false},
		{"sustained within the stale bound", now.Add(-time.Hour), 3, true, now.Add(-time.Hour), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := backofftest.NewClock(now)
			g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
			// Whatever the Gate held for the key is replaced.
			g.Observe(key, true)
			g.Observe(key, true)
			assert.NotPanics(t, func() { g.Restore(key, tc.since, tc.checks) })

			since, checks, ok := g.Streak(key)
			assert.Equal(t, tc.ok, ok)
			assert.True(t, tc.wantSince.Equal(since), "since %s, want %s", since, tc.wantSince)
			if tc.ok {
				assert.Equal(t, tc.checks, checks)
				assert.Equal(t, 1, g.Len())
			} else {
				assert.Equal(t, 0, g.Len(), "no streak holds no memory")
			}
			assert.Equal(t, tc.sustained, g.Sustained(key))
		})
	}
}

// TestGateRestoreSpanStartsAgain checks that a streak whose start is not
// credible opens the Gate only a full span after the restore.
func TestGateRestoreSpanStartsAgain(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	g.Restore("api.", epoch.Add(24*time.Hour), 10)
	clock.Advance(time.Minute)
	assert.False(t, g.Observe("api.", true), "one minute into the span")
	clock.Advance(time.Minute)
	assert.True(t, g.Observe("api.", true), "two minutes after the restore")
}

func TestGateRestoreIdle(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	clock.Advance(time.Hour)
	g.Restore("api.", epoch, 2)
	assert.Zero(t, g.ForgetIdle(30*time.Minute), "a restored key counts as checked now")
	clock.Advance(30 * time.Minute)
	assert.Equal(t, 1, g.ForgetIdle(30*time.Minute))
	_, _, ok := g.Streak("api.")
	assert.False(t, ok)
}

// TestGateSpacing checks that a check counts only when it comes at least
// span/(checks-1) after the last counted one, so that a stored streak
// changes at most checks times however often the condition is checked.
func TestGateSpacing(t *testing.T) {
	tests := []struct {
		name   string
		checks int
		span   time.Duration
		// every is the time between checks, n how many there are.
		every time.Duration
		n     int
		// counted is the streak's Checks after the last check, changes
		// how often its text form changed, opensAt the first check (from
		// 0) that finds the Gate open, -1 for none.
		counted, changes, opensAt int
	}{
		{"10 immediate re-checks count once", 3, 2 * time.Minute, 0, 10, 1, 1, -1},
		{"a re-check each millisecond", 3, 2 * time.Minute, time.Millisecond, 1000, 1, 1, -1},
		{"a check each 59 s counts every other", 3, 2 * time.Minute, 59 * time.Second, 5, 3, 3, 4},
		{"a check each minute counts each", 3, 2 * time.Minute, time.Minute, 6, 3, 3, 2},
		{"a check each 20 s opens at 2 minutes", 3, 2 * time.Minute, 20 * time.Second, 10, 3, 3, 6},
		{"checks past the span change nothing", 3, 2 * time.Minute, time.Hour, 10, 3, 3, 2},
		{"no span: every check counts", 3, 0, 0, 10, 3, 3, 2},
		{"one check, no span", 1, 0, 0, 5, 1, 1, 0},
		{"5 checks over 4 minutes", 5, 4 * time.Minute, 30 * time.Second, 20, 5, 5, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := backofftest.NewClock(epoch)
			g := backoff.NewGate(tc.checks, tc.span, backoff.WithClock(clock))
			var stored []byte
			changes, opensAt := 0, -1
			for i := range tc.n {
				if i > 0 {
					clock.Advance(tc.every)
				}
				if g.Observe("api.", true) && opensAt < 0 {
					opensAt = i
				}
				s, ok := g.Current("api.")
				require.True(t, ok)
				text, err := s.MarshalText()
				require.NoError(t, err)
				if string(text) != string(stored) {
					changes++
					stored = text
				}
			}
			s, _ := g.Current("api.")
			assert.Equal(t, tc.counted, s.Checks, "counted checks")
			assert.Equal(t, tc.changes, changes, "changes of the stored form")
			assert.LessOrEqual(t, changes, tc.checks)
			assert.Equal(t, tc.opensAt, opensAt, "the first check that finds the Gate open")
		})
	}
}

func TestGateNext(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))

	_, ok := g.Next("api.")
	assert.False(t, ok, "no streak: any check counts")

	g.Observe("api.", true)
	next, ok := g.Next("api.")
	assert.True(t, ok)
	assert.Equal(t, epoch.Add(time.Minute), next, "a minute after the first check")

	clock.Advance(30 * time.Second)
	g.Observe("api.", true)
	next, _ = g.Next("api.")
	assert.Equal(t, epoch.Add(time.Minute), next, "a check too soon moves nothing")

	// A controller that requeues at Next opens the Gate on schedule.
	for !g.Sustained("api.") {
		next, _ = g.Next("api.")
		clock.Advance(next.Sub(clock.Now()))
		g.Observe("api.", true)
	}
	assert.Equal(t, epoch.Add(2*time.Minute), clock.Now())
	next, _ = g.Next("api.")
	assert.False(t, next.After(clock.Now()), "open: a check now finds it open")

	g.Observe("api.", false)
	_, ok = g.Next("api.")
	assert.False(t, ok)
}

// TestGateNextLastCheck checks that Next never points at a check that
// would count without opening the Gate: when span does not divide evenly,
// the last check waits for the span.
func TestGateNextLastCheck(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	g := backoff.NewGate(4, 100*time.Nanosecond, backoff.WithClock(clock))
	for range 3 {
		g.Observe("api.", true)
		next, _ := g.Next("api.")
		clock.Advance(next.Sub(clock.Now()))
	}
	assert.Equal(t, epoch.Add(100*time.Nanosecond), clock.Now())
	assert.True(t, g.Observe("api.", true))
}

// TestGateCurrentResume replays a restart with the text form of a streak,
// as a controller keeps it in an annotation.
func TestGateCurrentResume(t *testing.T) {
	clock := backofftest.NewClock(epoch)
	before := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	before.Observe("api.", true)
	clock.Advance(time.Minute)
	before.Observe("api.", true)
	s, ok := before.Current("api.")
	require.True(t, ok)
	assert.Equal(t, backoff.Streak{Checks: 2, Since: epoch, Last: epoch.Add(time.Minute)}, s)
	annotation, err := s.MarshalText()
	require.NoError(t, err)

	clock.Advance(30 * time.Second)
	after := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock))
	var stored backoff.Streak
	require.NoError(t, stored.UnmarshalText(annotation))
	after.Resume("api.", stored)
	next, ok := after.Next("api.")
	assert.True(t, ok)
	assert.Equal(t, epoch.Add(2*time.Minute), next, "the resumed streak keeps its last counted check")
	assert.False(t, after.Observe("api.", true), "30 s after the last counted check")
	clock.Advance(30 * time.Second)
	assert.True(t, after.Observe("api.", true), "the third check, two minutes after the first")
}

func TestGateResumeInput(t *testing.T) {
	now := epoch.Add(time.Hour)
	tests := []struct {
		name string
		in   backoff.Streak
		ok   bool
		want backoff.Streak
	}{
		{"as stored", backoff.Streak{Checks: 2, Since: now.Add(-2 * time.Minute), Last: now.Add(-time.Minute)}, true,
			backoff.Streak{Checks: 2, Since: now.Add(-2 * time.Minute), Last: now.Add(-time.Minute)}},
		{"no checks", backoff.Streak{Since: now, Last: now}, false, backoff.Streak{}},
		{"zero since", backoff.Streak{Checks: 2, Last: now.Add(-time.Minute)}, true, backoff.Streak{Checks: 2, Since: now, Last: now}},
		{"future since", backoff.Streak{Checks: 2, Since: now.Add(time.Hour), Last: now.Add(time.Hour)}, true,
			backoff.Streak{Checks: 2, Since: now, Last: now}},
		{"zero last", backoff.Streak{Checks: 2, Since: now.Add(-time.Hour)}, true,
			backoff.Streak{Checks: 2, Since: now.Add(-time.Hour), Last: now.Add(-time.Hour + time.Minute)}},
		{"last before since", backoff.Streak{Checks: 3, Since: now.Add(-time.Hour), Last: now.Add(-2 * time.Hour)}, true,
			backoff.Streak{Checks: 3, Since: now.Add(-time.Hour), Last: now.Add(-time.Hour + 2*time.Minute)}},
		{"future last", backoff.Streak{Checks: 2, Since: now.Add(-time.Hour), Last: now.Add(time.Hour)}, true,
			backoff.Streak{Checks: 2, Since: now.Add(-time.Hour), Last: now}},
		{"zero last, more checks than time", backoff.Streak{Checks: math.MaxInt, Since: now.Add(-time.Minute)}, true,
			backoff.Streak{Checks: math.MaxInt, Since: now.Add(-time.Minute), Last: now}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := backoff.NewGate(3, 2*time.Minute, backoff.WithClock(backofftest.NewClock(now)))
			g.Observe("api.", true)
			assert.NotPanics(t, func() { g.Resume("api.", tc.in) })
			got, ok := g.Current("api.")
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
