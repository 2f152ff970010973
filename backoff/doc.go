// Package backoff decides when to try again, and when a condition has
// lasted long enough to act on. It retries transient failures with jittered
// exponential backoff and stops at once on permanent ones; it gives
// controllers requeue hints that never turn a refusal into a hot loop; and
// it offers a sustained-condition gate (Gate) that a caller consults before
// acting on an observation that might be a one-off, such as deleting
// records whose names vanished from one read.
//
// The package is pure: time comes through a Clock, so tests never sleep.
//
// Each constructor takes its own option type, so that an option it would
// ignore does not compile: Retry takes RetryOption, NewRequeue
// RequeueOption, NewGate GateOption. An option that several of them take
// has a type that is each of theirs: WithClock returns an Option (all
// three); the options on waiting out transient failures return a
// RetryRequeueOption (Retry and NewRequeue). At the call site nothing
// changes but what compiles:
//
//	backoff.Retry(ctx, op, backoff.WithClock(c), backoff.WithMaxAttempts(3)) // compiles
//	backoff.NewGate(3, time.Minute, backoff.WithMaxAttempts(2))              // does not
//
// A slice of options is typed for the constructor it is for:
// []backoff.RetryOption{backoff.WithClock(c), backoff.WithJitter(0)}.
// Values out of range (negative durations, a jitter outside 0 to 1, NaN,
// each option's doc says its range) are ignored and the default kept, so
// that the constructors never fail on an option; CheckRetryOptions and
// CheckRequeueOptions report them as an *OptionError, for options that come
// from users. A nil option is skipped.
package backoff
