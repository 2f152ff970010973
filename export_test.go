package reconcile

import "time"

// WaitingApplies counts the Applies waiting for zone's turn in r, for the
// tests of group commit to start a batch once every Apply has queued.
func WaitingApplies(r *Reconciler, zone string) int {
	m := r.memory(zone)
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.waiting)
}

// HoldLock makes r keep the zone lock for hold after an operation that took
// it, and one lock for most at most, beyond what WithLockHold allows: the
// tests of the hold then count requests whatever the machine's speed.
func HoldLock(r *Reconciler, hold, most time.Duration) {
	r.cfg.lockHold, r.cfg.lockHoldMax = hold, most
}

// WaitForKeptLocks waits until r keeps no zone lock and has freed those it
// kept, so that a test counts the release where it belongs.
func WaitForKeptLocks(r *Reconciler) {
	for r.keepsLocks() {
		time.Sleep(5 * time.Millisecond)
	}
	r.releasing.Wait()
}

func (r *Reconciler) keepsLocks() bool {
	kept := false
	r.zones.Range(func(_, value any) bool {
		m := value.(*zoneMemory)
		m.mu.Lock()
		kept = m.held != nil
		m.mu.Unlock()
		return !kept
	})
	return kept
}
