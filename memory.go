package reconcile

import (
	"slices"
	"sync"
	"time"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// zoneMemory is what a Reconciler remembers about one zone between
// operations, and the zone's schedule (schedule.go), which lets one
// operation of the zone write at a time. An operation on one name that
// finds the turn taken reads and decides beside it (op.decideBeside), so
// what both touch — the known, looked, blocked and refusal records, and the
// gate and requeue themselves — is guarded by mu; the gate and the requeue
// are safe for concurrent use on their own. The memo is a Sync's, read and
// changed in the turn only.
type zoneMemory struct {
	sched *schedule
	mu    sync.Mutex

	// absences are the deletion gate's streaks: per key of the writer's
	// RRsets absent from the desired state, on how many syncs and since
	// when.
	absences *backoff.Gate
	// refusals are the changes PowerDNS refused, not sent again while
	// nothing changes (memory_refusals.go).
	refusals map[string]refusalMemo
	// requeue paces the operations' RequeueAfter: the zone's Syncs under
	// the empty key, each Apply or Remove under its RRset's key.
	requeue *backoff.Requeue
	// known holds the keys (hashed) the Reconciler last saw live in the
	// zone; looked the names (hashed) it read one at a time, every type;
	// whole is set once it read the whole zone. Together they tell a key
	// known to be absent, which an operation expects to create
	// (op.expectsCreate), from a key it knows nothing of.
	known  map[uint64]struct{}
	looked map[uint64]struct{}
	whole  bool
	// blocked holds the keys (hashed) whose last write was blocked before
	// PowerDNS saw it: their next attempt reads first, since a read alone
	// decides a block, and takes the lock only if the block is gone.
	blocked map[uint64]struct{}
	// memo is what the last Sync found when it had nothing to do, or nil.
	memo *syncMemo
	// desired is what the last Sync was given, live the last whole read
	// (memory_reuse.go); nil when there is none.
	desired *desiredMemo
	live    *liveMemo
}

func newZoneMemory(cfg config) *zoneMemory {
	m := &zoneMemory{sched: newSchedule(cfg.clock, cfg.holdPolicy())}
	m.reset(cfg)
	return m
}

// reset forgets everything but the schedule.
func (m *zoneMemory) reset(cfg config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.absences = backoff.NewGate(cfg.deleteChecks, cfg.deleteSpan, backoff.WithClock(cfg.clock))
	m.refusals = make(map[string]refusalMemo)
	m.requeue = backoff.NewRequeue(append([]backoff.RequeueOption{backoff.WithClock(cfg.clock)}, cfg.requeue...)...)
	m.known = make(map[uint64]struct{})
	m.looked = make(map[uint64]struct{})
	m.whole = false
	m.blocked = make(map[uint64]struct{})
	m.memo = nil
	m.desired, m.live = nil, nil
}

// keyHash hashes a key for the known set; nameHash a name for the looked
// set. FNV-1a, written out: these run for every RRset of every whole-zone
// read, where hash/fnv's interface costs an allocation each.
func keyHash(k rrset.Key) uint64 {
	h := fnv1a(fnvOffset, k.Name)
	// A zero byte between name and type, which neither holds: FNV-1a's
	// step for it is the XOR of 0, a no-op, and the multiply.
	h *= fnvPrime
	return fnv1a(h, k.Type)
}

func nameHash(name string) uint64 { return fnv1a(fnvOffset, name) }

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// saw records the keys of a read: a whole zone replaces what was known, the
// read of one name adds to it.
func (m *zoneMemory) saw(obs *observation, scope readScope) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case scope.whole():
		m.known = make(map[uint64]struct{}, obs.set.Len()+len(obs.disabled))
		m.looked = make(map[uint64]struct{})
		m.whole = true
	case scope.typ == "":
		m.looked[nameHash(scope.name)] = struct{}{}
	}
	for _, name := range slices.Concat(scope.names, scope.ancestors) {
		m.looked[nameHash(name)] = struct{}{}
	}
	for rr := range obs.set.Unordered() {
		m.known[keyHash(rr.Key())] = struct{}{}
	}
	for _, rr := range obs.disabled {
		m.known[keyHash(rr.Key())] = struct{}{}
	}
}

