package reconcile

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// testReconciler is a Reconciler for tests that make no request.
func testReconciler(t *testing.T, opts ...Option) *Reconciler {
	t.Helper()
	r, err := New("http://127.0.0.1:9", append([]Option{WithManagedBy("me")}, opts...)...)
	require.NoError(t, err)
	return r
}

func TestRequeueAfter(t *testing.T) {
	rr := rrset.RRset{Name: "a." + testZone, Type: "A"}
	change := rrset.Change{Op: rrset.OpCreate, New: &rr}
	transient := &pdnserrors.APIError{StatusCode: 503}
	cases := []struct {
		name     string
		res      Result
		err      error
		lo, hi   time.Duration
		dry      bool
		resync   time.Duration
		deferals int
	}{
		{name: "in sync: resync, jittered", lo: 54 * time.Minute, hi: 66 * time.Minute, resync: time.Hour},
		{name: "in sync, resync off", lo: 0, hi: 0},
		{name: "blocked: the refusal interval", res: Result{Blocked: []conflict.Conflict{{Key: rr.Key()}}}, lo: 10 * time.Minute, hi: 10 * time.Minute},
		{name: "refused: the refusal interval", res: Result{Refused: []Refusal{{Change: change}}}, lo: 10 * time.Minute, hi: 10 * time.Minute},
		{name: "postponed: a second or two", res: Result{Postponed: []rrset.Change{change}}, lo: time.Second, hi: 2 * time.Second},
		{name: "deferred: the gate's pace", res: Result{Deferred: []Deferral{{RRset: rr, Reason: DeferGate}}}, lo: time.Minute, hi: time.Minute},
		{name: "upsert-only waits for nothing", res: Result{Deferred: []Deferral{{RRset: rr, Reason: DeferUpsertOnly}}}},
		{name: "bad input: never", err: &InputError{Zone: testZone, Err: errors.New("bad")}},
		{name: "transient: backs off", err: transient, lo: 800 * time.Millisecond, hi: 1200 * time.Millisecond},
		{name: "a dry run asks for nothing", res: Result{Blocked: []conflict.Conflict{{Key: rr.Key()}}}, dry: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := testReconciler(t, WithResync(c.resync))
			o := r.newOp("sync", testZone, intent{}, readScope{}, effectOf(!c.dry))
			o.res = c.res
			got := o.requeueAfter(c.err)
			assert.GreaterOrEqual(t, got, c.lo)
			assert.LessOrEqual(t, got, c.hi)
		})
	}
	t.Run("transient failures grow per key until a success", func(t *testing.T) {
		r := testReconciler(t)
		o := r.newOp("apply", testZone, intent{keys: []rrset.Key{rr.Key()}}, readScope{}, writes)
		first := o.requeueAfter(transient)
		second := o.requeueAfter(transient)
		assert.Greater(t, second, first)
		other := r.newOp("apply", testZone, intent{keys: []rrset.Key{{Name: "b." + testZone, Type: "A"}}}, readScope{}, writes)
		assert.LessOrEqual(t, other.requeueAfter(transient), 1200*time.Millisecond, "another object has its own streak")
		o.requeueAfter(nil)
		assert.LessOrEqual(t, o.requeueAfter(transient), 1200*time.Millisecond, "a success ends the streak")
	})
}

func TestJittered(t *testing.T) {
	for range 1000 {
		d := jittered(10*time.Minute, resyncJitter)
		assert.GreaterOrEqual(t, d, 9*time.Minute)
		assert.LessOrEqual(t, d, 11*time.Minute)
	}
	assert.Zero(t, jittered(0, resyncJitter))
	assert.Equal(t, time.Nanosecond, jittered(time.Nanosecond, resyncJitter))
}

func TestDeferPace(t *testing.T) {
	assert.Equal(t, time.Minute, testReconciler(t).deferPace(), "3 checks over 2 minutes")
	assert.Equal(t, minDeferPace, testReconciler(t, WithDeletionGate(1, 0)).deferPace())
	assert.Equal(t, 5*time.Minute, testReconciler(t, WithDeletionGate(1, 5*time.Minute)).deferPace())
}
