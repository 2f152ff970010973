package reconcile

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

func TestObserve(t *testing.T) {
	soa := zonejson.RRset{Name: testZone, Type: "SOA", TTL: 3600, Records: []zonejson.Record{{Content: "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"}}}
	own := zonejson.RRset{Name: "WWW." + testZone, Type: "A", TTL: 300,
		Records: []zonejson.Record{{Content: "192.0.2.2"}, {Content: "192.0.2.1"}, {Content: "192.0.2.9", Disabled: true}},
		Comments: []zonejson.Comment{{Account: commentAccount, Content: "managed-by=me\nowner=ns/www"}, {Account: "ops", Content: "keep me", ModifiedAt: 7},
			{Account: noteAccount, Content: "managed-by=them\nmoved to the new balancer"}}}
	off := zonejson.RRset{Name: "off." + testZone, Type: "TXT", TTL: 300, Records: []zonejson.Record{{Content: `"x"`, Disabled: true}}}
	claimed := zonejson.RRset{Name: "claimed." + testZone, Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.3"}}}
	garbage := zonejson.RRset{Name: "bad..example.com.", Type: "A", TTL: 300, Records: []zonejson.Record{{Content: "192.0.2.1"}}}
	commentsOnly := zonejson.RRset{Name: "c." + testZone, Type: "A", Comments: []zonejson.Comment{{Content: "x"}}}
	claims := md([]string{"X-PDNSKIT-O-AAA-1", "writer them", claimOf("claimed", "A", 1, "")})
	var warnings int
	warn := func(string, ...any) { warnings++ }

	z := zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{soa, own, off, claimed, garbage, commentsOnly}}
	obs, err := observe(testZone, z, claims, "me", readScope{}, nil, warn)
	require.NoError(t, err)
	assert.Equal(t, 1, warnings, "the name no one can read")
	www, ok := obs.set.Get(rrset.Key{Name: "www." + testZone, Type: "A"})
	require.True(t, ok)
	assert.Equal(t, []string{"192.0.2.1", "192.0.2.2"}, www.Records, "enabled records only, canonical order")
	assert.Equal(t, "me", www.ManagedBy)
	assert.Equal(t, "ns/www", www.Owner)
	assert.Equal(t, "managed-by=them\nmoved to the new balancer", www.Comment, "the note, never read as ownership")
	require.Len(t, obs.foreign[www.Key()], 1, "the note is not another client's comment")
	assert.Equal(t, "keep me", *obs.foreign[www.Key()][0].Content)
	require.Len(t, obs.disabled, 1)
	assert.Equal(t, "off."+testZone, obs.disabled[0].Name)
	c, _ := obs.set.Get(rrset.Key{Name: "claimed." + testZone, Type: "A"})
	assert.Equal(t, "them", c.ManagedBy, "ownership from the metadata claims")

	t.Run("a whole read without the SOA is incomplete", func(t *testing.T) {
		_, err := observe(testZone, zonejson.Zone{Name: testZone, RRsets: []zonejson.RRset{own}}, nil, "me", readScope{}, nil, warn)
		assert.ErrorIs(t, err, ErrIncompleteZone)
	})
	t.Run("an empty answer is incomplete", func(t *testing.T) {
		_, err := observe(testZone, zonejson.Zone{}, nil, "me", readScope{name: "www." + testZone}, nil, warn)
		assert.ErrorIs(t, err, ErrIncompleteZone)
	})
	t.Run("another zone is refused", func(t *testing.T) {
		_, err := observe(testZone, zonejson.Zone{Name: "example.org."}, nil, "me", readScope{name: "www." + testZone}, nil, warn)
		assert.ErrorIs(t, err, errNotTheZone)
	})
	t.Run("a read of one name keeps that name only", func(t *testing.T) {
		obs, err := observe(testZone, z, nil, "me", readScope{name: "www." + testZone}, nil, warn)
		require.NoError(t, err)
		assert.Equal(t, 1, obs.set.Len(), "an old server that ignores the filter answers the whole zone")
	})
}

func TestViewLock(t *testing.T) {
	now := time.Unix(200_000, 0)
	own := func(kind string) bool { return strings.Contains(kind, "-SELF-") }
	stamp := func(writer string, at int64) []string {
		return []string{lockWriter + writer + lockAt + strconv.FormatInt(at, 10)}
	}
	cases := []struct {
		name    string
		listing []powerdns.Metadata
		want    lockView
	}{
		{name: "alone", listing: md(append([]string{"X-PDNSKIT-L-SELF-1"}, stamp("me", 200_000)...))},
		{name: "another holds it", listing: md(append([]string{"X-PDNSKIT-L-OTHER-1"}, stamp("them", 199_990)...)),
			want: lockView{contended: true, holders: []string{"them"}}},
		{name: "two others", listing: md(append([]string{"X-PDNSKIT-L-OTHER-1"}, stamp("them", 199_990)...), append([]string{"X-PDNSKIT-L-THIRD-1"}, stamp("else", 199_999)...)),
			want: lockView{contended: true, holders: []string{"them", "else"}}},
		{name: "an abandoned lock is ignored", listing: md(append([]string{"X-PDNSKIT-L-OTHER-1"}, stamp("them", 199_000)...))},
		{name: "a lock kind not whole yet is being taken", listing: md([]string{"X-PDNSKIT-L-OTHER-2"}),
			want: lockView{contended: true, holders: []string{"another writer"}}},
		{name: "a day old goes", listing: md(append([]string{"X-PDNSKIT-L-OTHER-1"}, stamp("them", 100_000)...)),
			want: lockView{abandoned: []string{"X-PDNSKIT-L-OTHER-1"}}},
		{name: "other kinds", listing: md([]string{"SOA-EDIT-API", "DEFAULT"}, []string{"X-PDNSKIT-O-OTHER-1", "writer them"})},
		{name: "another waits", listing: md(append([]string{"X-PDNSKIT-W-OTHER-3"}, stamp("them", 199_999)...)),
			want: lockView{waiting: []string{"them"}}},
		{name: "a waiting kind not whole yet waits", listing: md([]string{"X-PDNSKIT-W-OTHER-3"}),
			want: lockView{waiting: []string{"another writer"}}},
		{name: "one holds, another waits", listing: md(append([]string{"X-PDNSKIT-L-OTHER-1"}, stamp("them", 199_990)...),
			append([]string{"X-PDNSKIT-W-THIRD-1"}, stamp("else", 199_999)...), append([]string{"X-PDNSKIT-W-THIRD-2"}, stamp("else", 199_999)...)),
			want: lockView{contended: true, holders: []string{"them"}, waiting: []string{"else"}}},
		{name: "a stale wait is ignored", listing: md(append([]string{"X-PDNSKIT-W-OTHER-3"}, stamp("them", 199_000)...))},
		{name: "a day-old wait goes", listing: md(append([]string{"X-PDNSKIT-W-OTHER-3"}, stamp("them", 100_000)...)),
			want: lockView{abandoned: []string{"X-PDNSKIT-W-OTHER-3"}}},
		{name: "its own wait is no one's", listing: md(append([]string{"X-PDNSKIT-W-SELF-2"}, stamp("me", 199_999)...))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, viewLock(c.listing, own, now, DefaultLockTTL))
		})
	}
}
