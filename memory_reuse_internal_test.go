package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

func TestDesiredFor(t *testing.T) {
	mem := newZoneMemory(testReconciler(t).cfg)
	st := stamp{writer: "me"}
	given := []rrset.RRset{
		{Name: "www", Type: "a", TTL: 300, Records: []string{"192.0.2.2", "192.0.2.1"}},
		{Name: "mail.example.com", Type: "MX", TTL: 300, Records: []string{"10 mx.example.net"}},
	}
	first, dm, err := mem.desiredFor(testZone, st, given)
	require.NoError(t, err)
	require.NotNil(t, dm)
	again, _, err := mem.desiredFor(testZone, st, given)
	require.NoError(t, err)
	assert.Same(t, first, again, "equal RRsets given: the Set made of them")

	given[0].Records[0] = "192.0.2.3" // changed in place by the caller
	changed, _, err := mem.desiredFor(testZone, st, given)
	require.NoError(t, err)
	assert.NotSame(t, first, changed, "a record changed in place is a change")
	www, _ := changed.Get(rrset.Key{Name: "www." + testZone, Type: "A"})
	assert.Equal(t, []string{"192.0.2.1", "192.0.2.3"}, www.Records)

	other, _, err := mem.desiredFor(testZone, stamp{writer: "me", owner: "ns/obj"}, given)
	require.NoError(t, err)
	assert.NotSame(t, changed, other, "another owner stamps otherwise")
	mx, _ := other.Get(rrset.Key{Name: "mail." + testZone, Type: "MX"})
	assert.Equal(t, "ns/obj", mx.Owner)

	withSOA := append(given, rrset.RRset{Name: "@", Type: "SOA", TTL: 3600,
		Records: []string{"ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"}})
	set, dm, err := mem.desiredFor(testZone, st, withSOA)
	require.NoError(t, err)
	assert.Nil(t, dm, "a Set with the SOA has its serial replaced: never shared")
	again, _, err = mem.desiredFor(testZone, st, withSOA)
	require.NoError(t, err)
	assert.NotSame(t, set, again)

	_, _, err = mem.desiredFor(testZone, st, []rrset.RRset{{Name: "bad..name", Type: "A", TTL: 1, Records: []string{"192.0.2.1"}}})
	var in *InputError
	assert.ErrorAs(t, err, &in)
}

func TestObserveReusesTheLastRead(t *testing.T) {
	soa := zonejson.RRset{Name: testZone, Type: "SOA", TTL: 3600, Records: []zonejson.Record{{Content: "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"}}}
	mine := []zonejson.Comment{{Account: commentAccount, Content: "managed-by=me"}}
	plain := zonejson.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.1"}}, Comments: mine}
	unsorted := zonejson.RRset{Name: "two." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.2"}, {Content: "192.0.2.1"}}}
	spelt := zonejson.RRset{Name: "mx." + testZone, Type: "MX", TTL: 300, Records: []zonejson.Record{{Content: "10 MX.example.net."}}}
	half := zonejson.RRset{Name: "half." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.1"}, {Content: "192.0.2.9", Disabled: true}}}
	warn := func(string, ...any) {}
	z := zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{soa, plain, unsorted, spelt, half}}
	first, err := observe(testZone, z, nil, "me", readScope{}, nil, warn)
	require.NoError(t, err)
	keys := func(obs *observation) []rrset.Key {
		var out []rrset.Key
		for k := range obs.uncanonical {
			out = append(out, k)
		}
		return out
	}
	assert.ElementsMatch(t, []rrset.Key{{Name: "two." + testZone, Type: "A"}, {Name: "mx." + testZone, Type: "MX"}, {Name: "half." + testZone, Type: "A"}}, keys(first),
		"contents out of order, spelt otherwise, or with a record disabled")

	prev := &liveMemo{set: first.set, uncanonical: first.uncanonical}
	// Answered again: the note and the writer are read anew, whatever
	// the last read held.
	plain.Comments = []zonejson.Comment{{Account: commentAccount, Content: "managed-by=them\nowner=x/y"}, {Account: noteAccount, Content: "moved"}, {Account: "ops", Content: "keep"}}
	z = zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{soa, plain, unsorted, spelt, half}}
	second, err := observe(testZone, z, nil, "me", readScope{}, prev, warn)
	require.NoError(t, err)
	www, ok := second.set.Get(rrset.Key{Name: "www." + testZone, Type: "A"})
	require.True(t, ok)
	assert.Equal(t, rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, ManagedBy: "them", Owner: "x/y", Comment: "moved"}, www)
	assert.Len(t, second.foreign[www.Key()], 1)
	for _, rr := range first.set.Sorted() {
		got, ok := second.set.Get(rr.Key())
		require.True(t, ok, rr.Key())
		assert.Equal(t, rr.Records, got.Records, rr.Key())
	}
	assert.ElementsMatch(t, keys(first), keys(second))
	w, _ := first.set.Get(www.Key())
	assert.Equal(t, "me", w.ManagedBy, "the last read is left as it was")

	// A changed answer is read as any: TTL, content, a record disabled.
	changes := []zonejson.RRset{
		{Name: "www." + testZone, Type: "A", TTL: 60, Records: []zonejson.Record{{Content: "192.0.2.1"}}},
		{Name: "www." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.7"}}},
		{Name: "www." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.1"}, {Content: "192.0.2.1", Disabled: true}}},
		{Name: "WWW." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.1"}}},
	}
	want := []rrset.RRset{
		{Name: "www." + testZone, Type: "A", TTL: 60, Records: []string{"192.0.2.1"}},
		{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.7"}},
		{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
		{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
	}
	for i, p := range changes {
		obs, err := observe(testZone, zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{soa, p}}, nil, "me", readScope{}, prev, warn)
		require.NoError(t, err)
		got, ok := obs.set.Get(www.Key())
		require.True(t, ok)
		assert.Equal(t, want[i], got, i)
	}
}

func TestResultDetach(t *testing.T) {
	live := rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}
	want := rrset.RRset{Name: "www." + testZone, Type: "A", TTL: 300, Records: []string{"192.0.2.2"}}
	res := Result{
		Applied:   []rrset.Change{{Op: rrset.OpUpdate, Old: &live, New: &want}},
		Postponed: []rrset.Change{{Op: rrset.OpCreate, New: &want}},
		Deferred:  []Deferral{{RRset: live}},
		Refused:   []Refusal{{Change: rrset.Change{Op: rrset.OpDelete, Old: &live}}},
	}
	res.Blocked = append(res.Blocked, conflictWith(want, live))
	res.detach()
	res.Applied[0].Old.Records[0] = "x"
	res.Applied[0].New.Records[0] = "x"
	res.Postponed[0].New.Records[0] = "x"
	res.Deferred[0].RRset.Records[0] = "x"
	res.Refused[0].Change.Old.Records[0] = "x"
	res.Blocked[0].RRset.Records[0] = "x"
	res.Blocked[0].With[0].Records[0] = "x"
	assert.Equal(t, []string{"192.0.2.1"}, live.Records)
	assert.Equal(t, []string{"192.0.2.2"}, want.Records)

	empty := Result{Zone: testZone}
	empty.detach()
	assert.Equal(t, Result{Zone: testZone}, empty)
}

func conflictWith(rr, with rrset.RRset) conflict.Conflict {
	return conflict.Conflict{Key: rr.Key(), Kind: conflict.NotOwner, RRset: rr, With: []rrset.RRset{with}}
}
