package backoff_test

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff"
)

// staticType returns the type an expression has at compile time, which is
// what decides whether it may be passed to a constructor.
func staticType[T any](T) reflect.Type { return reflect.TypeFor[T]() }

// TestOptionTypes checks, for every option, which constructors accept it:
// an option is assignable to a constructor's option type exactly when the
// constructor uses it, so that NewGate(3, time.Minute,
// backoff.WithMaxAttempts(2)) does not compile. Both the type the option
// function declares and the type of the value it returns are checked, so
// that no type assertion reaches a constructor the option does not apply to
// either.
func TestOptionTypes(t *testing.T) {
	var (
		retry   = reflect.TypeFor[backoff.RetryOption]()
		requeue = reflect.TypeFor[backoff.RequeueOption]()
		gate    = reflect.TypeFor[backoff.GateOption]()
	)
	type takes struct{ retry, requeue, gate bool }
	notify := func(error, int, time.Duration) {}
	for _, tc := range []struct {
		name   string
		static reflect.Type
		value  any
		takes  takes
	}{
		{"WithClock", staticType(backoff.WithClock(nil)), backoff.WithClock(nil), takes{true, true, true}},
		{"WithRetryable", staticType(backoff.WithRetryable(nil)), backoff.WithRetryable(nil), takes{true, true, false}},
		{"WithInitialInterval", staticType(backoff.WithInitialInterval(1)), backoff.WithInitialInterval(1), takes{true, true, false}},
		{"WithMaxInterval", staticType(backoff.WithMaxInterval(1)), backoff.WithMaxInterval(1), takes{true, true, false}},
		{"WithMultiplier", staticType(backoff.WithMultiplier(2)), backoff.WithMultiplier(2), takes{true, true, false}},
		{"WithJitter", staticType(backoff.WithJitter(0)), backoff.WithJitter(0), takes{true, true, false}},
		{"WithMaxAttempts", staticType(backoff.WithMaxAttempts(2)), backoff.WithMaxAttempts(2), takes{true, false, false}},
		{"WithMaxElapsedTime", staticType(backoff.WithMaxElapsedTime(1)), backoff.WithMaxElapsedTime(1), takes{true, false, false}},
		{"WithNotify", staticType(backoff.WithNotify(notify)), backoff.WithNotify(notify), takes{true, false, false}},
		{"WithRefusalInterval", staticType(backoff.WithRefusalInterval(1)), backoff.WithRefusalInterval(1), takes{false, true, false}},
		{"WithStaleAfter", staticType(backoff.WithStaleAfter(1)), backoff.WithStaleAfter(1), takes{false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, typ := range []reflect.Type{tc.static, reflect.TypeOf(tc.value)} {
				got := takes{typ.AssignableTo(retry), typ.AssignableTo(requeue), typ.AssignableTo(gate)}
				assert.Equal(t, tc.takes, got, "%s: Retry, NewRequeue, NewGate", typ)
			}
		})
	}
}

// TestNilOptions checks that a nil option is skipped by every constructor.
func TestNilOptions(t *testing.T) {
	assert.NotPanics(t, func() {
		backoff.NewGate(1, 0, nil)
		backoff.NewRequeue(nil).After("k", nil)
		_ = backoff.Retry(t.Context(), func(context.Context) error { return nil }, nil)
	})
}

