package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	pdnserrors "github.com/pdnskit/reconcile/errors"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	conflict = pdnserrors.Parse(422, []byte(`{"error": "RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset"}`))
	multi    = pdnserrors.Parse(422, []byte(`{"error": "Multiple errors found in RRset", "errors": ["RRset a.example.com. IN A: duplicate record with content \"192.0.2.1\"", "RRset v4.example.com. IN CNAME: conflicts with existing A RRset of the same name"]}`))
	notFound = pdnserrors.Parse(404, []byte("Not Found"))
	outage   = pdnserrors.Parse(503, []byte("<html><title>503 Service Unavailable</title></html>"))
	refused  = &url.Error{Op: "Patch", URL: "http://127.0.0.1:8081/api/v1/servers/localhost/zones/example.com.", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}}
)

// failing returns an operation that fails with errs in turn, then succeeds,
// and counts its calls.
func failing(calls *int, errs ...error) func(context.Context) error {
	return func(context.Context) error {
		*calls++
		if *calls <= len(errs) {
			return errs[*calls-1]
		}
		return nil
	}
}

func TestRetryPermanentOnce(t *testing.T) {
	for name, err := range map[string]error{
		"conflict":              conflict,
		"conflict inside multi": multi,
		"wrapped conflict":      fmt.Errorf("patch zone example.com.: %w", fmt.Errorf("apply: %w", conflict)),
		"not found":             notFound,
		"plain error":           errors.New("validate: bad name"),
	} {
		t.Run(name, func(t *testing.T) {
			clock := backofftest.NewAutoClock(epoch)
			calls := 0
			got := backoff.Retry(context.Background(), failing(&calls, err, err, err), backoff.WithClock(clock))
			assert.Equal(t, 1, calls, "a refusal is attempted exactly once")
			assert.Same(t, err, got, "returned as the operation returned it")
			assert.Empty(t, clock.Waits())
		})
	}
}

func TestRetryTransientGrowingWaits(t *testing.T) {
	clock := backofftest.NewAutoClock(epoch)
	calls := 0
	var notified []time.Duration
	err := backoff.Retry(context.Background(),
		failing(&calls, outage, refused, outage, fmt.Errorf("list zones: %w", context.DeadlineExceeded)),
		backoff.WithClock(clock),
		backoff.WithJitter(0),
		backoff.WithNotify(func(_ error, attempt int, wait time.Duration) {
			assert.Len(t, notified, attempt-1)
			notified = append(notified, wait)
		}),
	)
	require.NoError(t, err)
	assert.Equal(t, 5, calls)
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	assert.Equal(t, want, clock.Waits())
	assert.Equal(t, want, notified)
	assert.Equal(t, epoch.Add(7500*time.Millisecond), clock.Now())
}

func TestRetryJitteredWaitsGrow(t *testing.T) {
	clock := backofftest.NewAutoClock(epoch)
	calls := 0
	err := backoff.Retry(context.Background(),
		func(context.Context) error { calls++; return outage },
		backoff.WithClock(clock),
		backoff.WithMaxAttempts(8),
		backoff.WithMaxElapsedTime(0),
		backoff.WithMaxInterval(time.Hour),
	)
	assert.Equal(t, 8, calls)
	assert.ErrorIs(t, err, outage)
	assert.True(t, pdnserrors.IsRetryable(err), "the last error stays reachable")
	waits := clock.Waits()
	require.Len(t, waits, 7)
	nominal := backoff.DefaultInitialInterval
	for i, w := range waits {
		lo := time.Duration(float64(nominal) * (1 - backoff.DefaultJitter))
		hi := time.Duration(float64(nominal) * (1 + backoff.DefaultJitter))
		assert.True(t, w >= lo && w <= hi, "wait %d: %s not in [%s, %s]", i, w, lo, hi)
		nominal *= 2
	}
	// Jitter of ±50% around a doubling interval: each wait exceeds the
	// one two steps earlier.
	for i := 2; i < len(waits); i++ {
		assert.Greater(t, waits[i], waits[i-2])
	}
}

