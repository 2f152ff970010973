package backoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	cb "github.com/cenkalti/backoff/v4"
)

// ErrNilOperation is returned by Retry when it is given no operation.
var ErrNilOperation = errors.New("backoff: nil operation")

// Retry calls op until it succeeds, fails permanently, or a bound is reached.
//
// A failure is transient when the classifier says so (pdnserrors.IsRetryable
// unless WithRetryable says otherwise): Retry waits a jittered, exponentially
// growing interval and tries again, at most DefaultMaxAttempts times within
// DefaultMaxElapsedTime unless options say otherwise. Any other failure is
// permanent: Retry returns it at once, as op returned it, so that callers can
// still branch on its type; so is an error wrapped with Permanent.
//
// ctx is passed to op and honoured at every wait: when it ends, Retry returns
// an error that matches both ctx's error and op's last error with errors.Is
// and errors.As. When the bounds are reached, the error wraps op's last one.
func Retry(ctx context.Context, op func(ctx context.Context) error, opts ...RetryOption) error {
	if op == nil {
		return ErrNilOperation
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cfg := retryConfig(opts)

	var b cb.BackOff = &cb.ExponentialBackOff{
		InitialInterval:     cfg.initial,
		RandomizationFactor: cfg.jitter,
		Multiplier:          cfg.multiplier,
		MaxInterval:         cfg.max,
		MaxElapsedTime:      cfg.maxElapsed,
		Stop:                cb.Stop,
		Clock:               cfg.clock,
	}
	if cfg.maxAttempts > 0 {
		b = cb.WithMaxRetries(b, uint64(cfg.maxAttempts-1))
	}
	b = cb.WithContext(b, ctx)

	var (
		attempts  int
		last      error
		permanent bool
	)
	attempt := func() error {
		attempts++
		err := op(ctx)
		if err == nil {
			return nil
		}
		last = err
		var marked *cb.PermanentError
		switch {
		case errors.As(err, &marked):
			permanent = true
			return err
		case ctx.Err() != nil, !cfg.retryable(err):
			// Once ctx is over, op's failure is most likely its
			// consequence: report it as it is.
			permanent = true
			return cb.Permanent(err)
		}
		return err
	}
	var notify cb.Notify
	if cfg.notify != nil {
		notify = func(err error, wait time.Duration) { cfg.notify(err, attempts, wait) }
	}
	start := cfg.clock.Now()

	err := cb.RetryNotifyWithTimer(attempt, b, notify, &cbTimer{clock: cfg.clock})
	switch {
	case err == nil, permanent:
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("stop retrying after %d attempts: %w (last error: %w)", attempts, ctx.Err(), last)
	default:
		return fmt.Errorf("give up after %d attempts in %s: %w", attempts, cfg.clock.Now().Sub(start).Round(time.Millisecond), last)
	}
}

// Permanent marks err as not worth retrying whatever the classifier says:
// Retry returns err (unwrapped) after the attempt that returned it.
// Permanent(nil) is nil.
func Permanent(err error) error {
	return cb.Permanent(err)
}
