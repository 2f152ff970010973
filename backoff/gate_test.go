package backoff_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
		{"enough checks, too short", 3, 2 * time.Minute, []step{
			{0, true, false}, {time.Second, true, false}, {time.Second, true, false}, {time.Second, true, false},
			{2 * time.Minute, true, true},
		}},
		{"long enough, too few checks", 3, time.Minute, []step{
			{0, true, false}, {time.Hour, true, false}, {time.Second, true, true},
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