func TestRetryBounds(t *testing.T) {
	tests := []struct {
		name      string
		opts      []backoff.RetryOption
		wantCalls int
		wantWaits []time.Duration
	}{
		{"default attempts", nil, backoff.DefaultMaxAttempts,
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
		{"one attempt", []backoff.RetryOption{backoff.WithMaxAttempts(1)}, 1, nil},
		{"elapsed", []backoff.RetryOption{backoff.WithMaxAttempts(0), backoff.WithInitialInterval(time.Second), backoff.WithMaxElapsedTime(3 * time.Second)}, 3,
			[]time.Duration{time.Second, 2 * time.Second}},
		{"max interval", []backoff.RetryOption{backoff.WithMaxAttempts(6), backoff.WithMaxElapsedTime(0), backoff.WithInitialInterval(time.Second), backoff.WithMaxInterval(3 * time.Second)}, 6,
			[]time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}},
		{"multiplier", []backoff.RetryOption{backoff.WithMultiplier(3), backoff.WithMaxAttempts(4), backoff.WithInitialInterval(time.Second)}, 4,
			[]time.Duration{time.Second, 3 * time.Second, 9 * time.Second}},
		{"ignored out-of-range values", []backoff.RetryOption{backoff.WithMultiplier(0.5), backoff.WithJitter(2), backoff.WithMaxAttempts(-1), backoff.WithInitialInterval(-time.Second), backoff.WithMaxElapsedTime(-1), backoff.WithClock(nil), backoff.WithRetryable(nil), nil}, backoff.DefaultMaxAttempts,
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := backofftest.NewAutoClock(epoch)
			calls := 0
			opts := append([]backoff.RetryOption{backoff.WithClock(clock), backoff.WithJitter(0)}, tc.opts...)
			err := backoff.Retry(context.Background(), func(context.Context) error { calls++; return refused }, opts...)
			assert.Equal(t, tc.wantCalls, calls)
			assert.Equal(t, tc.wantWaits, clock.Waits())
			assert.ErrorIs(t, err, refused)
			assert.Contains(t, err.Error(), fmt.Sprintf("give up after %d attempts", tc.wantCalls))
		})
	}
}

func TestRetryContext(t *testing.T) {
	t.Run("canceled during a wait", func(t *testing.T) {
		clock := backofftest.NewClock(epoch) // never advanced: only ctx ends the wait
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		err := backoff.Retry(ctx, func(context.Context) error { calls++; return outage },
			backoff.WithClock(clock),
			backoff.WithNotify(func(error, int, time.Duration) { cancel() }),
		)
		assert.Equal(t, 1, calls)
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, outage, "the last failure stays reachable")
		assert.False(t, pdnserrors.IsRetryable(err))
		assert.Equal(t, 0, clock.Pending(), "the timer is stopped")
	})
	t.Run("canceled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		err := backoff.Retry(ctx, failing(&calls), backoff.WithClock(backofftest.NewAutoClock(epoch)))
		assert.Equal(t, 0, calls)
		assert.ErrorIs(t, err, context.Canceled)
	})
	t.Run("operation fails because ctx ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		opErr := fmt.Errorf("get zone: %w", context.DeadlineExceeded) // retryable on its own
		err := backoff.Retry(ctx, func(context.Context) error { calls++; cancel(); return opErr },
			backoff.WithClock(backofftest.NewAutoClock(epoch)))
		assert.Equal(t, 1, calls)
		assert.Same(t, opErr, err)
	})
	t.Run("ctx passed to op", func(t *testing.T) {
		type key struct{}
		ctx := context.WithValue(context.Background(), key{}, "v")
		err := backoff.Retry(ctx, func(ctx context.Context) error {
			assert.Equal(t, "v", ctx.Value(key{}))
			return nil
		})
		assert.NoError(t, err)
	})
}

func TestRetryClassifierAndPermanent(t *testing.T) {
	t.Run("custom classifier", func(t *testing.T) {
		clock := backofftest.NewAutoClock(epoch)
		calls := 0
		err := backoff.Retry(context.Background(), failing(&calls, conflict, conflict),
			backoff.WithClock(clock),
			backoff.WithRetryable(pdnserrors.IsConflict))
		assert.NoError(t, err)
		assert.Equal(t, 3, calls)
	})
	t.Run("permanent marker", func(t *testing.T) {
		clock := backofftest.NewAutoClock(epoch)
		calls := 0
		err := backoff.Retry(context.Background(), failing(&calls, backoff.Permanent(outage)), backoff.WithClock(clock))
		assert.Equal(t, 1, calls)
		assert.Same(t, outage, err)
		assert.NoError(t, backoff.Permanent(nil))
	})
	t.Run("nil operation", func(t *testing.T) {
		assert.ErrorIs(t, backoff.Retry(context.Background(), nil), backoff.ErrNilOperation)
	})
}

func TestSystemClock(t *testing.T) {
	before := time.Now()
	assert.False(t, backoff.SystemClock.Now().Before(before))
	timer := backoff.SystemClock.NewTimer(0)
	<-timer.C()
	assert.False(t, timer.Stop())
	// A real wait of nothing: Retry runs on the wall clock too.
	calls := 0
	err := backoff.Retry(context.Background(), failing(&calls, outage), backoff.WithInitialInterval(time.Nanosecond))
	assert.NoError(t, err)
	assert.Equal(t, 2, calls)
}
