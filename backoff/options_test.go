package backoff_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
