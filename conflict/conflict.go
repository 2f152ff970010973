package conflict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pdnskit/reconcile/rrset"
)

// Conflict is one reason a desired RRset is not written. A blocked RRset
// has one Conflict per rule it breaks.
type Conflict struct {
	// Key is the key of the blocked RRset.
	Key rrset.Key `json:"key"`
	// Kind is the rule it breaks.
	Kind Kind `json:"kind"`
	// RRset is the blocked desired RRset, with ManagedBy set to the writer.
	RRset rrset.RRset `json:"rrset"`
	// With are the live RRsets it collides with, each with its ManagedBy.
	// They are data at the same name (type rules), the RRset at the same
	// key (NotOwner, Unowned; with Against, every claimant of such a key),
	// or data above or below the name (Occluded). None are changed by the
	// plan.
	With []rrset.RRset `json:"with,omitempty"`
	// Desired are the other RRsets of the same desired set it collides
	// with. For a type rule they are blocked too, since neither can be
	// written next to the other; for Occluded they are the NS or DNAME
	// written above it, which may go.
	Desired []rrset.RRset `json:"desired,omitempty"`
}

// Writers returns the distinct writers of With, sorted; "" stands for live
// data with no writer recorded.
func (c Conflict) Writers() []string {
	out := make([]string, 0, len(c.With))
	for _, rr := range c.With {
		out = append(out, rr.ManagedBy)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// String describes the conflict in one line, e.g.
//
//	v4.example.com. CNAME blocked: CNAME next to A held by external-dns
func (c Conflict) String() string {
	var b strings.Builder
	b.WriteString(c.Key.Name + " " + c.Key.Type + " blocked: ")
	typ := c.Key.Type
	switch c.Kind {
	case CNAMEAndOtherData, ALIASAndAddress:
		b.WriteString(typ + " next to ")
		c.writeOthers(&b)
	case NSAndDNAME:
		if typ == "NS" || typ == "DNAME" {
			b.WriteString(typ + " next to ")
			c.writeOthers(&b)
			b.WriteString(" below the zone apex")
		} else {
			b.WriteString("the name holds ")
			c.writeOthers(&b)
			b.WriteString(" below the zone apex, where PowerDNS refuses every write")
		}
	case ApexCNAME:
		b.WriteString("CNAME at the zone apex")
		if len(c.With)+len(c.Desired) > 0 {
			b.WriteString(", next to ")
			c.writeOthers(&b)
		}
	case SingleRecordType:
		b.WriteString(strconv.Itoa(len(c.RRset.Records)) + " records in a " + typ + " RRset, which allows one")
	case Placement:
		if typ == "DS" {
			b.WriteString(typ + " at the zone apex")
		} else {
			b.WriteString(typ + " below the zone apex")
		}
	case Occluded:
		c.writeOccluded(&b)
	case NotOwner:
		b.WriteString("held by " + holdersText(c.With))
	case Unowned:
		b.WriteString("held by no writer, and adoption is off")
	case ApexRequired:
		b.WriteString("the zone needs its apex " + typ + ": it is not deleted (its contents may change; DeleteZone removes the zone)")
	default:
		b.WriteString(string(c.Kind))
		if len(c.With)+len(c.Desired) > 0 {
			b.WriteString(" with ")
			c.writeOthers(&b)
		}
	}
	return b.String()
}

// writeOccluded says what hides the RRset, and what it would hide:
// "below NS at sub.example.com. held by infra, never served", "would hide
// A at x.sub.example.com. held by external-dns".
func (c Conflict) writeOccluded(b *strings.Builder) {
	var above, below []string
	for _, rr := range c.With {
		text := rr.Type + " at " + rr.Name + " held by " + holderText(rr)
		if isBelow(c.Key.Name, rr.Name) {
			above = append(above, text)
		} else {
			below = append(below, text)
		}
	}
	for _, rr := range c.Desired {
		above = append(above, rr.Type+" at "+rr.Name+" also desired")
	}
	if len(above) > 0 {
		b.WriteString("below " + joinAnd(above) + ", never served")
	}
	if len(below) > 0 {
		if len(above) > 0 {
			b.WriteString("; ")
		}
		const most = 3
		if len(below) > most {
			below = append(below[:most], fmt.Sprintf("%d more", len(below)-most))
		}
		b.WriteString("would hide " + joinAnd(below))
	}
	if len(above)+len(below) == 0 {
		b.WriteString("occluded")
	}
}

// writeOthers lists With grouped by writer, then Desired: "A and AAAA held
// by external-dns, TXT also desired".
func (c Conflict) writeOthers(b *strings.Builder) {
	var groups []string
	var owners []string
	types := make(map[string][]string)
	for _, rr := range c.With {
		h := holderText(rr)
		if _, ok := types[h]; !ok {
			owners = append(owners, h)
		}
		types[h] = append(types[h], rr.Type)
	}
	for _, owner := range owners {
		groups = append(groups, joinAnd(types[owner])+" held by "+owner)
	}
	if len(c.Desired) > 0 {
		t := make([]string, 0, len(c.Desired))
		for _, rr := range c.Desired {
			t = append(t, rr.Type)
		}
		groups = append(groups, joinAnd(t)+" also desired")
	}
	if len(groups) == 0 {
		b.WriteString("other data")
		return
	}
	b.WriteString(strings.Join(groups, ", "))
}

func writerText(w string) string {
	if w == "" {
		return "no writer"
	}
	return w
}

// holderText names who holds rr: its writer, and the object behind it
// when one is recorded, e.g. "dns-operator (default/www)".
func holderText(rr rrset.RRset) string {
	if rr.Owner == "" {
		return writerText(rr.ManagedBy)
	}
	return writerText(rr.ManagedBy) + " (" + rr.Owner + ")"
}

// holdersText names the distinct holders of rrsets.
func holdersText(rrsets []rrset.RRset) string {
	var out []string
	for _, rr := range rrsets {
		if h := holderText(rr); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return "another writer"
	}
	slices.Sort(out)
	return joinAnd(out)
}

// joinAnd joins "A", "AAAA", "TXT" as "A, AAAA and TXT".
func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// compareConflicts orders the conflicts of one key by kind.
func compareConflicts(a, b Conflict) int { return a.Kind.rank() - b.Kind.rank() }
