package backoff

import (
	"time"

	cb "github.com/cenkalti/backoff/v4"
)

// Clock is the package's source of time. Retry waits on its timers, the
// Gate reads its Now; a test passes a fake (package backofftest) so that it
// never sleeps.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer of a Clock.
type Timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped it.
	Stop() bool
}

// SystemClock is the wall clock.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }

// cbTimer lets cenkalti/backoff wait on a Clock's timers.
type cbTimer struct {
	clock Clock
	t     Timer
}

var _ cb.Timer = (*cbTimer)(nil)

func (a *cbTimer) Start(d time.Duration) {
	if a.t != nil {
		a.t.Stop()
	}
	a.t = a.clock.NewTimer(d)
}

func (a *cbTimer) Stop() {
	if a.t != nil {
		a.t.Stop()
	}
}

func (a *cbTimer) C() <-chan time.Time { return a.t.C() }