// learn records what a write created and deleted.
func (m *zoneMemory) learn(applied []rrset.Change) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range applied {
		if c.Op == rrset.OpDelete {
			delete(m.known, keyHash(c.Key()))
		} else {
			m.known[keyHash(c.Key())] = struct{}{}
		}
	}
}

// sawBlocked records which keys of desired a decision blocked, and that
// the others were not.
func (m *zoneMemory) sawBlocked(desired *rrset.Set, blocked []conflict.Conflict) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.blocked) > 0 && desired != nil {
		for rr := range desired.Unordered() {
			delete(m.blocked, keyHash(rr.Key()))
		}
	}
	for _, c := range blocked {
		m.blocked[keyHash(c.Key)] = struct{}{}
	}
}

// size reports how many keys the Reconciler knows live in the zone, and
// whether it has read the zone whole.
func (m *zoneMemory) size() (keys int, whole bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.known), m.whole
}

// blockedBefore reports whether the last decision on a key of desired
// blocked it.
func (m *zoneMemory) blockedBefore(desired *rrset.Set) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.blocked) == 0 || desired == nil {
		return false
	}
	for rr := range desired.Unordered() {
		if _, ok := m.blocked[keyHash(rr.Key())]; ok {
			return true
		}
	}
	return false
}

// knownAbsent reports whether a key of desired was absent when the
// Reconciler last read where it would be, and not written since. A key at a
// name it never read is not known absent: after a restart most of what a
// controller applies is there already; nor is a key whose last write was
// blocked.
func (m *zoneMemory) knownAbsent(desired *rrset.Set) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for rr := range desired.Unordered() {
		h := keyHash(rr.Key())
		if _, ok := m.known[h]; ok {
			continue
		}
		if _, ok := m.blocked[h]; ok {
			continue
		}
		if _, ok := m.looked[nameHash(rr.Name)]; m.whole || ok {
			return true
		}
	}
	return false
}

// gateIdle is how long a deletion-gate streak may go unobserved before it is
// dropped: far beyond any sensible gate span, so only streaks of names
// nobody syncs any more go.
const gateIdle = 24 * time.Hour

// absenceKey keys a gate streak.
func absenceKey(k rrset.Key) string { return k.Name + " " + k.Type }

// gateObserver answers decide's question "may this absent RRset be deleted
// now?" for one operation: it records one observation per key in the
// deletion gate the first time it is asked, and gives the same answer when
// a re-read under the lock asks again, so that a key is counted once per
// operation whatever path planned its delete.
type gateObserver struct {
	gate    *backoff.Gate
	answers map[rrset.Key]bool
	// writes is false for a dry run (Plan), which observes nothing: a
	// delete then passes only where the gate is open already.
	writes bool
	// open is true when the gate opens on a first observation.
	open bool
}

func (m *zoneMemory) observer(cfg config, eff effect) *gateObserver {
	m.mu.Lock()
	absences := m.absences
	m.mu.Unlock()
	if eff == writes {
		absences.ForgetIdle(gateIdle)
	}
	return &gateObserver{
		gate:    absences,
		answers: make(map[rrset.Key]bool),
		writes:  eff == writes,
		open:    cfg.deleteChecks <= 1 && cfg.deleteSpan == 0,
	}
}

// sustained reports whether k's absence has lasted long enough.
func (o *gateObserver) sustained(k rrset.Key) bool {
	if ans, ok := o.answers[k]; ok {
		return ans
	}
	var ans bool
	switch {
	case o.writes:
		ans = o.gate.Observe(absenceKey(k), true)
	default:
		ans = o.open || o.gate.Sustained(absenceKey(k))
	}
	o.answers[k] = ans
	return ans
}

// settle ends streaks that are over: keys wanted again, and keys deleted
// (a later absence starts counting anew).
func (o *gateObserver) settle(keys []rrset.Key) {
	if !o.writes || o.gate.Len() == 0 {
		return
	}
	for _, k := range keys {
		o.gate.Forget(absenceKey(k))
	}
}

// requeuer returns the zone's requeue pacing.
func (m *zoneMemory) requeuer() *backoff.Requeue {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requeue
}
