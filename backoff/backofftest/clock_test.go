package backofftest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/backoff/backofftest"
)

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func fired(ch <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestManualClock(t *testing.T) {
	c := backofftest.NewClock(epoch)
	short := c.NewTimer(time.Second)
	long := c.NewTimer(time.Minute)
	stopped := c.NewTimer(time.Second)
	assert.Equal(t, 3, c.Pending())
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop())

	c.Advance(time.Second)
	assert.Equal(t, epoch.Add(time.Second), c.Now())
	assert.True(t, fired(short.C()))
	assert.False(t, fired(long.C()))
	assert.False(t, fired(stopped.C()))
	assert.False(t, short.Stop(), "already fired")

	c.Advance(time.Hour)
	assert.True(t, fired(long.C()))
	assert.Equal(t, 0, c.Pending())

	now := c.NewTimer(0)
	assert.True(t, fired(now.C()))
	c.Advance(-time.Hour)
	assert.Equal(t, epoch.Add(time.Hour+time.Second), c.Now(), "time never goes back")
	assert.Equal(t, []time.Duration{time.Second, time.Minute, time.Second, 0}, c.Waits())
}

func TestAutoClock(t *testing.T) {
	c := backofftest.NewAutoClock(epoch)
	a := c.NewTimer(time.Second)
	assert.True(t, fired(a.C()))
	b := c.NewTimer(2 * time.Second)
	assert.True(t, fired(b.C()))
	assert.Equal(t, epoch.Add(3*time.Second), c.Now())
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, c.Waits())
	assert.Equal(t, 0, c.Pending())
}
