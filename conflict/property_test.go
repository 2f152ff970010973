package conflict_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// source turns fuzz input into choices; once the input is used up every
// choice is 0, so any input is a valid scenario.
type source struct {
	data []byte
	i    int
}

func (s *source) byte() byte {
	if s.i >= len(s.data) {
		return 0
	}
	b := s.data[s.i]
	s.i++
	return b
}

func (s *source) intn(n int) int { return int(s.byte()) % n }

// chance is true about pct percent of the time.
func (s *source) chance(pct int) bool { return int(s.byte())%100 < pct }

// The pools a scenario draws from. Rarer types are listed last and drawn
// less often, so that most scenarios are about the types the controllers
// write.
var (
	poolNames   = []string{"@", "a", "b", "c"}
	poolTypes   = []string{"A", "AAAA", "CNAME", "ALIAS", "TXT", "MX", "NS", "DNAME", "DS", "SOA"}
	commonTypes = 6
	poolWriters = []string{"w1", "w2", ""}
	poolContent = map[string][]string{
		"A":     {"192.0.2.1", "192.0.2.2", "192.0.2.3"},
		"AAAA":  {"2001:db8::1", "2001:db8::2"},
		"CNAME": {"t1.example.net.", "t2.example.net."},
		"ALIAS": {"lb1.example.net.", "lb2.example.net."},
		"TXT":   {`"one"`, `"two"`, `"three"`},
		"MX":    {"10 mx1.example.net.", "20 mx2.example.net."},
		"NS":    {"ns1.example.net.", "ns2.example.net."},
		"DNAME": {"d1.example.net.", "d2.example.net."},
		"DS":    {"1 13 2 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2 13 2 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
		"SOA":   {"ns1.example.net. h.example.net. 1 10800 3600 604800 3600", "ns1.example.net. h.example.net. 2 10800 3600 604800 3600"},
	}
)

// scenario is one random input of Check.
type scenario struct {
	writer   string
	policy   conflict.Policy
	adopt    bool
	live     []rrset.RRset // the apex SOA and NS first
	disabled []rrset.RRset
	desired  []rrset.RRset
	allowed  []conflict.Kind
}

func (sc scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "writer %s, policy %s, adoption %t, allowed %v\n", sc.writer, sc.policy, sc.adopt, sc.allowed)
	for _, part := range []struct {
		title string
		rrs   []rrset.RRset
	}{{"live", sc.live}, {"disabled", sc.disabled}, {"desired", sc.desired}} {
		for _, rr := range part.rrs {
			fmt.Fprintf(&b, "  %s %s %s %q (%s)\n", part.title, rr.Name, rr.Type, rr.Records, owner(rr.ManagedBy))
		}
	}
	return b.String()
}

// genScenario draws a scenario over names (relative to z), the apex SOA
// and NS first in live when withApex.
func genScenario(tb testing.TB, z string, names []string, withApex bool, data []byte) scenario {
	tb.Helper()
	s := &source{data: data}
	sc := scenario{writer: "w1", adopt: s.chance(30)}
	if s.chance(50) {
		sc.policy = conflict.Takeover
	}
	// Sparse scenarios are mostly accepted by PowerDNS, dense ones mostly
	// refused: both are needed.
	density := 8 + 8*s.intn(4)
	build := func(name, typ, owner string) rrset.RRset {
		contents := poolContent[typ]
		recs := []string{contents[s.intn(len(contents))]}
		if s.chance(10) {
			recs = append(recs, contents[s.intn(len(contents))])
		}
		rr, err := rrset.NewLive(z, name, typ, 300, recs...)
		if err != nil {
			tb.Fatalf("build %s %s: %v", name, typ, err)
		}
		rr.ManagedBy = owner
		return rr
	}
	if withApex {
		for _, a := range apex() {
			sc.live = append(sc.live, a.build(tb, z))
		}
	}
	for _, name := range names {
		for i, typ := range poolTypes {
			if name == "@" && (typ == "SOA" || typ == "NS") {
				continue
			}
			pct := density
			if i >= commonTypes {
				pct = 4
			}
			if s.chance(pct) {
				rr := build(name, typ, poolWriters[s.intn(len(poolWriters))])
				if s.chance(15) {
					sc.disabled = append(sc.disabled, rr)
				} else {
					sc.live = append(sc.live, rr)
					// The writer keeps some of its live data as it is, as it
					// does for a delete held back.
					if rr.ManagedBy == sc.writer && s.chance(50) {
						sc.desired = append(sc.desired, rr)
						continue
					}
				}
			}
			if s.chance(pct) {
				sc.desired = append(sc.desired, build(name, typ, ""))
			}
		}
	}
	// Later desired RRsets at one key replace earlier ones.
	seen := make(map[rrset.Key]int)
	var desired []rrset.RRset
	for _, rr := range sc.desired {
		if i, ok := seen[rr.Key()]; ok {
			desired[i] = rr
			continue
		}
		seen[rr.Key()] = len(desired)
		desired = append(desired, rr)
	}
	sc.desired = desired
	// Drawn last, so that the rest of a scenario is what the same input
	// drew before there were allowed kinds. An enforced kind is drawn too:
	// WithAllowed must ignore it.
	for _, k := range []conflict.Kind{conflict.ALIASAndAddress, conflict.NotOwner, conflict.Unowned, conflict.CNAMEAndOtherData} {
		if s.chance(10) {
			sc.allowed = append(sc.allowed, k)
		}
	}
	return sc
}

