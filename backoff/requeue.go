package backoff

import (
	"sync"
	"time"

	cb "github.com/cenkalti/backoff/v4"
)

// Requeue tells a controller when to reconcile an object again after an
// attempt, keyed by whatever names the object (a namespaced name, a zone).
//
//   - After a permanent failure (a conflict or any other refusal) it answers
//     the refusal interval, DefaultRefusalInterval unless set otherwise:
//     trying sooner cannot help and is what turns a refusal into a hot loop.
//   - After transient failures it answers waits that grow exponentially per
//     key, from DefaultRequeueInitialInterval to DefaultRequeueMaxInterval,
//     with jitter.
//   - After a success it forgets the key and answers 0.
//
// A controller should return the answer as its requeue delay and not return
// the error itself, which would put the object on the controller's own
// error-rate-limited queue as well. A Requeue is safe for concurrent use.
type Requeue struct {
	cfg  config
	mu   sync.Mutex
	keys map[string]*streakBackOff
}

// streakBackOff is a key's run of transient failures.
type streakBackOff struct {
	b        cb.ExponentialBackOff
	failures int
}

// NewRequeue returns a Requeue. It takes WithRefusalInterval,
// WithInitialInterval, WithMaxInterval, WithMultiplier, WithJitter,
// WithRetryable and WithClock.
func NewRequeue(opts ...RequeueOption) *Requeue {
	return &Requeue{cfg: requeueConfig(opts), keys: make(map[string]*streakBackOff)}
}

// After records how the last attempt for key ended and returns how long to
// wait before the next one. It returns 0 after a success: nothing to try
// again.
func (r *Requeue) After(key string, err error) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		delete(r.keys, key)
		return 0
	}
	if !r.cfg.retryable(err) {
		// The server answered: whatever was transient is over.
		delete(r.keys, key)
		return r.cfg.refusal
	}
	s, ok := r.keys[key]
	if !ok {
		s = &streakBackOff{b: cb.ExponentialBackOff{
			InitialInterval:     r.cfg.initial,
			RandomizationFactor: r.cfg.jitter,
			Multiplier:          r.cfg.multiplier,
			MaxInterval:         r.cfg.max,
			Stop:                cb.Stop,
			Clock:               r.cfg.clock,
		}}
		s.b.Reset()
		r.keys[key] = s
	}
	s.failures++
	// The jitter of cenkalti/backoff may draw above MaxInterval; the cap is
	// a promise to operators, so it holds for the drawn wait too.
	return min(s.b.NextBackOff(), r.cfg.max)
}

// Failures returns how many transient failures in a row key has had since
// its last success or refusal.
func (r *Requeue) Failures(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.keys[key]; ok {
		return s.failures
	}
	return 0
}

// Forget drops what is known about key, as a success would. Call it when
// the object is deleted, so that memory stays bounded by the live objects.
func (r *Requeue) Forget(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.keys, key)
}

// Len returns how many keys are in a streak of transient failures.
func (r *Requeue) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.keys)
}
