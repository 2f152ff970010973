package reconcile

import (
	"fmt"
	"slices"

	"github.com/joeig/go-powerdns/v3"
)

// ZoneField names a property of a zone whose empty value means something,
// for ZoneSpec.Clear. Its value is the field's name in ZoneDifference.Field
// and in PowerDNS's API.
type ZoneField string

// The zone properties ZoneSpec.Clear can empty: those PowerDNS's API takes
// empty in a PUT, and that an empty ZoneSpec field cannot ask for, since
// there it means "leave as it is".
const (
	// ZoneAccount empties the zone's account.
	ZoneAccount ZoneField = "account"
	// ZoneCatalog takes the zone out of its catalog (PowerDNS 4.7 or
	// later, as for Catalog).
	ZoneCatalog ZoneField = "catalog"
	// ZoneSOAEdit empties the zone's SOA-EDIT.
	ZoneSOAEdit ZoneField = "soa_edit"
	// ZoneSOAEditAPI empties the zone's SOA-EDIT-API: API writes leave the
	// SOA serial as it is.
	ZoneSOAEditAPI ZoneField = "soa_edit_api"
)

// zoneFields lists every ZoneField, in the order differences are listed.
var zoneFields = [...]ZoneField{ZoneSOAEditAPI, ZoneSOAEdit, ZoneAccount, ZoneCatalog}

// String returns the field's name, e.g. "catalog".
func (f ZoneField) String() string { return string(f) }

// value returns the spec's value of f.
func (s ZoneSpec) value(f ZoneField) string {
	switch f {
	case ZoneAccount:
		return s.Account
	case ZoneCatalog:
		return s.Catalog
	case ZoneSOAEdit:
		return s.SOAEdit
	case ZoneSOAEditAPI:
		return s.SOAEditAPI
	}
	return ""
}

// canonicalClear checks the spec's Clear and returns it sorted in the order
// of differences, each field once: a field the spec both sets and clears,
// or one that is not a ZoneField, is an *InputError.
func (s ZoneSpec) canonicalClear(zone string) ([]ZoneField, error) {
	if len(s.Clear) == 0 {
		return nil, nil
	}
	var out []ZoneField
	for _, f := range s.Clear {
		if !slices.Contains(zoneFields[:], f) {
			return nil, &InputError{Zone: zone, Err: fmt.Errorf("clear %q: want account, catalog, soa_edit or soa_edit_api", string(f))}
		}
		if v := s.value(f); v != "" {
			return nil, &InputError{Zone: zone, Err: fmt.Errorf("%s is both set (%q) and cleared", f, v)}
		}
	}
	for _, f := range zoneFields {
		if slices.Contains(s.Clear, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// clearAtCreate sends the cleared fields empty in the POST that creates
// the zone: PowerDNS gives a zone made through its API an SOA-EDIT-API of
// DEFAULT unless told otherwise.
func (s ZoneSpec) clearAtCreate(z *powerdns.Zone) {
	for _, f := range s.Clear {
		switch f {
		case ZoneAccount:
			z.Account = powerdns.String("")
		case ZoneCatalog:
			z.Catalog = powerdns.String("")
		case ZoneSOAEdit:
			z.SOAEdit = powerdns.String("")
		case ZoneSOAEditAPI:
			z.SOAEditAPI = powerdns.String("")
		}
	}
}

// clearedDifferences lists the cleared fields that z still holds, each
// with an empty Want; UpdateZone's PUT sends the spec's value, empty.
func (s ZoneSpec) clearedDifferences(z *powerdns.Zone) []ZoneDifference {
	var out []ZoneDifference
	for _, f := range s.Clear {
		var got *string
		switch f {
		case ZoneAccount:
			got = z.Account
		case ZoneCatalog:
			got = z.Catalog
		case ZoneSOAEdit:
			got = z.SOAEdit
		case ZoneSOAEditAPI:
			got = z.SOAEditAPI
		}
		if got != nil && *got != "" {
			out = append(out, ZoneDifference{Field: string(f), Want: "", Got: *got})
		}
	}
	return out
}
