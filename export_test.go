package reconcile

import "time"

// WaitingApplies counts the Applies waiting for zone's turn in r, for the
// tests of group commit to start a batch once every Apply has queued.
func WaitingApplies(r *Reconciler, zone string) int {
	s := r.memory(zone).sched
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiting)
}

// HoldLock makes r keep the zone lock for hold after an operation that took
// it, and one lock for most at most, beyond what WithLockHold allows: the
// tests of the hold then count requests whatever the machine's speed.
func HoldLock(r *Reconciler, hold, most time.Duration) {
	r.cfg.lockHold, r.cfg.lockHoldMax = hold, most
	r.zones.Range(func(_, value any) bool {
		s := value.(*zoneMemory).sched
		s.mu.Lock()
		s.policy = r.cfg.holdPolicy()
		s.mu.Unlock()
		return true
	})
}

// ScheduleWaits returns how long r's operations on zone (canonical) waited
// for its turn, and how many batches carried how many Applies, for the
// benchmarks' time budget.
func ScheduleWaits(r *Reconciler, zone string) (turn time.Duration, batches, members int64) {
	w := &r.memory(zone).sched.waited
	return time.Duration(w.turn.Load()), w.batches.Load(), w.members.Load()
}

// LongestKinds makes the zone metadata kinds r names next the longest it
// can name, a sequence of 7 base-36 digits, for the tests that store them.
func LongestKinds(r *Reconciler) { r.seq.Store(kindSeqs - 1000) }

// TXTOfLength is txtOfLength, for the integration tests of stored limits.
var TXTOfLength = txtOfLength
