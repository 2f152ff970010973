package conflict

import (
	"cmp"
	"slices"

	"github.com/pdnskit/reconcile/rrset"
)

// sortDeletes puts deletes in canonical key order, the order rrset.Diff
// gives its own, by letting a Set order their keys.
func sortDeletes(zone string, deletes []rrset.Change) []rrset.Change {
	olds := make([]rrset.RRset, len(deletes))
	byKey := make(map[rrset.Key]rrset.Change, len(deletes))
	for i, c := range deletes {
		olds[i] = *c.Old
		byKey[c.Old.Key()] = c
	}
	sorted := sortRRsets(zone, olds)
	out := make([]rrset.Change, len(sorted))
	for i, rr := range sorted {
		out[i] = byKey[rr.Key()]
	}
	return out
}

// sortRRsets returns rrsets in canonical key order. The RRsets come from
// one zone's Sets, so a Set takes them all; should it refuse one, a plain
// order by name and type keeps the result deterministic.
func sortRRsets(zone string, rrsets []rrset.RRset) []rrset.RRset {
	set, err := rrset.NewSet(zone)
	if err == nil {
		for _, rr := range rrsets {
			if err = set.Add(rr); err != nil {
				break
			}
		}
	}
	if err == nil {
		return set.Sorted()
	}
	out := slices.Clone(rrsets)
	slices.SortFunc(out, func(a, b rrset.RRset) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Type, b.Type))
	})
	return out
}
