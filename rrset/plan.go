package rrset

import (
	"fmt"
	"strconv"
	"strings"
)

// Op is what a Change does to an RRset. The zero value is invalid.
type Op uint8

const (
	_ Op = iota
	// OpCreate writes an RRset at a key where there is none.
	OpCreate
	// OpUpdate replaces the RRset at a key.
	OpUpdate
	// OpDelete removes the RRset at a key.
	OpDelete
)

var opNames = [...]string{OpCreate: "create", OpUpdate: "update", OpDelete: "delete"}

// String returns "create", "update" or "delete"; "Op(n)" when invalid.
func (o Op) String() string {
	if o.Valid() {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Valid reports whether o is OpCreate, OpUpdate or OpDelete.
func (o Op) Valid() bool { return o >= OpCreate && o <= OpDelete }

// MarshalText encodes o as its String; an invalid Op is an error.
func (o Op) MarshalText() ([]byte, error) {
	if !o.Valid() {
		return nil, fmt.Errorf("rrset: marshal invalid %s", o)
	}
	return []byte(opNames[o]), nil
}

// UnmarshalText decodes "create", "update" or "delete".
func (o *Op) UnmarshalText(text []byte) error {
	for op, name := range opNames {
		if name != "" && name == string(text) {
			*o = Op(op)
			return nil
		}
	}
	return fmt.Errorf("rrset: unknown op %q", text)
}

// Change is one step of a Plan: Old is the live RRset (nil for OpCreate),
// New the desired one (nil for OpDelete).
type Change struct {
	Op  Op     `json:"op"`
	Old *RRset `json:"old,omitempty"`
	New *RRset `json:"new,omitempty"`
}

// Key returns the key the change applies to.
func (c Change) Key() Key {
	if c.New != nil {
		return c.New.Key()
	}
	if c.Old != nil {
		return c.Old.Key()
	}
	return Key{}
}

// ChangesOwner reports whether the change is an update of an RRset that
// another writer owns or that nobody owns: Diff emits those whatever their
// data, for the conflict package to judge. Old.ManagedBy tells which: empty
// for an unowned RRset (adopting it), another writer's name otherwise
// (taking it over).
func (c Change) ChangesOwner() bool {
	return c.Op == OpUpdate && c.Old != nil && c.New != nil && c.Old.ManagedBy != c.New.ManagedBy
}

// String renders the change as in Plan.String.
func (c Change) String() string {
	var b strings.Builder
	c.render(&b)
	return strings.TrimSuffix(b.String(), "\n")
}

// Plan is what Diff found: the changes, in the order PowerDNS must apply
// them, for one zone and one writer. Its JSON encoding is stable: same
// Sets, same bytes.
type Plan struct {
	Zone      string   `json:"zone"`
	ManagedBy string   `json:"managedBy,omitempty"`
	Changes   []Change `json:"changes"`
}

// Empty reports whether the plan changes nothing.
func (p Plan) Empty() bool { return len(p.Changes) == 0 }

// Count returns the number of changes of op.
func (p Plan) Count(op Op) int {
	n := 0
	for _, c := range p.Changes {
		if c.Op == op {
			n++
		}
	}
	return n
}

// String renders the plan for people, in the manner of a terraform plan.
//
// A summary line comes first, then one line per record, "+" created, "-"
// deleted, and for an update a "~" header followed by the records that go
// ("-"), stay and come ("+"); the header shows a TTL change ("300 -> 600")
// and an owner change (`(owner none -> "dns-operator")`):
//
//	Plan for example.com. by dns-operator: 1 to create, 1 to update, 1 to delete.
//	- old.example.com. 300 IN A 192.0.2.9
//	+ api.example.com. 300 IN A 192.0.2.1
//	~ www.example.com. 300 -> 600 IN A
//	    - 192.0.2.1
//	      192.0.2.2
//	    + 192.0.2.3
func (p Plan) String() string {
	var b strings.Builder
	b.WriteString("Plan for ")
	b.WriteString(p.Zone)
	if p.ManagedBy != "" {
		b.WriteString(" by ")
		b.WriteString(p.ManagedBy)
	}
	if p.Empty() {
		b.WriteString(": no changes.\n")
		return b.String()
	}
	fmt.Fprintf(&b, ": %d to create, %d to update, %d to delete.\n",
		p.Count(OpCreate), p.Count(OpUpdate), p.Count(OpDelete))
	for _, c := range p.Changes {
		c.render(&b)
	}
	return b.String()
}

func (c Change) render(b *strings.Builder) {
	switch {
	case c.Op == OpCreate && c.New != nil:
		for _, r := range c.New.Records {
			b.WriteString("+ " + c.New.line(r) + "\n")
		}
	case c.Op == OpDelete && c.Old != nil:
		for _, r := range c.Old.Records {
			b.WriteString("- " + c.Old.line(r) + "\n")
		}
	case c.Op == OpUpdate && c.Old != nil && c.New != nil:
		c.renderUpdate(b)
	default:
		fmt.Fprintf(b, "? %s %s\n", c.Op, c.Key())
	}
}

func (c Change) renderUpdate(b *strings.Builder) {
	old, nu := c.Old, c.New
	b.WriteString("~ " + nu.Name + " ")
	b.WriteString(strconv.FormatUint(uint64(old.TTL), 10))
	if old.TTL != nu.TTL {
		b.WriteString(" -> " + strconv.FormatUint(uint64(nu.TTL), 10))
	}
	b.WriteString(" IN " + nu.Type)
	switch {
	case old.ManagedBy != nu.ManagedBy:
		b.WriteString(" (owner " + owner(old.ManagedBy) + " -> " + owner(nu.ManagedBy) + ")")
	case nu.Owner != "" && old.Owner != nu.Owner:
		b.WriteString(" (object " + owner(old.Owner) + " -> " + owner(nu.Owner) + ")")
	}
	if old.Comment != nu.Comment {
		b.WriteString(" (comment " + strconv.Quote(nu.Comment) + ")")
	}
	b.WriteByte('\n')
	// Both lists are sorted: merge them.
	i, j := 0, 0
	for i < len(old.Records) || j < len(nu.Records) {
		switch {
		case j == len(nu.Records) || (i < len(old.Records) && old.Records[i] < nu.Records[j]):
			b.WriteString("    - " + old.Records[i] + "\n")
			i++
		case i == len(old.Records) || nu.Records[j] < old.Records[i]:
			b.WriteString("    + " + nu.Records[j] + "\n")
			j++
		default:
			b.WriteString("      " + nu.Records[j] + "\n")
			i++
			j++
		}
	}
}

func owner(managedBy string) string {
	if managedBy == "" {
		return "none"
	}
	return strconv.Quote(managedBy)
}