// TestCheckOptions checks that every value an option ignores is reported,
// naming the option, and that values in range are not.
func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retry   backoff.RetryOption // nil: not a RetryOption
		requeue backoff.RequeueOption
		gate    backoff.GateOption
		option  string // "" when in range
	}{
		{"multiplier below 1", backoff.WithMultiplier(0.5), backoff.WithMultiplier(0.5), nil, "WithMultiplier"},
		{"negative multiplier", backoff.WithMultiplier(-1), backoff.WithMultiplier(-1), nil, "WithMultiplier"},
		{"NaN multiplier", backoff.WithMultiplier(math.NaN()), backoff.WithMultiplier(math.NaN()), nil, "WithMultiplier"},
		{"infinite multiplier", backoff.WithMultiplier(math.Inf(1)), backoff.WithMultiplier(math.Inf(1)), nil, "WithMultiplier"},
		{"multiplier 1", backoff.WithMultiplier(1), backoff.WithMultiplier(1), nil, ""},
		{"jitter above 1", backoff.WithJitter(5), backoff.WithJitter(5), nil, "WithJitter"},
		{"negative jitter", backoff.WithJitter(-0.1), backoff.WithJitter(-0.1), nil, "WithJitter"},
		{"NaN jitter", backoff.WithJitter(math.NaN()), backoff.WithJitter(math.NaN()), nil, "WithJitter"},
		{"jitter 0", backoff.WithJitter(0), backoff.WithJitter(0), nil, ""},
		{"jitter 1", backoff.WithJitter(1), backoff.WithJitter(1), nil, ""},
		{"negative initial interval", backoff.WithInitialInterval(-time.Second), backoff.WithInitialInterval(-time.Second), nil, "WithInitialInterval"},
		{"zero initial interval", backoff.WithInitialInterval(0), backoff.WithInitialInterval(0), nil, "WithInitialInterval"},
		{"negative max interval", backoff.WithMaxInterval(-time.Second), backoff.WithMaxInterval(-time.Second), nil, "WithMaxInterval"},
		{"zero max interval", backoff.WithMaxInterval(0), backoff.WithMaxInterval(0), nil, "WithMaxInterval"},
		{"nil clock", backoff.WithClock(nil), backoff.WithClock(nil), backoff.WithClock(nil), "WithClock"},
		{"nil classifier", backoff.WithRetryable(nil), backoff.WithRetryable(nil), nil, "WithRetryable"},
		{"negative attempts", backoff.WithMaxAttempts(-1), nil, nil, "WithMaxAttempts"},
		{"unbounded attempts", backoff.WithMaxAttempts(0), nil, nil, ""},
		{"negative elapsed time", backoff.WithMaxElapsedTime(-time.Second), nil, nil, "WithMaxElapsedTime"},
		{"unbounded elapsed time", backoff.WithMaxElapsedTime(0), nil, nil, ""},
		{"nil notify", backoff.WithNotify(nil), nil, nil, ""},
		{"negative refusal interval", nil, backoff.WithRefusalInterval(-time.Minute), nil, "WithRefusalInterval"},
		{"zero refusal interval", nil, backoff.WithRefusalInterval(0), nil, "WithRefusalInterval"},
		{"negative stale bound", nil, nil, backoff.WithStaleAfter(-time.Hour), "WithStaleAfter"},
		{"zero stale bound", nil, nil, backoff.WithStaleAfter(0), "WithStaleAfter"},
		{"stale bound of a second", nil, nil, backoff.WithStaleAfter(time.Second), ""},
		{"clock for a gate", nil, nil, backoff.WithClock(backoff.SystemClock), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				if tc.option == "" {
					assert.NoError(t, err, what)
					return
				}
				var oe *backoff.OptionError
				require.ErrorAs(t, err, &oe, what)
				assert.Equal(t, tc.option, oe.Option, what)
				assert.NotEmpty(t, oe.Reason, what)
				assert.Contains(t, err.Error(), tc.option, what)
			}
			if tc.retry != nil {
				check("CheckRetryOptions", backoff.CheckRetryOptions(backoff.WithJitter(0), tc.retry, nil))
			}
			if tc.requeue != nil {
				check("CheckRequeueOptions", backoff.CheckRequeueOptions(tc.requeue))
			}
			if tc.gate != nil {
				check("CheckGateOptions", backoff.CheckGateOptions(tc.gate))
			}
		})
	}
	assert.NoError(t, backoff.CheckRetryOptions())
	assert.NoError(t, backoff.CheckRequeueOptions(nil))
	assert.NoError(t, backoff.CheckGateOptions(nil))
	var oe *backoff.OptionError
	require.ErrorAs(t, backoff.CheckRetryOptions(backoff.WithJitter(2), backoff.WithMultiplier(0)), &oe)
	assert.Equal(t, "WithJitter", oe.Option, "the first option out of range is reported")
}
