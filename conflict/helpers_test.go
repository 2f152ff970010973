package conflict_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

const zone = "example.com."

// rr is one RRset of a test case, written compactly: name relative to the
// zone, type, writer ("" for none) and contents.
type rr struct {
	name, typ, owner string
	contents         []string
}

func r(name, typ, owner string, contents ...string) rr {
	return rr{name: name, typ: typ, owner: owner, contents: contents}
}

// build makes the RRset in the canonical form live data has.
func (x rr) build(tb testing.TB, z string) rrset.RRset {
	tb.Helper()
	out, err := rrset.NewLive(z, x.name, x.typ, 300, x.contents...)
	if err != nil {
		tb.Fatalf("build %s %s: %v", x.name, x.typ, err)
	}
	out.ManagedBy = x.owner
	return out
}

func buildAll(tb testing.TB, z string, rrs []rr) []rrset.RRset {
	tb.Helper()
	out := make([]rrset.RRset, 0, len(rrs))
	for _, x := range rrs {
		out = append(out, x.build(tb, z))
	}
	return out
}

func newSet(tb testing.TB, z string, rrs []rrset.RRset) *rrset.Set {
	tb.Helper()
	s, err := rrset.NewSet(z)
	if err != nil {
		tb.Fatal(err)
	}
	for _, x := range rrs {
		if err := s.Add(x); err != nil {
			tb.Fatalf("add %s: %v", x.Key(), err)
		}
	}
	return s
}

// apex is the SOA and NS every PowerDNS zone holds, written by nobody.
func apex() []rr {
	return []rr{
		r("@", "SOA", "", "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"),
		r("@", "NS", "", "ns1.example.net."),
	}
}

// changes renders a plan as one "op name type" line per change.
func changes(p rrset.Plan) []string {
	out := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		k := c.Key()
		name, err := rrset.RelativeName(p.Zone, k.Name)
		if err != nil {
			name = k.Name
		}
		out = append(out, fmt.Sprintf("%s %s %s", c.Op, name, k.Type))
	}
	return out
}

func strs(cs []conflict.Conflict) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

// render is the golden form of a Result: the plan as rrset renders it,
// then every conflict with what it collides with, then what Takeover
// displaced.
func render(res conflict.Result) string {
	var b strings.Builder
	b.WriteString(res.Plan.String())
	if len(res.Conflicts) == 0 {
		b.WriteString("No conflicts.\n")
	} else {
		fmt.Fprintf(&b, "%d conflict(s):\n", len(res.Conflicts))
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(&b, "! %s\n    kind %s, writers %q\n", c, c.Kind, c.Writers())
		for _, w := range c.With {
			fmt.Fprintf(&b, "    with %s (%s)\n", w.Key(), owner(w.ManagedBy))
		}
		for _, d := range c.Desired {
			fmt.Fprintf(&b, "    desired %s\n", d.Key())
		}
	}
	for _, d := range res.Displaced {
		fmt.Fprintf(&b, "displaced %s (%s)\n", d.Key(), owner(d.ManagedBy))
	}
	return b.String()
}

func owner(w string) string {
	if w == "" {
		return "no writer"
	}
	return w
}
