package conflict_test

import (
	"maps"
	"slices"
	"strings"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// pdnsZone models a zone as PowerDNS Authoritative holds it, with the
// checks a PATCH meets, written from the server's own logic rather than
// from this package's: patchZone's REPLACE branch and checkNewRecords in
// 4.7 (pdns/ws-auth.cc), replaceZoneRecords in 4.9 and 5.1, and
// Check::checkRRSet (pdns/check-zone.cc) in 5.1. The differential test
// holds the real servers to the same answers.
type pdnsZone struct {
	apex   string
	rrsets map[rrset.Key]pdnsRRset
}

type pdnsRRset struct {
	rr       rrset.RRset
	disabled bool // every record disabled
}

// refusal is the 422 of a PATCH: the RRset being replaced when a check
// failed, and which check.
type refusal struct {
	key  rrset.Key
	rule rule
}

type rule string

const (
	ruleExclusive rule = "CNAME conflicts with pre-existing RRset"
	ruleOneRecord rule = "more than one record"
	rulePlacement rule = "type not allowed here"
	ruleNSDNAME   rule = "NS and DNAME below the apex"
)

// kindsFor are the kinds of Conflict that predict a refusal for r.
var kindsFor = map[rule][]conflict.Kind{
	ruleExclusive: {conflict.CNAMEAndOtherData, conflict.ApexCNAME},
	ruleOneRecord: {conflict.SingleRecordType},
	rulePlacement: {conflict.Placement},
	ruleNSDNAME:   {conflict.NSAndDNAME},
}

func newPDNSZone(apex string, live *rrset.Set, disabled []rrset.RRset) *pdnsZone {
	z := &pdnsZone{apex: apex, rrsets: make(map[rrset.Key]pdnsRRset)}
	for _, rr := range disabled {
		z.rrsets[rr.Key()] = pdnsRRset{rr: rr, disabled: true}
	}
	for rr := range live.All() {
		z.rrsets[rr.Key()] = pdnsRRset{rr: rr}
	}
	return z
}

func (z *pdnsZone) clone() *pdnsZone {
	return &pdnsZone{apex: z.apex, rrsets: maps.Clone(z.rrsets)}
}

// patch applies changes in order, as one transaction: on a refusal the zone
// is left as it was.
func (z *pdnsZone) patch(changes []rrset.Change) *refusal {
	next := z.clone()
	for _, c := range changes {
		k := c.Key()
		if c.Op == rrset.OpDelete {
			delete(next.rrsets, k)
			continue
		}
		if ref := next.replace(*c.New); ref != nil {
			return ref
		}
	}
	z.rrsets = next.rrsets
	return nil
}

func (z *pdnsZone) replace(rr rrset.RRset) *refusal {
	k := rr.Key()
	atApex := k.Name == z.apex
	// checkNewRecords: the new RRset alone.
	if len(rr.Records) > 1 && (k.Type == "CNAME" || k.Type == "DNAME" || k.Type == "SOA") {
		return &refusal{k, ruleOneRecord}
	}
	if (atApex && k.Type == "DS") || (!atApex && (k.Type == "SOA" || k.Type == "DNSKEY")) {
		return &refusal{k, rulePlacement}
	}
	// The ANY lookup at the name sees enabled records only.
	nsSeen, dnameSeen := k.Type == "NS", k.Type == "DNAME"
	for _, have := range z.at(k.Name) {
		t := have.rr.Type
		nsSeen = nsSeen || t == "NS"
		dnameSeen = dnameSeen || t == "DNAME"
		if t != k.Type && (t == "CNAME" || k.Type == "CNAME") {
			return &refusal{k, ruleExclusive}
		}
	}
	if nsSeen && dnameSeen && !atApex {
		return &refusal{k, ruleNSDNAME}
	}
	z.rrsets[k] = pdnsRRset{rr: rr}
	return nil
}

// at returns the enabled RRsets at name, by type.
func (z *pdnsZone) at(name string) []pdnsRRset {
	var out []pdnsRRset
	for k, v := range z.rrsets {
		if k.Name == name && !v.disabled {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b pdnsRRset) int { return strings.Compare(a.rr.Type, b.rr.Type) })
	return out
}

// violations lists every rule the zone's enabled data breaks, PowerDNS's and
// this package's, one string per violation; ALIAS next to an address only
// unless aliasAllowed.
func (z *pdnsZone) violations(aliasAllowed bool) map[string]bool {
	out := make(map[string]bool)
	names := make(map[string]bool)
	for k := range z.rrsets {
		names[k.Name] = true
	}
	for name := range names {
		atApex := name == z.apex
		here := z.at(name)
		for i, a := range here {
			t := a.rr.Type
			if len(a.rr.Records) > 1 && (t == "CNAME" || t == "DNAME" || t == "SOA") {
				out[name+" "+t+" has more than one record"] = true
			}
			if (atApex && (t == "DS" || t == "CNAME")) || (!atApex && (t == "SOA" || t == "DNSKEY")) {
				out[name+" "+t+" misplaced"] = true
			}
			for _, b := range here[i+1:] {
				u := b.rr.Type
				switch {
				case t == "CNAME" || u == "CNAME":
					out[name+" "+t+" next to "+u] = true
				case !atApex && ((t == "NS" && u == "DNAME") || (t == "DNAME" && u == "NS")):
					out[name+" NS and DNAME"] = true
				case !aliasAllowed && ((t == "ALIAS" && (u == "A" || u == "AAAA")) || (u == "ALIAS" && (t == "A" || t == "AAAA"))):
					out[name+" "+t+" next to "+u] = true
				}
			}
		}
	}
	return out
}
