package rrset

import (
	"cmp"
	"slices"
)

// Diff returns the changes that turn live into desired for the writer
// managedBy, in the order they can be applied (see Plan).
//
// Keys are compared in canonical form, and an RRset is compared by TTL and
// records, so no spelling, case, quoting or trailing dot difference makes a
// change. Every New RRset in the plan carries ManagedBy = managedBy. Per
// key:
//
//   - desired only: OpCreate.
//   - live only: OpDelete when the live RRset's ManagedBy is managedBy (and
//     managedBy is not empty); another writer's RRset and an unowned one are
//     never deleted. Live RRsets outside the desired Set's zone are ignored.
//   - both, live owned by managedBy: OpUpdate when TTL, records or Comment
//     differ, or when the desired RRset names an Owner other than the live
//     one's (a handover between two objects of the writer); nothing
//     otherwise. A desired RRset with no Owner keeps whatever owner is
//     recorded; one with no Comment has none, so a live comment goes.
//   - both, live owned by another writer or by nobody: OpUpdate with Old set
//     to the live RRset, even when TTL and records are equal, so that the
//     ownership is recorded (adopting an unowned RRset) or the clash is
//     seen (another writer's). Diff does not judge these: the conflict
//     package does, and finds them with Change.ChangesOwner.
//
// With managedBy empty nothing is deleted, and unowned RRsets count as the
// caller's own. A nil Set is empty: a nil live creates everything; a nil
// desired deletes everything managedBy owns. Cost: one map lookup per
// desired RRset, one pass over live, and O(c log c) to order c changes.
func Diff(desired, live *Set, managedBy string) Plan {
	zone := desired.Zone()
	if zone == "" {
		zone = live.Zone()
	}
	plan := Plan{Zone: zone, ManagedBy: managedBy, Changes: []Change{}}
	// matched marks the live RRsets that have a desired counterpart, so
	// that finding the deletes walks live in order instead of looking
	// every live key up again.
	var matched []uint64
	if live != nil {
		matched = make([]uint64, (len(live.rrsets)+63)/64)
	}
	if desired != nil {
		for j, d := range desired.rrsets {
			i, ok := live.positionHashed(d.Key(), desired.idx.hashes[j])
			if ok {
				matched[i/64] |= 1 << (i % 64)
				l := &live.rrsets[i]
				if l.ManagedBy == managedBy && l.TTL == d.TTL && slices.Equal(l.Records, d.Records) &&
					(d.Owner == "" || d.Owner == l.Owner) && l.Comment == d.Comment {
					continue
				}
			}
			n := new(RRset)
			*n = d
			n.ManagedBy = managedBy
			c := Change{Op: OpCreate, New: n}
			if ok {
				old := live.rrsets[i]
				c.Op, c.Old = OpUpdate, &old
			}
			plan.Changes = append(plan.Changes, c)
		}
	}
	if live != nil && managedBy != "" {
		for i := range live.rrsets {
			l := &live.rrsets[i]
			if matched[i/64]&(1<<(i%64)) != 0 || l.ManagedBy != managedBy || !inZone(l.Name, zone) {
				continue
			}
			old := *l
			plan.Changes = append(plan.Changes, Change{Op: OpDelete, Old: &old})
		}
	}
	slices.SortFunc(plan.Changes, compareChanges)
	return plan
}

// compareChanges orders deletes first, then creates and updates together,
// each by name then type: PowerDNS applies a PATCH in order, and a delete
// must come before a create it makes room for (DELETE A, then REPLACE CNAME
// at one name).
func compareChanges(a, b Change) int {
	if c := cmp.Compare(rank(a.Op), rank(b.Op)); c != 0 {
		return c
	}
	return compareKeys(a.Key(), b.Key())
}

func rank(op Op) int {
	if op == OpDelete {
		return 0
	}
	return 1
}
