package backoff_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
)

func TestRequeueRefusal(t *testing.T) {
	r := backoff.NewRequeue()
	for _, err := range []error{conflict, multi, notFound, fmt.Errorf("sync: %w", conflict)} {
		for range 3 {
			assert.Equal(t, backoff.DefaultRefusalInterval, r.After("zone/example", err), "never a hot loop: %v", err)
		}
	}
	assert.Equal(t, 0, r.Len())

	r = backoff.NewRequeue(backoff.WithRefusalInterval(time.Hour))
	assert.Equal(t, time.Hour, r.After("k", conflict))
}

func TestRequeueTransient(t *testing.T) {
	r := backoff.NewRequeue(backoff.WithJitter(0))
	var got []time.Duration
	for range 12 {
		got = append(got, r.After("zone/example", outage))
	}
	s := time.Second
	assert.Equal(t, []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 128 * s, 256 * s, 300 * s, 300 * s, 300 * s}, got)
	assert.Equal(t, 12, r.Failures("zone/example"))

	// Keys are independent.
	assert.Equal(t, time.Second, r.After("zone/other", refused))

	// Success resets the key.
	assert.Equal(t, time.Duration(0), r.After("zone/example", nil))
	assert.Equal(t, 0, r.Failures("zone/example"))
	assert.Equal(t, time.Second, r.After("zone/example", outage))

	// So does a refusal: the server answered.
	assert.Equal(t, backoff.DefaultRefusalInterval, r.After("zone/example", conflict))
	assert.Equal(t, time.Second, r.After("zone/example", outage))

	r.Forget("zone/example")
	r.Forget("zone/other")
	assert.Equal(t, 0, r.Len())
}

func TestRequeueJitter(t *testing.T) {
	r := backoff.NewRequeue(backoff.WithClock(backofftest.NewClock(epoch)))
	nominal := backoff.DefaultRequeueInitialInterval
	for i := range 15 {
		d := r.After("k", outage)
		lo := time.Duration(float64(min(nominal, backoff.DefaultRequeueMaxInterval)) * (1 - backoff.DefaultRequeueJitter))
		assert.GreaterOrEqual(t, d, lo, "wait %d", i)
		assert.LessOrEqual(t, d, backoff.DefaultRequeueMaxInterval, "wait %d never above the cap", i)
		nominal *= 2
	}
}

func TestRequeueConcurrent(t *testing.T) {
	r := backoff.NewRequeue()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("zone/%d", g%3)
			for i := range 200 {
				switch i % 3 {
				case 0:
					r.After(key, outage)
				case 1:
					r.After(key, conflict)
				default:
					r.After(key, nil)
				}
				_ = r.Failures(key)
			}
			r.Forget(key)
		}()
	}
	wg.Wait()
	require.Equal(t, 0, r.Len())
}
