package reconcile

import (
	"errors"
	"fmt"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// InputError is bad input to an operation: a zone, a desired RRset or an
// owner that cannot be written. Nothing was sent: every input is checked
// before the first request.
type InputError struct {
	Zone string
	Err  error
}

func (e *InputError) Error() string { return "reconcile: zone " + e.Zone + ": " + e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// canonicalZone is rrset.CanonicalZone with its error as an *InputError,
// which also refuses the root zone: no request can address it through
// go-powerdns.
func canonicalZone(zone string) (string, error) {
	canonical, err := rrset.CanonicalZone(zone)
	switch {
	case err != nil:
		return "", &InputError{Zone: zone, Err: err}
	case canonical == ".":
		return "", &InputError{Zone: zone, Err: pdnsapi.ErrRootZone}
	}
	return canonical, nil
}

// stamp is who writes a desired RRset: the writer, and the owner the
// operation names (WithOwner).
type stamp struct {
	writer, owner string
}

// canonicalRRset canonicalises d again for zone and stamps it: an RRset
// literal, or one made for another spelling of the zone, must still compare
// equal to what PowerDNS returns.
func (s stamp) canonicalRRset(zone rrset.Zone, d rrset.RRset) (rrset.RRset, error) {
	rr, err := zone.New(d.Name, d.Type, d.TTL, d.Records...)
	if err != nil {
		return rrset.RRset{}, &InputError{Zone: zone.String(), Err: err}
	}
	rr.Comment = d.Comment
	if err := rr.CheckComment(); err != nil {
		return rrset.RRset{}, &InputError{Zone: zone.String(), Err: err}
	}
	for _, c := range rr.Records {
		if err := checkContent("RRset.Records", c); err != nil {
			return rrset.RRset{}, &InputError{Zone: zone.String(), Err: fmt.Errorf("%s %s: %w", rr.Name, rr.Type, err)}
		}
	}
	rr.ManagedBy, rr.Owner = s.writer, s.owner
	return rr, nil
}

// desiredSet canonicalises desired into a Set stamped with s. Two spellings
// of one key are fine when their data is equal, an error when it differs.
func (s stamp) desiredSet(zone string, desired []rrset.RRset) (*rrset.Set, error) {
	set, err := rrset.NewSet(zone)
	if err != nil {
		return nil, &InputError{Zone: zone, Err: err}
	}
	z, err := rrset.ParseZone(zone)
	if err != nil {
		return nil, &InputError{Zone: zone, Err: err}
	}
	set.Grow(len(desired))
	for _, d := range desired {
		rr, err := s.canonicalRRset(z, d)
		if err != nil {
			return nil, err
		}
		if err := set.Add(rr); err != nil {
			var dup *rrset.DuplicateError
			if errors.As(err, &dup) && dup.Existing.EqualData(rr) && dup.Existing.Comment == rr.Comment {
				continue
			}
			return nil, &InputError{Zone: zone, Err: err}
		}
	}
	return set, nil
}

// newStamp checks the owner an operation names.
func newStamp(zone, writer, owner string) (stamp, error) {
	if owner != "" {
		if err := checkOwner(owner); err != nil {
			return stamp{}, &InputError{Zone: zone, Err: err}
		}
	}
	return stamp{writer: writer, owner: owner}, nil
}
