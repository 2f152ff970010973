package backoff

import (
	"fmt"
	"math"
	"time"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// Defaults of Retry.
const (
	// DefaultMaxAttempts bounds the attempts of one Retry, the first included.
	DefaultMaxAttempts = 5
	// DefaultMaxElapsedTime bounds the time one Retry spends: no wait starts
	// that would end past it.
	DefaultMaxElapsedTime = time.Minute
	// DefaultInitialInterval is the first wait of Retry.
	DefaultInitialInterval = 500 * time.Millisecond
	// DefaultMaxInterval caps the nominal wait of Retry.
	DefaultMaxInterval = 30 * time.Second
	// DefaultMultiplier is how much each wait grows over the last.
	DefaultMultiplier = 2.0
	// DefaultJitter is the fraction by which Retry draws each wait at random
	// around its nominal value, so that many clients do not retry in step.
	DefaultJitter = 0.5
)

// Defaults of Requeue.
const (
	// DefaultRefusalInterval is how long a controller waits before trying
	// again something PowerDNS refused. It is long, because only a change of
	// the desired state or of the other writer's data can help.
	DefaultRefusalInterval = 10 * time.Minute
	// DefaultRequeueInitialInterval is the first wait after a transient
	// failure.
	DefaultRequeueInitialInterval = time.Second
	// DefaultRequeueMaxInterval caps the wait after transient failures.
	DefaultRequeueMaxInterval = 5 * time.Minute
	// DefaultRequeueJitter is the fraction by which Requeue draws each
	// transient wait at random below or above its nominal value.
	DefaultRequeueJitter = 0.2
)

// Defaults of Gate.
const (
	// DefaultSustainChecks is how many consecutive checks must observe a
	// condition before the Gate opens.
	DefaultSustainChecks = 3
	// DefaultSustainSpan is how long those checks must span.
	DefaultSustainSpan = 5 * time.Minute
	// DefaultStaleAfter is how long past due the next check of a stored
	// streak may be before Resume starts the streak again (see
	// WithStaleAfter). An hour is six times a controller's usual 10-minute
	// resync, with room for a restart, so that a controller checking at its
	// slowest usual pace keeps its streaks; a streak restored from a backup
	// or re-applied from a dump made hours or a year ago does not count.
	DefaultStaleAfter = time.Hour
)

// RetryOption adjusts Retry.
type RetryOption interface{ applyRetry(*config) }

// RequeueOption adjusts NewRequeue.
type RequeueOption interface{ applyRequeue(*config) }

// GateOption adjusts NewGate.
type GateOption interface{ applyGate(*config) }

// RetryRequeueOption adjusts Retry and NewRequeue alike.
type RetryRequeueOption interface {
	RetryOption
	RequeueOption
}

// Option adjusts Retry, NewRequeue and NewGate alike.
type Option interface {
	RetryOption
	RequeueOption
	GateOption
}

// One type per set of constructors an option applies to, so that an
// option's dynamic type cannot be asserted to a constructor it does not
// apply to either.
type (
	retryOnly    func(*config)
	requeueOnly  func(*config)
	retryRequeue func(*config)
	gateOnly     func(*config)
	everywhere   func(*config)
)

func (f retryOnly) applyRetry(c *config)      { f(c) }
func (f requeueOnly) applyRequeue(c *config)  { f(c) }
func (f retryRequeue) applyRetry(c *config)   { f(c) }
func (f retryRequeue) applyRequeue(c *config) { f(c) }
func (f gateOnly) applyGate(c *config)        { f(c) }
func (f everywhere) applyRetry(c *config)     { f(c) }
func (f everywhere) applyRequeue(c *config)   { f(c) }
func (f everywhere) applyGate(c *config)      { f(c) }

var (
	_ RetryOption        = retryOnly(nil)
	_ RequeueOption      = requeueOnly(nil)
	_ RetryRequeueOption = retryRequeue(nil)
	_ GateOption         = gateOnly(nil)
	_ Option             = everywhere(nil)
)

type config struct {
	clock       Clock
	retryable   func(error) bool
	initial     time.Duration
	max         time.Duration
	multiplier  float64
	jitter      float64
	maxAttempts int
	maxElapsed  time.Duration
	refusal     time.Duration
	staleAfter  time.Duration
	notify      func(err error, attempt int, wait time.Duration)

	// bad is the first option whose value was out of range and ignored.
	bad *OptionError
}

// refuse records that option's value is out of range; the first such
// option is the one the Check functions report.
func (c *config) refuse(option, reason string) {
	if c.bad == nil {
		c.bad = &OptionError{Option: option, Reason: reason}
	}
}

// OptionError is an option given a value out of its range, as
// CheckRetryOptions, CheckRequeueOptions and CheckGateOptions report it.
// Retry, NewRequeue and NewGate ignore such a value and keep the default.
type OptionError struct {
	// Option names the option, such as "WithJitter".
	Option string
	// Reason says what is wrong with its value.
	Reason string
}

func (e *OptionError) Error() string { return "backoff: " + e.Option + ": " + e.Reason }

// CheckRetryOptions reports the first of opts whose value is out of range,
// as an *OptionError, or nil when Retry would honour them all. Retry itself
// never fails on an option: it ignores such a value and keeps the default.
// Check options that come from users before handing them on.
func CheckRetryOptions(opts ...RetryOption) error {
	if c := retryConfig(opts); c.bad != nil {
		return c.bad
	}
	return nil
}

// CheckRequeueOptions reports the first of opts whose value is out of
// range, as an *OptionError, or nil when NewRequeue would honour them all.
// NewRequeue itself ignores such a value and keeps the default.
func CheckRequeueOptions(opts ...RequeueOption) error {
	if c := requeueConfig(opts); c.bad != nil {
		return c.bad
	}
	return nil
}

// CheckGateOptions reports the first of opts whose value is out of range,
// as an *OptionError, or nil when NewGate would honour them all. NewGate
// itself ignores such a value and keeps the default.
func CheckGateOptions(opts ...GateOption) error {
	if c := gateConfig(opts); c.bad != nil {
		return c.bad
	}
	return nil
}

func retryConfig(opts []RetryOption) config {
	c := config{
		clock:       SystemClock,
		retryable:   pdnserrors.IsRetryable,
		initial:     DefaultInitialInterval,
		max:         DefaultMaxInterval,
		multiplier:  DefaultMultiplier,
		jitter:      DefaultJitter,
		maxAttempts: DefaultMaxAttempts,
		maxElapsed:  DefaultMaxElapsedTime,
	}
	for _, o := range opts {
		if o != nil {
			o.applyRetry(&c)
		}
	}
	return c.bounded()
}

func requeueConfig(opts []RequeueOption) config {
	c := config{
		clock:      SystemClock,
		retryable:  pdnserrors.IsRetryable,
		initial:    DefaultRequeueInitialInterval,
		max:        DefaultRequeueMaxInterval,
		multiplier: DefaultMultiplier,
		jitter:     DefaultRequeueJitter,
		refusal:    DefaultRefusalInterval,
	}
	for _, o := range opts {
		if o != nil {
			o.applyRequeue(&c)
		}
	}
	return c.bounded()
}

func gateConfig(opts []GateOption) config {
	c := config{clock: SystemClock, staleAfter: DefaultStaleAfter}
	for _, o := range opts {
		if o != nil {
			o.applyGate(&c)
		}
	}
	return c
}

// bounded keeps the wait cap at or above the first wait.
func (c config) bounded() config {
	if c.max < c.initial {
		c.max = c.initial
	}
	return c
}

// WithClock sets the source of time (Retry, NewRequeue, NewGate); nil is
// out of range. A Gate's Next is a time on this clock; NextIn gives it as a
// duration.
func WithClock(clock Clock) Option {
	return everywhere(func(c *config) {
		if clock == nil {
			c.refuse("WithClock", "nil clock")
			return
		}
		c.clock = clock
	})
}

// WithRetryable sets what counts as transient (Retry, NewRequeue); nil is
// out of range. The default is pdnserrors.IsRetryable: 5xx answers and
// failures to reach the server are transient, every refusal is permanent.
func WithRetryable(retryable func(error) bool) RetryRequeueOption {
	return retryRequeue(func(c *config) {
		if retryable == nil {
			c.refuse("WithRetryable", "nil classifier")
			return
		}
		c.retryable = retryable
	})
}

// WithInitialInterval sets the first wait after a transient failure (Retry,
// NewRequeue); it must be positive.
func WithInitialInterval(d time.Duration) RetryRequeueOption {
	return retryRequeue(func(c *config) {
		if d <= 0 {
			c.refuse("WithInitialInterval", fmt.Sprintf("%s is not positive", d))
			return
		}
		c.initial = d
	})
}

// WithMaxInterval caps the nominal wait after transient failures (Retry,
// NewRequeue); it must be positive. A cap below the first wait is raised to
// it.
func WithMaxInterval(d time.Duration) RetryRequeueOption {
	return retryRequeue(func(c *config) {
		if d <= 0 {
			c.refuse("WithMaxInterval", fmt.Sprintf("%s is not positive", d))
			return
		}
		c.max = d
	})
}

// WithMultiplier sets how much each wait grows over the last, at least 1
// and finite (Retry, NewRequeue).
func WithMultiplier(m float64) RetryRequeueOption {
	return retryRequeue(func(c *config) {
		if !(m >= 1) || math.IsInf(m, 0) {
			c.refuse("WithMultiplier", fmt.Sprintf("%v is not a finite number of at least 1", m))
			return
		}
		c.multiplier = m
	})
}

// WithJitter sets the fraction, from 0 to 1, by which each wait is drawn at
// random around its nominal value (Retry, NewRequeue). 0 makes waits exact.
func WithJitter(f float64) RetryRequeueOption {
	return retryRequeue(func(c *config) {
		if !(f >= 0 && f <= 1) {
			c.refuse("WithJitter", fmt.Sprintf("%v is not from 0 to 1", f))
			return
		}
		c.jitter = f
	})
}

// WithMaxAttempts bounds the attempts of one Retry, the first included; 0
// removes the bound, leaving the elapsed-time bound and the context. A
// negative n is out of range.
func WithMaxAttempts(n int) RetryOption {
	return retryOnly(func(c *config) {
		if n < 0 {
			c.refuse("WithMaxAttempts", fmt.Sprintf("%d is negative", n))
			return
		}
		c.maxAttempts = n
	})
}

// WithMaxElapsedTime bounds the time one Retry spends (Retry); 0 removes the
// bound, leaving the attempt bound and the context. A negative d is out of
// range.
func WithMaxElapsedTime(d time.Duration) RetryOption {
	return retryOnly(func(c *config) {
		if d < 0 {
			c.refuse("WithMaxElapsedTime", fmt.Sprintf("%s is negative", d))
			return
		}
		c.maxElapsed = d
	})
}

// WithRefusalInterval sets the wait after a permanent failure (NewRequeue);
// it must be positive.
func WithRefusalInterval(d time.Duration) RequeueOption {
	return requeueOnly(func(c *config) {
		if d <= 0 {
			c.refuse("WithRefusalInterval", fmt.Sprintf("%s is not positive", d))
			return
		}
		c.refusal = d
	})
}

// WithStaleAfter sets how long past due the next check of a stored streak
// may be before the Gate starts the streak again (NewGate): Resume,
// Restore and ObserveStored drop a streak whose next check (Next) is more
// than d before now, since the checks that would have made it a sustained
// condition, consecutive checks, did not come. DefaultStaleAfter by
// default; d must be positive. Streaks the Gate holds in memory are judged
// by their checks alone.
func WithStaleAfter(d time.Duration) GateOption {
	return gateOnly(func(c *config) {
		if d <= 0 {
			c.refuse("WithStaleAfter", fmt.Sprintf("%s is not positive", d))
			return
		}
		c.staleAfter = d
	})
}

// WithNotify has Retry call fn after each failed attempt that will be
// retried: the place to log or count retries. fn gets the attempt's error,
// its number (from 1) and the wait before the next one.
func WithNotify(fn func(err error, attempt int, wait time.Duration)) RetryOption {
	return retryOnly(func(c *config) { c.notify = fn })
}
