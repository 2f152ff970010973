package rrset_test

import (
	"iter"

	"github.com/pdnskit/reconcile/rrset"
)

// The names importers compile against (DESIGN.md): this file fails to build
// if one of them changes.
var (
	_ func(string) (string, error)                                                      = rrset.CanonicalZone
	_ func(zone, name string) (string, error)                                           = rrset.CanonicalName
	_ func(zone, name string) (string, error)                                           = rrset.RelativeName
	_ func(zone, name, typ string, ttl uint32, contents ...string) (rrset.RRset, error) = rrset.New
	_ func(string) (*rrset.Set, error)                                                  = rrset.NewSet
	_ func(desired, live *rrset.Set, managedBy string) rrset.Plan                       = rrset.Diff
	_ func(*rrset.Set, rrset.RRset) error                                               = (*rrset.Set).Add
	_ func(*rrset.Set, rrset.Key) (rrset.RRset, bool)                                   = (*rrset.Set).Get
	_ func(*rrset.Set) iter.Seq[rrset.RRset]                                            = (*rrset.Set).All
	_ func(*rrset.Set) int                                                              = (*rrset.Set).Len

	_       = rrset.Key{Name: "api.example.com.", Type: "A"}
	_       = rrset.RRset{Name: "api.example.com.", Type: "A", TTL: uint32(300), Records: []string{"192.0.2.1"}, ManagedBy: ""}
	_       = rrset.Plan{Zone: "example.com.", Changes: []rrset.Change{{Op: rrset.OpCreate, Old: (*rrset.RRset)(nil), New: &rrset.RRset{}}}}
	_ error = (*rrset.NameError)(nil)
	_ error = (*rrset.RecordError)(nil)
	_ error = (*rrset.DuplicateError)(nil)
)
