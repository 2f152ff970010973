package rrset_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func mustRR(tb testing.TB, name, typ string, contents ...string) rrset.RRset {
	tb.Helper()
	rr, err := rrset.New(zone, name, typ, 300, contents...)
	require.NoError(tb, err)
	return rr
}

func newSet(tb testing.TB, rrs ...rrset.RRset) *rrset.Set {
	tb.Helper()
	s, err := rrset.NewSet(zone)
	require.NoError(tb, err)
	for _, rr := range rrs {
		require.NoError(tb, s.Add(rr))
	}
	return s
}

func TestNewSet(t *testing.T) {
	s, err := rrset.NewSet("Example.COM")
	require.NoError(t, err)
	assert.Equal(t, "example.com.", s.Zone())
	assert.Equal(t, 0, s.Len())

	_, err = rrset.NewSet("a..b")
	var ne *rrset.NameError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, rrset.ReasonEmptyLabel, ne.Reason)
}

// TestSetDuplicateSpellings is the incident: "api" and "api.example.com."
// are one RRset, and the Set refuses the second whatever its spelling.
func TestSetDuplicateSpellings(t *testing.T) {
	first := mustRR(t, "api", "A", "192.0.2.1")
	spellings := []rrset.RRset{
		mustRR(t, "api.example.com.", "A", "192.0.2.2"),
		{Name: "API.example.com", Type: "a", TTL: 60, Records: []string{"192.0.2.3"}},
		{Name: "api", Type: "A", Records: []string{"192.0.2.4"}},
		{Name: `\097pi`, Type: "TYPE1", Records: []string{"192.0.2.5"}},
	}
	for _, second := range spellings {
		t.Run(second.Name+" "+second.Type, func(t *testing.T) {
			s := newSet(t, first)
			err := s.Add(second)
			var de *rrset.DuplicateError
			require.ErrorAs(t, fmt.Errorf("add: %w", err), &de)
			assert.Equal(t, rrset.Key{Name: "api.example.com.", Type: "A"}, de.Key)
			assert.Equal(t, first, de.Existing)
			assert.Equal(t, "rrset: duplicate RRset api.example.com. A", err.Error())
			assert.Equal(t, 1, s.Len())
		})
	}
}

func TestSetAddErrors(t *testing.T) {
	tests := []struct {
		name string
		rr   rrset.RRset
		want any
	}{
		{"out of zone", rrset.RRset{Name: "www.example.net.", Type: "A", Records: []string{"192.0.2.1"}}, &rrset.NameError{}},
		{"invalid name", rrset.RRset{Name: "a..b", Type: "A", Records: []string{"192.0.2.1"}}, &rrset.NameError{}},
		{"invalid type", rrset.RRset{Name: "www", Type: "A A", Records: []string{"192.0.2.1"}}, &rrset.RecordError{}},
		{"no records", rrset.RRset{Name: "www", Type: "A"}, &rrset.RecordError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSet(t)
			err := s.Add(tt.rr)
			require.Error(t, err)
			switch tt.want.(type) {
			case *rrset.NameError:
				var ne *rrset.NameError
				assert.ErrorAs(t, err, &ne)
			case *rrset.RecordError:
				var re *rrset.RecordError
				assert.ErrorAs(t, err, &re)
			}
			assert.Equal(t, 0, s.Len())
		})
	}

	var zero rrset.Set
	assert.ErrorIs(t, zero.Add(mustRR(t, "www", "A", "192.0.2.1")), rrset.ErrNoZone)
	var nilSet *rrset.Set
	assert.ErrorIs(t, nilSet.Add(mustRR(t, "www", "A", "192.0.2.1")), rrset.ErrNoZone)
}

func TestSetAddCanonicalisesHandBuiltRRsets(t *testing.T) {
	s := newSet(t)
	records := []string{"192.0.2.2", "192.0.2.1", "192.0.2.2"}
	require.NoError(t, s.Add(rrset.RRset{Name: "WWW", Type: "a", TTL: 60, Records: records}))
	got, ok := s.Get(rrset.Key{Name: "www.example.com.", Type: "A"})
	require.True(t, ok)
	assert.Equal(t, rrset.RRset{Name: "www.example.com.", Type: "A", TTL: 60, Records: []string{"192.0.2.1", "192.0.2.2"}}, got)
	assert.Equal(t, []string{"192.0.2.2", "192.0.2.1", "192.0.2.2"}, records, "the caller's slice is left alone")
}

