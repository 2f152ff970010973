package reconcile

import "github.com/pdnskit/reconcile/rrset"

// repairs returns an update for each of the writer's RRsets in scope that
// PowerDNS stores with a record twice, which Diff cannot see: the live
// form collapses repeated contents, so such an RRset reads as already
// desired and would keep its duplicate for ever. PowerDNS stores one when
// two REPLACEs of an RRset overlap on a shared SQL database (a PATCH whose
// answer timed out, sent again to another frontend while the first still
// ran: gpgsql's DELETE of the second does not see the first's INSERT).
// The update writes the RRset as it is desired, owner kept, which stores
// each record once.
func repairs(in intent, obs *observation, desired *rrset.Set, plan rrset.Plan, writer string) []rrset.Change {
	var out []rrset.Change
	for _, k := range obs.repeated {
		if !in.inScope(k) || planned(plan, k) {
			continue
		}
		d, wanted := desired.Get(k)
		l, live := obs.set.Get(k)
		if !wanted || !live || l.ManagedBy != writer {
			continue
		}
		n := d
		n.ManagedBy = writer
		if n.Owner == "" {
			n.Owner = l.Owner
		}
		out = append(out, rrset.Change{Op: rrset.OpUpdate, Old: &l, New: &n})
	}
	return out
}

// planned reports whether plan already changes k.
func planned(plan rrset.Plan, k rrset.Key) bool {
	for _, c := range plan.Changes {
		if c.Key() == k {
			return true
		}
	}
	return false
}
