package bench

import (
	"fmt"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// DesiredSet canonicalises specs as Sync does with what a controller hands
// it: rrset.New on every RRset (names relative to Zone), stamped with
// ManagedBy, into a Set.
func DesiredSet(specs []Spec) (*rrset.Set, error) {
	return setOf(specs, func(s Spec) (rrset.RRset, error) {
		return rrset.New(Zone, s.Name, s.Type, s.TTL, s.Records...)
	})
}

// LiveSet canonicalises specs as Sync does with a zone it read:
// rrset.NewLive on every RRset as PowerDNS prints it, each owned by
// ManagedBy, into a Set.
func LiveSet(specs []Spec) (*rrset.Set, error) {
	return setOf(specs, func(s Spec) (rrset.RRset, error) {
		return rrset.NewLive(Zone, s.FQDN(), s.Type, s.TTL, s.Records...)
	})
}

// setOf builds each spec with build, owned by ManagedBy, into a Set.
func setOf(specs []Spec, build func(Spec) (rrset.RRset, error)) (*rrset.Set, error) {
	set, err := rrset.NewSet(Zone)
	if err != nil {
		return nil, err
	}
	set.Grow(len(specs))
	for _, s := range specs {
		rr, err := build(s)
		if err != nil {
			return nil, err
		}
		rr.ManagedBy = ManagedBy
		if err := set.Add(rr); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// Pipeline is the pure work of a Sync of c before and between its
// requests: both Sets, then conflict.Check, which runs rrset.Diff. It
// returns the number of changes allowed.
func Pipeline(c Case) (int, error) {
	desired, err := DesiredSet(c.Desired)
	if err != nil {
		return 0, err
	}
	live, err := LiveSet(c.Start)
	if err != nil {
		return 0, err
	}
	res := conflict.Check(desired, live, ManagedBy)
	if len(res.Conflicts) > 0 {
		return 0, fmt.Errorf("pipeline: %d conflicts, want none", len(res.Conflicts))
	}
	return len(res.Plan.Changes), nil
}
