package conflict_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// occlusionPool is a small tree of names, deep enough for delegations,
// glue and DNAMEs at several levels.
var (
	occlusionNames = []string{"@", "sub", "x.sub", "ns1.sub", "y.x.sub", "other"}
	occlusionTypes = []string{"A", "AAAA", "TXT", "NS", "DNAME"}
	occlusionData  = map[string][]string{
		"A":     {"192.0.2.1"},
		"AAAA":  {"2001:db8::1"},
		"TXT":   {`"t"`},
		"NS":    {"ns1.sub.example.com.", "ns1.example.net.", "ns1.x.sub.example.com."},
		"DNAME": {"example.net."},
	}
)

// occludedIn reports whether the RRset data stands hidden in zone, as
// resolvers see it: below a non-apex NS that does not glue it, or below a
// DNAME. It is written from the rule's statement, not from the package.
func occludedIn(zone map[rrset.Key]rrset.RRset, data rrset.RRset) bool {
	for _, top := range zone {
		if top.Name == data.Name || !strings.HasSuffix(data.Name, "."+top.Name) {
			continue
		}
		switch top.Type {
		case "DNAME":
			return true
		case "NS":
			if top.Name == zone2 {
				continue
			}
			glue := (data.Type == "A" || data.Type == "AAAA") && slices.Contains(top.Records, data.Name)
			if !glue {
				return true
			}
		}
	}
	return false
}

const zone2 = zone

// TestOccludedProperties: over random zones, the plan Check allows writes
// nothing that would be hidden, and hides nothing of another writer's that
// was visible; Against agrees with Check on every Occluded write.
func TestOccludedProperties(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	rnd := rand.New(rand.NewPCG(26, 5))
	pick := func(s []string) string { return s[rnd.IntN(len(s))] }
	reached := 0
	for i := range n {
		var live, desired []rrset.RRset
		live = append(live, buildAll(t, zone, apex())...)
		seen := make(map[rrset.Key]bool)
		for range 2 + rnd.IntN(6) {
			name, typ := pick(occlusionNames), pick(occlusionTypes)
			if name == "@" && typ == "NS" {
				continue
			}
			rr, err := rrset.NewLive(zone, name, typ, 300, pick(occlusionData[typ]))
			if err != nil {
				t.Fatal(err)
			}
			if seen[rr.Key()] {
				continue
			}
			seen[rr.Key()] = true
			if rnd.IntN(2) == 0 {
				rr.ManagedBy = pick([]string{gw, ext, ""})
				live = append(live, rr)
			} else {
				desired = append(desired, rr)
			}
		}
		adopt := rnd.IntN(3) == 0
		res := conflict.Check(newSet(t, zone, desired), newSet(t, zone, live), gw, conflict.WithAdoption(adopt))
		describe := func() string {
			var b strings.Builder
			fmt.Fprintf(&b, "scenario %d, adoption %t\n", i, adopt)
			for _, rr := range live {
				fmt.Fprintf(&b, "  live %s (%s)\n", rr, owner(rr.ManagedBy))
			}
			for _, rr := range desired {
				fmt.Fprintf(&b, "  desired %s\n", rr)
			}
			return b.String() + render(res)
		}

		before := make(map[rrset.Key]rrset.RRset)
		for _, rr := range live {
			before[rr.Key()] = rr
		}
		after := make(map[rrset.Key]rrset.RRset)
		for k, rr := range before {
			after[k] = rr
		}
		for _, c := range res.Plan.Changes {
			if c.Op == rrset.OpDelete {
				delete(after, c.Key())
			} else {
				after[c.Key()] = *c.New
			}
		}
		for _, c := range res.Plan.Changes {
			if c.Op != rrset.OpDelete && occludedIn(after, *c.New) {
				t.Fatalf("the plan writes %s, hidden once applied\n%s", c.New, describe())
			}
		}
		for k, rr := range after {
			others := rr.ManagedBy != gw && (rr.ManagedBy != "" || !adopt)
			if old, ok := before[k]; ok && others && occludedIn(after, rr) && !occludedIn(before, old) {
				t.Fatalf("the plan hides %s of %s\n%s", k, owner(rr.ManagedBy), describe())
			}
		}

		// Against, given the live data the plan keeps, finds the same
		// Occluded conflict for every write Check judged.
		var kept []rrset.RRset
		for _, rr := range live {
			if !slices.ContainsFunc(res.Plan.Changes, func(c rrset.Change) bool { return c.Op == rrset.OpDelete && c.Key() == rr.Key() }) {
				kept = append(kept, rr)
			}
		}
		for _, c := range res.Plan.Changes {
			if c.Op == rrset.OpDelete {
				continue
			}
			if got := occludedAgainst(c.New, kept, adopt); got != "" {
				t.Fatalf("Check writes %s; Against finds %s\n%s", c.New, got, describe())
			}
		}
		for _, c := range res.Conflicts {
			if c.Kind != conflict.Occluded {
				continue
			}
			reached++
			if len(c.Desired) > 0 {
				continue // hidden by a write of the same plan, which Against cannot see
			}
			if got := occludedAgainst(&c.RRset, kept, adopt); got != c.String() {
				t.Fatalf("Check: %s\nAgainst: %q\n%s", c, got, describe())
			}
		}
	}
	if reached < n/20 {
		t.Fatalf("only %d Occluded conflicts over %d scenarios", reached, n)
	}
	t.Logf("%d Occluded conflicts over %d scenarios", reached, n)
}

// occludedAgainst returns Against's Occluded conflict for want, or "".
func occludedAgainst(want *rrset.RRset, live []rrset.RRset, adopt bool) string {
	var others []rrset.RRset
	for _, l := range live {
		if l.Key() != want.Key() {
			others = append(others, l)
		}
	}
	for _, c := range conflict.Against(*want, gw, others, conflict.WithZone(zone), conflict.WithAdoption(adopt)) {
		if c.Kind == conflict.Occluded {
			return c.String()
		}
	}
	return ""
}
