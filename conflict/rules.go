package conflict

import "github.com/pdnskit/reconcile/rrset"

// The type rules mirror what PowerDNS Authoritative checks when a PATCH
// replaces an RRset, the same in 4.7, 4.9 and 5.1:
//
//   - on the new RRset alone (checkNewRecords in pdns/ws-auth.cc up to 4.9,
//     Check::checkRRSet in pdns/check-zone.cc in 5.1): more than one record
//     for CNAME, DNAME or SOA (onlyOneEntryTypes); SOA or DNSKEY off the
//     apex (atApexTypes); DS at the apex (nonApexTypes);
//   - against the records already at the name (the REPLACE branch of
//     patchZone in 4.7, replaceZoneRecords from 4.9): any other type next
//     to a CNAME, or a CNAME next to any other type (exclusiveEntryTypes
//     holds CNAME alone, so DNAME, ALIAS and the apex SOA and NS count as
//     other data like the rest), and NS with DNAME below the apex, judged
//     over the whole name whatever the type written. The lookup behind this
//     check skips disabled records on every backend (gsqlite3's
//     any-id-query has "disabled=0"; LMDB skips them unless asked; 5.1
//     calls APILookup with include_disabled false), while the type written
//     counts whether its own records are enabled or not.
//
// PowerDNS applies a PATCH in order and checks each REPLACE against what
// the earlier ones left. A plan whose deletes come first and whose end
// state breaks none of these rules therefore passes every intermediate
// check too: each rule only gets harder to satisfy as data is added.
//
// Duplicate records, and two spellings of one key, never reach Check: a
// Set holds one RRset per canonical key, its records sorted and unique.

// onlyOneRecord are the types whose RRset may hold a single record.
var onlyOneRecord = map[string]bool{"CNAME": true, "DNAME": true, "SOA": true}

// apexOnly are the types PowerDNS refuses below the apex; notAtApex the
// types it refuses at the apex.
var (
	apexOnly  = map[string]bool{"SOA": true, "DNSKEY": true}
	notAtApex = map[string]bool{"DS": true}
)

// selfKinds returns the rules rr breaks on its own, at the apex or not.
func selfKinds(rr rrset.RRset, atApex bool) []Kind {
	var out []Kind
	if onlyOneRecord[rr.Type] && len(rr.Records) > 1 {
		out = append(out, SingleRecordType)
	}
	if rr.Type == "CNAME" && atApex {
		out = append(out, ApexCNAME)
	}
	if (apexOnly[rr.Type] && !atApex) || (notAtApex[rr.Type] && atApex) {
		out = append(out, Placement)
	}
	return out
}

// pairKind returns the rule that a write of type w breaks next to data of
// another type o at one name, or "" when the two may coexist.
func pairKind(w, o string, atApex bool) Kind {
	switch {
	case w == o:
		return ""
	case w == "CNAME" && atApex:
		return ApexCNAME
	case w == "CNAME" || o == "CNAME":
		return CNAMEAndOtherData
	case !atApex && (w == "NS" && o == "DNAME" || w == "DNAME" && o == "NS"):
		return NSAndDNAME
	case w == "ALIAS" && isAddress(o) || o == "ALIAS" && isAddress(w):
		return ALIASAndAddress
	}
	return ""
}

func isAddress(t string) bool { return t == "A" || t == "AAAA" }
