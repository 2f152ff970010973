package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// TestBlockedBefore: a key a decision blocked is remembered until a later
// decision on it no longer blocks it; a decision on other keys forgets
// nothing of it. This is what lets a blocked create's retry skip the
// waits a first attempt pays.
func TestBlockedBefore(t *testing.T) {
	r := testReconciler(t)
	mem := r.memory(testZone)
	a, b := rr(t, "me", "a", "A", "192.0.2.1"), rr(t, "me", "b", "A", "192.0.2.1")

	assert.False(t, mem.blockedBefore(setOf(t, a)), "nothing decided yet")
	assert.False(t, mem.blockedBefore(nil), "no desired set")

	mem.sawBlocked(setOf(t, a), []conflict.Conflict{{Key: a.Key()}})
	assert.True(t, mem.blockedBefore(setOf(t, a)))
	assert.True(t, mem.blockedBefore(setOf(t, a, b)), "one key of the set was blocked")
	assert.False(t, mem.blockedBefore(setOf(t, b)))

	mem.sawBlocked(setOf(t, b), nil)
	assert.True(t, mem.blockedBefore(setOf(t, a)), "a decision on b says nothing of a")

	mem.sawBlocked(setOf(t, a), nil)
	assert.False(t, mem.blockedBefore(setOf(t, a)), "decided again and not blocked")
}

// TestDesiredHash: the memo of a no-op Sync is keyed by a hash that does
// not depend on the order of the RRsets and changes with any field that
// is written.
func TestDesiredHash(t *testing.T) {
	a, b := rr(t, "me", "a", "A", "192.0.2.1"), rr(t, "me", "b", "A", "192.0.2.1")
	assert.Equal(t, desiredHash(setOf(t, a, b)), desiredHash(setOf(t, b, a)))
	assert.Zero(t, desiredHash(nil))
	assert.NotEqual(t, desiredHash(setOf(t, a)), desiredHash(setOf(t, a, b)))

	base := desiredHash(setOf(t, a))
	for name, change := range map[string]func(c *rrset.RRset){
		"ttl":     func(c *rrset.RRset) { c.TTL++ },
		"owner":   func(c *rrset.RRset) { c.Owner = "other" },
		"writer":  func(c *rrset.RRset) { c.ManagedBy = "other" },
		"note":    func(c *rrset.RRset) { c.Comment = "a note" },
		"records": func(c *rrset.RRset) { c.Records = []string{"192.0.2.2"} },
	} {
		changed := a
		changed.Records = append([]string(nil), a.Records...)
		change(&changed)
		assert.NotEqual(t, base, desiredHash(setOf(t, changed)), name)
	}
}

// TestSerialMovesOnWrite: only the soa_edit_api values under which
// PowerDNS raises the serial on an API write let a no-op Sync trust an
// unchanged serial.
func TestSerialMovesOnWrite(t *testing.T) {
	for value, moves := range map[string]bool{
		"DEFAULT": true, "increase": true, " INCREASE ": true,
		"": false, "EPOCH": false, "SOA-EDIT": false, "SOA-EDIT-INCREASE": false,
	} {
		assert.Equal(t, moves, serialMovesOnWrite(value), "%q", value)
	}
}