func TestSetLookups(t *testing.T) {
	s := newSet(t,
		mustRR(t, "www", "A", "192.0.2.1"),
		mustRR(t, "www", "AAAA", "2001:db8::1"),
		mustRR(t, "www", "TXT", "hello"),
		mustRR(t, "mail", "MX", "10 mx.example.net"),
	)
	require.Equal(t, 4, s.Len())

	for _, k := range []rrset.Key{
		{Name: "www.example.com.", Type: "A"},
		{Name: "www", Type: "a"},
		{Name: "WWW.example.com", Type: "TYPE1"},
	} {
		rr, ok := s.Get(k)
		assert.True(t, ok, "%v", k)
		assert.Equal(t, []string{"192.0.2.1"}, rr.Records)
	}
	for _, k := range []rrset.Key{
		{Name: "www", Type: "CNAME"},
		{Name: "www.example.net.", Type: "A"},
		{Name: "a..b", Type: "A"},
		{Name: "www", Type: "not a type"},
	} {
		_, ok := s.Get(k)
		assert.False(t, ok, "%v", k)
	}

	byName := s.ByName("WWW")
	require.Len(t, byName, 3)
	assert.Equal(t, []string{"A", "AAAA", "TXT"}, []string{byName[0].Type, byName[1].Type, byName[2].Type})
	assert.Nil(t, s.ByName("nothing"))
	assert.Nil(t, s.ByName("www.example.net."))

	assert.True(t, s.Delete(rrset.Key{Name: "www", Type: "aaaa"}))
	assert.False(t, s.Delete(rrset.Key{Name: "www", Type: "AAAA"}), "already gone")
	assert.False(t, s.Delete(rrset.Key{Name: "a..b", Type: "A"}))
	assert.Equal(t, 3, s.Len())
	assert.Len(t, s.ByName("www"), 2, "indexes follow deletes")
	_, ok := s.Get(rrset.Key{Name: "www", Type: "TXT"})
	assert.True(t, ok, "the moved RRset is still found")
	require.NoError(t, s.Add(mustRR(t, "www", "AAAA", "2001:db8::2")), "a deleted key can be added again")
	assert.Len(t, s.ByName("www"), 3)

	var nilSet *rrset.Set
	assert.Equal(t, 0, nilSet.Len())
	assert.Empty(t, nilSet.Zone())
	assert.Nil(t, nilSet.ByName("www"))
	assert.False(t, nilSet.Delete(rrset.Key{}))
	_, ok = nilSet.Get(rrset.Key{})
	assert.False(t, ok)
	assert.Empty(t, nilSet.Sorted())
}

func TestSetOrder(t *testing.T) {
	// Canonical order (RFC 4034 §6.1): the apex first, each name followed
	// by the names below it, then by type.
	want := []rrset.Key{
		{Name: "example.com.", Type: "MX"},
		{Name: "example.com.", Type: "NS"},
		{Name: "*.example.com.", Type: "A"},
		{Name: "_acme-challenge.example.com.", Type: "TXT"},
		{Name: "a.example.com.", Type: "A"},
		{Name: "z.a.example.com.", Type: "A"},
		{Name: "api.example.com.", Type: "A"},
		{Name: "api.example.com.", Type: "AAAA"},
		{Name: "_443._tcp.api.example.com.", Type: "TLSA"},
		{Name: "www.example.com.", Type: "CNAME"},
	}
	contents := map[string]string{"A": "192.0.2.1", "AAAA": "2001:db8::1", "MX": "10 mx.example.net", "NS": "ns.example.net",
		"TXT": "x", "TLSA": "3 1 1 " + sha256, "CNAME": "api"}
	shuffled := slices.Clone(want)
	slices.Reverse(shuffled)
	s, err := rrset.NewSet(zone)
	require.NoError(t, err)
	s.Grow(len(shuffled))
	for _, k := range shuffled {
		require.NoError(t, s.Add(mustRR(t, k.Name, k.Type, contents[k.Type])))
	}
	var got []rrset.Key
	for rr := range s.All() {
		got = append(got, rr.Key())
	}
	assert.Equal(t, want, got)
	sorted := s.Sorted()
	require.Len(t, sorted, len(want))
	for i, rr := range sorted {
		assert.Equal(t, want[i], rr.Key())
	}
	assert.Equal(t, []string{"example.com.", "*.example.com.", "_acme-challenge.example.com.", "a.example.com.",
		"z.a.example.com.", "api.example.com.", "_443._tcp.api.example.com.", "www.example.com."}, s.Names())

	// Stopping early is allowed.
	n := 0
	for range s.All() {
		n++
		break
	}
	assert.Equal(t, 1, n)

	// Unordered yields the same RRsets, in no promised order.
	var unordered []rrset.Key
	for rr := range s.Unordered() {
		unordered = append(unordered, rr.Key())
	}
	assert.ElementsMatch(t, want, unordered)
	n = 0
	for range s.Unordered() {
		n++
		break
	}
	assert.Equal(t, 1, n)
	var empty *rrset.Set
	for range empty.Unordered() {
		t.Fatal("a nil Set yields nothing")
	}
}

