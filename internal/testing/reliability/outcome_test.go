package reliability

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestOutcomeRoundTrip(t *testing.T) {
	o := Outcome{Group: "proxy", Fault: "zone GET | 503", Server: "pdns-5.1.5-gsqlite3", Result: "retryable", Attempts: 3, Elapsed: time.Second}
	rec := &recordingTB{TB: t}
	Record(rec, o)
	got, ok := ParseOutcome("    file_test.go:12: " + rec.logged)
	assert.True(t, ok)
	assert.Equal(t, o, got)
	_, ok = ParseOutcome("--- PASS: TestX")
	assert.False(t, ok)
}

// recordingTB keeps what Record logs.
type recordingTB struct {
	testing.TB
	logged string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Log(args ...any) {
	if len(args) == 1 {
		r.logged, _ = args[0].(string)
	}
}
