package reconcile

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/backoff/backofftest"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// TestGateObserver: one observation per key per operation, however often
// decide asks; a dry run observes nothing.
func TestGateObserver(t *testing.T) {
	clock := backofftest.NewClock(time.Unix(0, 0))
	r := testReconciler(t, WithClock(clock), WithDeletionGate(2, time.Minute))
	mem := r.memory(testZone)
	k := rrset.Key{Name: "a." + testZone, Type: "A"}

	obs := mem.observer(r.cfg, writes)
	assert.False(t, obs.sustained(k))
	assert.False(t, obs.sustained(k), "asked again: the same answer, no second observation")
	clock.Advance(time.Minute)
	dry := mem.observer(r.cfg, dryRun)
	assert.False(t, dry.sustained(k), "a dry run does not observe")
	obs = mem.observer(r.cfg, writes)
	assert.True(t, obs.sustained(k), "second observation, a minute later")

	obs.settle([]rrset.Key{k})
	assert.False(t, mem.observer(r.cfg, dryRun).sustained(k), "ended")

	open := testReconciler(t, WithDeletionGate(1, 0))
	assert.True(t, open.memory(testZone).observer(open.cfg, false).sustained(k), "a gate that opens at once")
}

// TestRefusalMemory: a refused change is remembered against the data at its
// name; a change of either forgets it, and keepRefusals drops memos that
// no longer stand, within the operation's scope only.
func TestRefusalMemory(t *testing.T) {
	r := testReconciler(t)
	mem := r.memory(testZone)
	cname := rr(t, "me", "www", "CNAME", "@")
	a := rr(t, "them", "www", "A", "192.0.2.1")
	live := setOf(t, a)
	c := rrset.Change{Op: rrset.OpCreate, New: &cname}
	problems := []pdnserrors.Problem{{Reason: pdnserrors.Conflict, Message: "Conflicts with pre-existing RRset"}}
	mem.remember([]rrset.Change{c}, problems, live)

	got, ok := mem.refused(c, live)
	assert.True(t, ok)
	assert.Equal(t, problems, got)
	_, ok = mem.refused(c, setOf(t, rr(t, "them", "www", "A", "192.0.2.2")))
	assert.False(t, ok, "the data at the name changed")
	other := rr(t, "me", "www", "CNAME", "other.example.net.")
	_, ok = mem.refused(rrset.Change{Op: rrset.OpCreate, New: &other}, live)
	assert.False(t, ok, "the change changed")

	mem.keepRefusals(func(rrset.Key) bool { return false }, nil)
	_, ok = mem.refused(c, live)
	assert.True(t, ok, "out of scope: kept")
	mem.keepRefusals(func(rrset.Key) bool { return true }, []Refusal{{Change: c}})
	_, ok = mem.refused(c, live)
	assert.True(t, ok, "still current: kept")
	mem.keepRefusals(func(rrset.Key) bool { return true }, nil)
	_, ok = mem.refused(c, live)
	assert.False(t, ok, "no longer planned: forgotten")
}

func TestForget(t *testing.T) {
	r := testReconciler(t)
	mem := r.memory(testZone)
	a := rr(t, "me", "a", "A", "192.0.2.1")
	mem.saw(obsOf(t, a), readScope{})
	mem.remember([]rrset.Change{{Op: rrset.OpDelete, Old: &a}}, nil, setOf(t))
	r.Forget("EXAMPLE.com")
	assert.False(t, mem.whole)
	assert.Empty(t, mem.known)
	assert.Empty(t, mem.refusals)
	r.Forget("not a zone..")
	r.Forget("never.seen.")
}

// TestKnownKeys: what the Reconciler saw live, and where it looked,
// decides whether an operation expects to create, and so takes the lock
// before it reads.
func TestKnownKeys(t *testing.T) {
	r := testReconciler(t)
	mem := r.memory(testZone)
	a, b := rr(t, "me", "a", "A", "192.0.2.1"), rr(t, "me", "b", "A", "192.0.2.1")
	aaaa := rr(t, "me", "a", "AAAA", "2001:db8::1")
	assert.False(t, mem.knownAbsent(setOf(t, a)), "never read: guessed present")
	mem.saw(obsOf(t), readScope{name: a.Name, typ: "A"})
	assert.False(t, mem.knownAbsent(setOf(t, aaaa)), "a read of one type says nothing of another")
	mem.saw(obsOf(t, a), readScope{name: a.Name})
	assert.False(t, mem.knownAbsent(setOf(t, a)))
	assert.True(t, mem.knownAbsent(setOf(t, aaaa)), "its name was read, every type")
	assert.False(t, mem.knownAbsent(setOf(t, b)), "a name never read: guessed present")
	mem.saw(obsOf(t, a), readScope{})
	assert.False(t, mem.knownAbsent(setOf(t, a)))
	assert.True(t, mem.knownAbsent(setOf(t, a, b)), "the whole zone was read")
	mem.learn([]rrset.Change{{Op: rrset.OpCreate, New: &b}})
	assert.False(t, mem.knownAbsent(setOf(t, a, b)))
	mem.learn([]rrset.Change{{Op: rrset.OpDelete, Old: &a}})
	assert.True(t, mem.knownAbsent(setOf(t, a)))
	mem.saw(obsOf(t, a), readScope{name: a.Name})
	assert.False(t, mem.knownAbsent(setOf(t, a, b)), "a read of one name adds to what is known")
	mem.saw(obsOf(t), readScope{})
	assert.True(t, mem.knownAbsent(setOf(t, b)), "a whole read replaces it")

	o := r.newOp("sync", testZone, intent{desired: setOf(t, b)}, readScope{}, writes)
	assert.True(t, o.expectsCreate())
	o = r.newOp("remove", testZone, intent{desired: setOf(t)}, readScope{}, writes)
	assert.False(t, o.expectsCreate(), "a delete never creates")
	o = r.newOp("plan", testZone, intent{desired: setOf(t, b)}, readScope{}, dryRun)
	assert.False(t, o.expectsCreate(), "a dry run never writes")
	r.Forget(testZone)
	o = r.newOp("sync", testZone, intent{desired: setOf(t, b)}, readScope{}, writes)
	assert.False(t, o.expectsCreate(), "forgotten: nothing known")
}

// TestDeletionGateSchedule: the default deletion gate (3 syncs over 2
// minutes) opens 2 minutes after the first sync that finds a key absent,
// whether the syncs come at the pace the Reconciler requeues at or more
// often; syncs in a burst count once.
func TestDeletionGateSchedule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
	}{
		{"at the requeue pace", 0}, // deferPace
		{"every 20 s", 20 * time.Second},
		{"every 30 s", 30 * time.Second},
		{"every second", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Unix(0, 0)
			clock := backofftest.NewClock(start)
			r := testReconciler(t, WithClock(clock))
			every := tc.every
			if every == 0 {
				every = r.deferPace()
			}
			mem := r.memory(testZone)
			k := rrset.Key{Name: "a." + testZone, Type: "A"}
			var opened time.Duration
			for clock.Now().Sub(start) <= 10*time.Minute {
				// A burst: the sync and two re-syncs right after it.
				open := mem.observer(r.cfg, true).sustained(k)
				for range 2 {
					open = mem.observer(r.cfg, true).sustained(k) || open
				}
				if open {
					opened = clock.Now().Sub(start)
					break
				}
				clock.Advance(every)
			}
			assert.Equal(t, DefaultDeleteSpan, opened, "opened after")
		})
	}
}