// allows reports whether the scenario switches the rule k off, as
// WithAllowed takes it.
func (sc scenario) allows(k conflict.Kind) bool {
	return !k.EnforcedByPowerDNS() && slices.Contains(sc.allowed, k)
}

func (sc scenario) opts() []conflict.CheckOption {
	return []conflict.CheckOption{conflict.WithPolicy(sc.policy), conflict.WithAdoption(sc.adopt),
		conflict.WithDisabledLive(sc.disabled...), conflict.WithAllowed(sc.allowed...)}
}

// checkProperties runs Check on sc and holds it to every property the
// package promises.
func checkProperties(t *testing.T, z string, sc scenario) {
	t.Helper()
	live, desired := newSet(t, z, sc.live), newSet(t, z, sc.desired)
	res := conflict.Check(desired, live, sc.writer, sc.opts()...)
	diff := rrset.Diff(desired, live, sc.writer)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n\nscenario:\n%s\ndiff:\n%s\nresult:\n%s", append(args, sc, diff, render(res))...)
	}

	// Deterministic, whatever order the Sets were filled in.
	rev := func(rrs []rrset.RRset) []rrset.RRset { out := slices.Clone(rrs); slices.Reverse(out); return out }
	revKinds := slices.Clone(sc.allowed)
	slices.Reverse(revKinds)
	again := conflict.Check(newSet(t, z, rev(sc.desired)), newSet(t, z, rev(sc.live)), sc.writer,
		conflict.WithPolicy(sc.policy), conflict.WithAdoption(sc.adopt), conflict.WithDisabledLive(rev(sc.disabled)...),
		conflict.WithAllowed(revKinds...))
	if !assert.ObjectsAreEqual(res, again) {
		fail("not deterministic:\n%s", render(again))
	}

	// The plan: Diff's deletes, the displaced ones, and Diff's writes that
	// are not blocked, deletes first, each key once.
	blocked := make(map[rrset.Key]bool)
	for _, c := range res.Conflicts {
		blocked[c.Key] = true
	}
	displaced := make(map[rrset.Key]rrset.RRset)
	for _, d := range res.Displaced {
		displaced[d.Key()] = d
	}
	if sc.policy == conflict.Refuse && len(displaced) > 0 {
		fail("Refuse displaced %d RRsets", len(displaced))
	}
	want := make(map[rrset.Key]rrset.Change)
	for _, c := range diff.Changes {
		k := c.Key()
		if c.Op == rrset.OpDelete || !blocked[k] {
			want[k] = c
		}
	}
	for k, d := range displaced {
		if _, dup := want[k]; dup {
			fail("%s displaced and changed by Diff", k)
		}
		want[k] = rrset.Change{Op: rrset.OpDelete, Old: &d}
	}
	if len(want) != len(res.Plan.Changes) {
		fail("plan has %d changes, want %d", len(res.Plan.Changes), len(want))
	}
	writing := false
	for _, c := range res.Plan.Changes {
		k := c.Key()
		w, ok := want[k]
		if !ok || !assert.ObjectsAreEqual(w, c) {
			fail("unexpected change %s", c)
		}
		delete(want, k)
		if c.Op != rrset.OpDelete {
			writing = true
		} else if writing {
			fail("delete %s after a write", k)
		}
	}
	for _, c := range diff.Changes {
		if c.Op != rrset.OpDelete && blocked[c.Key()] == planHas(res.Plan, c.Key()) {
			fail("%s is both blocked and planned, or neither", c.Key())
		}
	}
	last := -1
	for _, c := range res.Conflicts {
		i := slices.IndexFunc(diff.Changes, func(d rrset.Change) bool { return d.Key() == c.Key })
		if i < 0 || diff.Changes[i].Op == rrset.OpDelete {
			fail("conflict at %s, which Diff does not write", c.Key)
		}
		if i < last {
			fail("conflicts out of order at %s", c.Key)
		}
		last = i
	}

	// Another writer's RRset is never deleted or written over; one with no
	// writer only when the caller adopts. Allowing NotOwner or Unowned lets
	// a write (never a delete) replace such an RRset.
	disabled := make(map[rrset.Key]rrset.RRset)
	for _, d := range sc.disabled {
		disabled[d.Key()] = d
	}
	for _, c := range res.Plan.Changes {
		held, ok := rrset.RRset{}, false
		if c.Old != nil {
			held, ok = *c.Old, true
		} else if d, isDisabled := disabled[c.Key()]; isDisabled {
			held, ok = d, true
		}
		if !ok || held.ManagedBy == sc.writer || (held.ManagedBy == "" && sc.adopt) {
			continue
		}
		allowed := (held.ManagedBy != "" && sc.allows(conflict.NotOwner)) || (held.ManagedBy == "" && sc.allows(conflict.Unowned))
		if c.Op == rrset.OpDelete || !allowed {
			fail("%s changes an RRset of %q", c, held.ManagedBy)
		}
	}

	// PowerDNS accepts the plan, and it breaks no rule the zone did not
	// already break.
	zone := newPDNSZone(z, live, sc.disabled)
	before := zone.violations(sc.allows(conflict.ALIASAndAddress))
	after := zone.clone()
	if ref := after.patch(res.Plan.Changes); ref != nil {
		fail("PowerDNS would refuse the plan at %s: %s", ref.key, ref.rule)
	}
	for v := range after.violations(sc.allows(conflict.ALIASAndAddress)) {
		if !before[v] {
			fail("the plan makes a new violation: %s", v)
		}
	}

	// Check predicts PowerDNS's answer to the unchecked plan: a refusal
	// names a key Check blocks for the same rule (or, under Takeover, a
	// name where it makes room), and an acceptance means Check found
	// nothing PowerDNS enforces.
	ref := zone.clone().patch(diff.Changes)
	var enforced []conflict.Conflict
	for _, c := range res.Conflicts {
		if c.Kind.EnforcedByPowerDNS() {
			enforced = append(enforced, c)
		}
	}
	if ref == nil {
		if len(enforced) > 0 {
			fail("PowerDNS accepts the unchecked plan, yet Check found %s", enforced[0])
		}
		return
	}
	predicted := slices.ContainsFunc(enforced, func(c conflict.Conflict) bool {
		return c.Key == ref.key && slices.Contains(kindsFor[ref.rule], c.Kind)
	})
	if !predicted && sc.policy == conflict.Takeover {
		predicted = slices.ContainsFunc(res.Displaced, func(d rrset.RRset) bool { return d.Name == ref.key.Name })
	}
	if !predicted {
		fail("PowerDNS refuses the unchecked plan at %s (%s), and Check did not predict it", ref.key, ref.rule)
	}
}

// TestCheckProperties runs the properties over random scenarios, so that
// a plain go test covers them; FuzzCheck explores further.
func TestCheckProperties(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 512)
	for range n {
		for i := range data {
			data[i] = byte(rnd.UintN(256))
		}
		checkProperties(t, zone, genScenario(t, zone, poolNames, true, data))
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x10\x20\x05\x63\x05\x01\x02"))
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		seed := make([]byte, 256)
		for i := range seed {
			seed[i] = byte(rnd.UintN(256))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkProperties(t, zone, genScenario(t, zone, poolNames, true, data))
	})
}
