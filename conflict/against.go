package conflict

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pdnskit/reconcile/rrset"
)

// Against returns the conflicts that writing want as writer would have with
// live, by the rules of Check but without a Diff. It is for a controller
// that asks, one object at a time, whether an RRset may be written beside
// what other objects hold, and never talks to PowerDNS. nil means want may
// be written.
//
// live is what the zone holds, or what the other objects claim, in any
// shape Check's Sets cannot hold:
//
//   - several RRsets at one key are several claimants (several objects
//     claiming one name and type); each is judged, and each Conflict lists
//     every one it collides with, with its ManagedBy;
//   - names in any spelling the zone accepts (see WithZone) and types in
//     any case: keys are compared canonically;
//   - an RRset with no records stands for "data of this type exists here",
//     which is all the type rules need (an NS without records glues
//     nothing);
//   - for Occluded, the claims above want's name and, for an NS or DNAME
//     want, below it: every object in the zone covers both.
//
// The rules are Check's, as if the desired Set held want and every other
// RRset of the writer as it is:
//
//   - want's own data: SingleRecordType, ApexCNAME, Placement;
//   - the other types at want's name, whoever holds them:
//     CNAMEAndOtherData, NSAndDNAME, ALIASAndAddress. The writer's own
//     RRsets count like any other: its own A is in the way of its own CNAME
//     (Conflict.Writers then names the writer), since Against deletes
//     nothing;
//   - the NS and DNAME at names above want's (up to the apex, see
//     Ancestors), and, when want is NS or DNAME, the other writers' data
//     below its name: Occluded. Glue is told by the NS records, so give an
//     NS claim its records;
//   - the RRsets at want's key: a claimant that is the writer itself is
//     want's earlier version, which want replaces, and no conflict; another
//     writer's is NotOwner, one with no writer Unowned (unless
//     WithAdoption). Every such claimant is listed, and the key's RRsets
//     stay for the other rules, as in Check.
//
// Unlike Check, Against judges want even when live already holds it
// unchanged: there is no Diff to skip it, and the answer does not depend on
// whether the caller's own object exists yet. It takes no policy: it has no
// plan to make room in. For live data PowerDNS can hold, Against and Check
// agree on every write: the same Conflicts for want's key.
//
// writer should not be empty: like Check, Against then takes every RRset
// with no writer recorded for the writer's own. A name or type that does
// not canonicalise (out of the zone, or invalid) is compared as written,
// case-folded: Against judges, it does not validate; build want with
// rrset.New to have it checked.
//
// Conflicts come in Check's order for one key (by kind); each has Key and
// RRset set to want in canonical form with ManagedBy set to writer. Cost:
// O(n) name canonicalisations for n live RRsets, plus sorting those at
// want's name.
func Against(want rrset.RRset, writer string, live []rrset.RRset, opts ...AgainstOption) []Conflict {
	o := againstOptions(opts)

	zone, apex := ".", ""
	if o.zone != "" {
		if z, err := rrset.CanonicalZone(o.zone); err == nil {
			zone, apex = z, z
		}
	}
	k := canonicalKey(zone, want.Name, want.Type)
	w := want
	w.Name, w.Type, w.ManagedBy = k.Name, k.Type, writer
	if !sortedUnique(w.Records) {
		w.Records = slices.Compact(slices.Sorted(slices.Values(w.Records)))
	}

	var here, holders []rrset.RRset
	canon := make([]rrset.RRset, 0, len(live))
	for _, l := range live {
		lk := canonicalKey(zone, l.Name, l.Type)
		l.Name, l.Type = lk.Name, lk.Type
		canon = append(canon, l)
		if o.zone == "" && lk.Type == "SOA" && len(lk.Name) > len(apex) && encloses(lk.Name, k.Name) {
			apex = lk.Name
		}
		if lk.Name != k.Name {
			continue
		}
		here = append(here, l)
		if lk.Type == k.Type {
			holders = append(holders, l)
		}
	}
	if len(holders) == 0 {
		holders = indexDisabled(zone, o.disabled)[k]
	}
	// The same answer whatever order live comes in.
	slices.SortStableFunc(here, compareClaimants)
	slices.SortStableFunc(holders, compareClaimants)

	j := &judge{opts: o, writer: writer, apex: apex, blocked: make([]bool, 1)}
	j.above = func(name string) standing {
		var st standing
		for _, l := range canon {
			if l.Name == name && (l.Type == "NS" || l.Type == "DNAME") {
				st.live = append(st.live, l)
			}
		}
		slices.SortStableFunc(st.live, compareClaimants)
		return st
	}
	j.below = func(name string) []rrset.RRset {
		var out []rrset.RRset
		for _, l := range canon {
			if j.othersData(l) && isBelow(l.Name, name) {
				out = append(out, l)
			}
		}
		slices.SortStableFunc(out, func(a, b rrset.RRset) int {
			return cmp.Or(compareNames(a.Name, b.Name), compareClaimants(a, b))
		})
		return out
	}
	j.judgeSite(k.Name, here, nil, []*write{{idx: 0, rr: w, holders: holders}})
	j.finish()
	return j.conflicts
}

// compareClaimants orders RRsets at one name by type, then writer, then
// data.
func compareClaimants(a, b rrset.RRset) int {
	return cmp.Or(
		strings.Compare(a.Type, b.Type),
		strings.Compare(a.ManagedBy, b.ManagedBy),
		cmp.Compare(a.TTL, b.TTL),
		slices.Compare(a.Records, b.Records),
	)
}

// sortedUnique reports whether records are sorted with no duplicates, as
// a Set keeps them.
func sortedUnique(records []string) bool {
	for i := 1; i < len(records); i++ {
		if records[i-1] >= records[i] {
			return false
		}
	}
	return true
}

// encloses reports whether name is zone or below it; both are canonical.
func encloses(zone, name string) bool {
	_, err := rrset.CanonicalName(zone, name)
	return err == nil && strings.HasSuffix(name, ".")
}

// canonicalKey spells a key as a Set of zone would. A name that does not
// canonicalise in zone is kept as written, lower-cased and with a trailing
// dot, and a type that is not a DNS type is upper-cased, so that such keys
// still match their other spellings.
func canonicalKey(zone, name, typ string) rrset.Key {
	n, err := rrset.CanonicalName(zone, name)
	if err != nil {
		n = strings.ToLower(name)
		if !strings.HasSuffix(n, ".") {
			n += "."
		}
	}
	return rrset.Key{Name: n, Type: canonicalType(typ)}
}

// canonicalType returns the type mnemonic a Set stores for typ ("cname"
// and "TYPE5" are "CNAME").
func canonicalType(typ string) string {
	if isPlainMnemonic(typ) {
		return typ
	}
	// NewLive canonicalises the type as a Set does; only its key is used,
	// so the stand-in content and name do not matter (NewLive keeps a
	// content it cannot parse as given).
	if rr, err := rrset.NewLive(".", ".", typ, 0, "-"); err == nil {
		return rr.Type
	}
	return strings.ToUpper(typ)
}

// isPlainMnemonic reports whether typ is already what a Set stores: upper
// case letters, digits and '-', and not a TYPEnnn spelling.
func isPlainMnemonic(typ string) bool {
	if typ == "" || strings.HasPrefix(typ, "TYPE") {
		return false
	}
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
