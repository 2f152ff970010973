package reconcile

// WaitingApplies counts the Applies waiting for zone's turn in r, for the
// tests of group commit to start a batch once every Apply has queued.
func WaitingApplies(r *Reconciler, zone string) int {
	m := r.memory(zone)
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.waiting)
}