// TestSetConcurrentReads runs readers side by side: the lazily built
// indexes must not race (go test -race).
func TestSetConcurrentReads(t *testing.T) {
	s := newSet(t)
	for i := range 100 {
		require.NoError(t, s.Add(mustRR(t, fmt.Sprintf("h%d", i), "A", "192.0.2.1")))
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Len(t, s.Sorted(), 100)
			assert.Len(t, s.ByName("h7"), 1)
			_, ok := s.Get(rrset.Key{Name: "h9", Type: "A"})
			assert.True(t, ok)
		}()
	}
	wg.Wait()
}

func TestDuplicateErrorIsNotOtherErrors(t *testing.T) {
	s := newSet(t, mustRR(t, "www", "A", "192.0.2.1"))
	err := s.Add(mustRR(t, "www", "A", "192.0.2.2"))
	var ne *rrset.NameError
	var re *rrset.RecordError
	assert.False(t, errors.As(err, &ne))
	assert.False(t, errors.As(err, &re))
}

// TestSetMatchesAMap runs random adds, deletes and lookups against a Set and
// a plain map side by side: the Set's own hash index must agree with it
// through growth, collisions and deletions.
func TestSetMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	types := []string{"A", "AAAA", "TXT"}
	contents := map[string]string{"A": "192.0.2.1", "AAAA": "2001:db8::1", "TXT": `"x"`}
	s := newSet(t)
	model := map[rrset.Key]rrset.RRset{}
	for step := range 20000 {
		name := fmt.Sprintf("h%d.example.com.", rng.IntN(300))
		typ := types[rng.IntN(len(types))]
		k := rrset.Key{Name: name, Type: typ}
		switch op := rng.IntN(10); {
		case op < 5:
			rr := rrset.RRset{Name: name, Type: typ, TTL: uint32(step), Records: []string{contents[typ]}}
			err := s.Add(rr)
			if _, dup := model[k]; dup {
				var de *rrset.DuplicateError
				require.ErrorAs(t, err, &de, "step %d", step)
				require.Equal(t, model[k], de.Existing)
			} else {
				require.NoError(t, err, "step %d", step)
				model[k] = rr
			}
		case op < 8:
			_, had := model[k]
			require.Equal(t, had, s.Delete(k), "step %d: delete %v", step, k)
			delete(model, k)
		default:
			got, ok := s.Get(k)
			want, had := model[k]
			require.Equal(t, had, ok, "step %d: get %v", step, k)
			require.Equal(t, want, got)
		}
		require.Equal(t, len(model), s.Len())
	}
	for k, want := range model {
		got, ok := s.Get(k)
		require.True(t, ok, "%v", k)
		require.Equal(t, want, got)
	}
	assert.Len(t, s.Sorted(), len(model))
	same := newSet(t, s.Sorted()...)
	assert.True(t, rrset.Diff(s, same, "").Empty())
}

func TestSetGrowIsAHint(t *testing.T) {
	s := newSet(t, mustRR(t, "a", "A", "192.0.2.1"))
	s.Grow(-1)
	s.Grow(1 << 40) // bounded: no attempt to reserve that much
	require.NoError(t, s.Add(mustRR(t, "b", "A", "192.0.2.2")))
	_, ok := s.Get(rrset.Key{Name: "a", Type: "A"})
	assert.True(t, ok, "Grow keeps what is there")
	assert.Equal(t, 2, s.Len())
}
