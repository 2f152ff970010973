package conflict_test

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// typeNumbers are the TYPEnnn spellings of the pool's types that have one.
var typeNumbers = map[string]string{
	"A": "TYPE1", "NS": "TYPE2", "CNAME": "TYPE5", "SOA": "TYPE6", "MX": "TYPE15",
	"TXT": "TYPE16", "AAAA": "TYPE28", "DNAME": "TYPE39", "DS": "TYPE43",
}

// respell writes rr as an object might: its name relative or absolute,
// with or without the trailing dot, in any case; its type in lower case or
// as TYPEnnn; and, when strip, without records.
func respell(tb testing.TB, rnd *rand.Rand, z string, rr rrset.RRset, strip bool) rrset.RRset {
	tb.Helper()
	switch rnd.IntN(5) {
	case 1:
		rr.Name = strings.TrimSuffix(rr.Name, ".")
	case 2:
		rel, err := rrset.RelativeName(z, rr.Name)
		if err != nil {
			tb.Fatal(err)
		}
		rr.Name = rel
	case 3:
		rr.Name = strings.ToUpper(rr.Name)
	case 4:
		rr.Name = strings.ToUpper(strings.TrimSuffix(rr.Name, "."))
	}
	switch rnd.IntN(3) {
	case 1:
		rr.Type = strings.ToLower(rr.Type)
	case 2:
		if n, ok := typeNumbers[rr.Type]; ok {
			rr.Type = n
		}
	}
	if strip {
		rr.Records = nil
	}
	return rr
}

// withoutRecords drops the records of what conflicts collide with, for
// comparing conflicts over live data whose records were stripped.
func withoutRecords(cs []conflict.Conflict) []conflict.Conflict {
	out := slices.Clone(cs)
	for i := range out {
		with := slices.Clone(out[i].With)
		for j := range with {
			with[j].Records = nil
		}
		out[i].With = with
	}
	return out
}

// checkAgainst holds Against to Check. The scenario's live data is cut
// down to what PowerDNS accepts; then every desired RRset is a want, and
// Check is given the desired Set {want} plus every other live RRset of the
// writer, unchanged, so that its plan deletes nothing, as Against never
// does. Where Check's plan writes want's key, Against must give the same
// Conflicts for it, over the same live data respelled, shuffled and (in
// some runs) stripped of records. Where it does not (want is live as it
// is), the zone is valid for PowerDNS, so the only rules Against may find
// broken are those PowerDNS does not enforce between types: ALIAS next to
// an address, data below a DNAME (Occluded).
// It returns how many wants Check writes, which were compared.
func checkAgainst(t *testing.T, z string, sc scenario, data []byte) int {
	t.Helper()
	keepAcceptable(z, false, &sc)
	live := newSet(t, z, sc.live)
	h := fnv.New64a()
	h.Write(data)
	rnd := rand.New(rand.NewPCG(h.Sum64(), 7))
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n\nscenario:\n%s", append(args, sc)...)
	}

	writes := 0
	for _, want := range sc.desired {
		k := want.Key()
		desired := []rrset.RRset{want}
		for _, l := range sc.live {
			if l.ManagedBy == sc.writer && l.Key() != k {
				desired = append(desired, l)
			}
		}
		res := conflict.Check(newSet(t, z, desired), live, sc.writer, conflict.WithAdoption(sc.adopt),
			conflict.WithDisabledLive(sc.disabled...), conflict.WithAllowed(sc.allowed...))
		if res.Plan.Count(rrset.OpDelete) > 0 {
			fail("Check deletes with the writer's data kept:\n%s", res.Plan)
		}
		var fromCheck []conflict.Conflict
		for _, c := range res.Conflicts {
			if c.Key == k {
				fromCheck = append(fromCheck, c)
			}
		}

		strip := rnd.IntN(3) == 0
		var objects, disabled []rrset.RRset
		for _, l := range sc.live {
			objects = append(objects, respell(t, rnd, z, l, strip && rnd.IntN(2) == 0))
		}
		rnd.Shuffle(len(objects), func(i, j int) { objects[i], objects[j] = objects[j], objects[i] })
		for _, d := range sc.disabled {
			disabled = append(disabled, respell(t, rnd, z, d, false))
		}
		got := conflict.Against(respell(t, rnd, z, want, false), sc.writer, objects,
			conflict.WithZone(strings.ToUpper(z)), conflict.WithAdoption(sc.adopt), conflict.WithDisabledLive(disabled...),
			conflict.WithAllowed(sc.allowed...))

		if !planHas(res.Plan, k) && !res.Blocked(k) {
			for _, c := range got {
				if c.Kind != conflict.ALIASAndAddress && c.Kind != conflict.Occluded {
					fail("want %s is live as it is, in a zone PowerDNS accepts, yet Against finds %s", k, c)
				}
			}
			continue
		}
		writes++
		if strip {
			got, fromCheck = withoutRecords(got), withoutRecords(fromCheck)
		}
		if !assert.ObjectsAreEqual(fromCheck, got) {
			fail("want %s: Check and Against disagree\nCheck:\n  %s\nAgainst:\n  %s\nobjects: %v",
				k, strings.Join(strs(fromCheck), "\n  "), strings.Join(strs(got), "\n  "), objects)
		}
	}
	return writes
}

// TestAgainstAgreesWithCheck runs checkAgainst over random scenarios, so
// that a plain go test covers it; FuzzAgainst explores further.
func TestAgainstAgreesWithCheck(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 512)
	kinds := make(map[conflict.Kind]int)
	compared := 0
	for range n {
		for i := range data {
			data[i] = byte(rnd.UintN(256))
		}
		sc := genScenario(t, zone, poolNames, true, data)
		compared += checkAgainst(t, zone, sc, data)
		keepAcceptable(zone, false, &sc)
		for _, want := range sc.desired {
			for _, c := range conflict.Against(want, sc.writer, sc.live, conflict.WithZone(zone), conflict.WithAdoption(sc.adopt),
				conflict.WithDisabledLive(sc.disabled...), conflict.WithAllowed(sc.allowed...)) {
				kinds[c.Kind]++
			}
		}
	}
	// The scenarios reach every rule, or the agreement says little.
	for _, k := range []conflict.Kind{
		conflict.CNAMEAndOtherData, conflict.SingleRecordType, conflict.ApexCNAME, conflict.NSAndDNAME,
		conflict.Placement, conflict.ALIASAndAddress, conflict.Occluded, conflict.NotOwner, conflict.Unowned,
	} {
		assert.Positive(t, kinds[k], "no scenario found %s", k)
	}
	assert.Greater(t, compared, n, "too few writes compared")
	t.Logf("%d writes compared over %d scenarios; conflicts by kind: %v", compared, n, kinds)
}

func FuzzAgainst(f *testing.F) {
	f.Add([]byte{})
	rnd := rand.New(rand.NewPCG(7, 8))
	for range 8 {
		seed := make([]byte, 256)
		for i := range seed {
			seed[i] = byte(rnd.UintN(256))
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainst(t, zone, genScenario(t, zone, poolNames, true, data), data)
	})
}
