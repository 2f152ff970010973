package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestByName(t *testing.T) {
	cases := []struct {
		name          string
		rrsets, reads int
		want          bool
	}{
		{"a small zone is read whole", 300, 2, false},
		{"a zone of 1,000: its name and the apex", 1000, 2, true},
		{"a zone of 1,000: a name two below the apex", 1000, 3, true},
		{"a zone of 1,000: deeper", 1000, 4, false},
		{"a deep name in a zone of 10,000", 10000, 6, true},
		{"a large batch in a zone of 10,000", 10000, 30, false},
		{"one name, at the apex: never more than the whole", 3, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, byName(c.rrsets, c.reads))
		})
	}
}

func TestLockedScope(t *testing.T) {
	set := func(t *testing.T, rrs ...rrset.RRset) *rrset.Set {
		t.Helper()
		s, err := rrset.NewSet(testZone)
		require.NoError(t, err)
		for _, rr := range rrs {
			require.NoError(t, s.Add(rr))
		}
		return s
	}
	a := func(name string) rrset.RRset {
		return rrset.RRset{Name: name, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}
	}
	www, deep, other := "www."+testZone, "x.sub."+testZone, "mail."+testZone
	cases := []struct {
		name    string
		names   []string
		desired *rrset.Set
		above   bool
		rrsets  int
		whole   bool
		want    readScope
	}{
		{"never read whole", []string{www}, set(t, a(www)), true, 5000, false, readScope{}},
		{"a create in a large zone: its name and the apex", []string{www}, set(t, a(www)), true, 5000, true,
			readScope{name: www, names: []string{}, ancestors: []string{testZone}}},
		{"an adoption: its name", []string{www}, set(t, a(www)), false, 5000, true,
			readScope{name: www, names: []string{}}},
		{"a batch: each name, each name above once", []string{www, deep, other}, set(t, a(www), a(deep), a(other)), true, 5000, true,
			readScope{name: www, names: []string{deep, other}, ancestors: []string{testZone, "sub." + testZone}}},
		{"a small zone is read whole", []string{www}, set(t, a(www)), true, 200, true, readScope{}},
		{"an NS below the apex: whole", []string{www}, set(t, rrset.RRset{Name: www, Type: "NS", TTL: 300, Records: []string{"ns.example.net."}}), true, 5000, true, readScope{}},
		{"a DNAME below the apex: whole", []string{www}, set(t, rrset.RRset{Name: www, Type: "DNAME", TTL: 300, Records: []string{"example.net."}}), true, 5000, true, readScope{}},
		{"an NS at the apex: by name", []string{testZone}, set(t, rrset.RRset{Name: testZone, Type: "NS", TTL: 300, Records: []string{"ns.example.net."}}), true, 5000, true,
			readScope{name: testZone, names: []string{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lockedScope(testZone, c.names, c.desired, c.above, c.rrsets, c.whole)
			assert.Equal(t, c.want, got)
		})
	}
}
