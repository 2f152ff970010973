package reconcile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/claimrec"
	"github.com/pdnskit/reconcile/rrset"
)

// md builds a metadata listing: kind, then its values, repeated.
func md(kindsAndValues ...[]string) []powerdns.Metadata {
	var out []powerdns.Metadata
	for _, kv := range kindsAndValues {
		kind := powerdns.MetadataKind(kv[0])
		out = append(out, powerdns.Metadata{Kind: &kind, Metadata: kv[1:]})
	}
	return out
}

func key(name, typ string) rrset.Key { return rrset.Key{Name: name + "." + testZone, Type: typ} }

func claimOf(name, typ string, stamp int64, owner string) string {
	v := "claim " + name + "." + testZone + " " + typ + " " + strconv.FormatInt(stamp, 10)
	if owner != "" {
		v += " " + owner
	}
	return v
}

func TestReadClaims(t *testing.T) {
	listing := md(
		[]string{"X-PDNSKIT-O-AAA-1", "writer me", claimOf("a", "A", 10, ""), claimOf("b", "A", 10, "ns/b")},
		[]string{"X-PDNSKIT-O-BBB-1", "writer them", claimOf("c", "A", 11, "")},
		// b handed over within the writer: the later claim names the owner.
		[]string{"X-PDNSKIT-O-AAA-2", "writer me", claimOf("b", "A", 20, "ns/b2")},
		// a released by the writer; c released by someone else: ignored.
		[]string{"X-PDNSKIT-R-AAA-3", "writer me", "release a." + testZone + " A X-PDNSKIT-O-AAA-1", "release c." + testZone + " A X-PDNSKIT-O-BBB-1"},
		// c claimed later by me after it was deleted and created again.
		[]string{"X-PDNSKIT-O-AAA-4", "writer me", claimOf("c", "A", 30, "")},
		// Not whole yet: no writer line.
		[]string{"X-PDNSKIT-O-CCC-1", claimOf("d", "A", 40, "")},
		// Not ours at all.
		[]string{"ALLOW-AXFR-FROM", "AUTO-NS"},
		// Earlier versions: one kind per writer.
		[]string{claimrec.LegacyKind("old"), "writer old", "claim e." + testZone + " A 5"},
		[]string{"X-PDNSKIT-OWNER-0000", "writer forged", "claim f." + testZone + " A 5"},
		[]string{"X-PDNSKIT-O-AAA-5", "writer me", "claim broken", "claim g." + testZone + " A notanumber", "other"},
	)
	b := readClaims(listing, "me", readScope{})
	assert.Equal(t, ownership{}, b.owner(key("a", "A")), "released")
	assert.Equal(t, ownership{writer: "me", owner: "ns/b2"}, b.owner(key("b", "A")))
	assert.Equal(t, ownership{writer: "me"}, b.owner(key("c", "A")), "the latest claim wins")
	assert.Equal(t, ownership{}, b.owner(key("d", "A")), "a record not yet whole says nothing")
	assert.Equal(t, ownership{writer: "old"}, b.owner(key("e", "A")))
	assert.Equal(t, ownership{}, b.owner(key("f", "A")), "a legacy kind must match its writer")
	assert.Equal(t, ownership{}, b.owner(key("g", "A")))
	assert.Equal(t, int64(30), b.maxStamp)
	assert.Len(t, b.mine[key("b", "A")], 2)
	assert.Len(t, b.records, 5, "the writer's records, whatever their lines")
	var nilBook *claimBook
	assert.Equal(t, ownership{}, nilBook.owner(key("a", "A")))
}

func TestClaimsAndReleases(t *testing.T) {
	b := readClaims(md(
		[]string{"X-PDNSKIT-O-AAA-1", "writer me", claimOf("a", "A", 10, "ns/a"), claimOf("b", "A", 10, "")},
	), "me", readScope{})
	a := &rrset.RRset{Name: "a." + testZone, Type: "A", Owner: "ns/a"}
	aOther := &rrset.RRset{Name: "a." + testZone, Type: "A", Owner: "ns/z"}
	aNoOwner := &rrset.RRset{Name: "a." + testZone, Type: "A"}
	c := &rrset.RRset{Name: "c." + testZone, Type: "A"}

	assert.Nil(t, b.claims([]*rrset.RRset{a, aNoOwner}, 5), "claimed already for that owner, or for any")
	assert.Equal(t, &claimrec.Record{Writer: "me", Claims: []claimrec.Claim{
		{Name: "a." + testZone, Type: "A", Stamp: 11, Owner: "ns/z"},
		{Name: "c." + testZone, Type: "A", Stamp: 11},
	}}, b.claims([]*rrset.RRset{aOther, c}, 5), "stamped after every claim read")
	assert.Equal(t, &claimrec.Record{Writer: "me", Claims: []claimrec.Claim{{Name: "c." + testZone, Type: "A", Stamp: 99}}},
		b.claims([]*rrset.RRset{c}, 99), "or at now")

	assert.Nil(t, b.releases([]rrset.Key{key("c", "A")}))
	assert.Equal(t, &claimrec.Record{Writer: "me", Releases: []claimrec.Release{{Name: "b." + testZone, Type: "A", Record: "X-PDNSKIT-O-AAA-1"}}},
		b.releases([]rrset.Key{key("b", "A")}))

	held := func(k rrset.Key) bool { return k == key("a", "A") }
	assert.Equal(t, []rrset.Key{key("b", "A")}, b.stale(held, 11))
	assert.Empty(t, b.stale(held, 10), "a recent claim may be a write in progress")
}

func TestTidying(t *testing.T) {
	t.Run("a record with nothing left goes, then the releases that cancel it", func(t *testing.T) {
		b := readClaims(md(
			[]string{"X-PDNSKIT-O-AAA-1", "writer me", claimOf("a", "A", 10, "")},
			[]string{"X-PDNSKIT-O-AAA-2", "writer me", claimOf("b", "A", 11, ""), claimOf("c", "A", 11, "")},
			[]string{"X-PDNSKIT-R-AAA-3", "writer me", "release a." + testZone + " A X-PDNSKIT-O-AAA-1"},
			[]string{"X-PDNSKIT-R-AAA-4", "writer me", "release b." + testZone + " A X-PDNSKIT-O-AAA-2"},
		), "me", readScope{})
		got := b.tidying(nil, 0)
		assert.Nil(t, got.merged)
		assert.Equal(t, []string{"X-PDNSKIT-O-AAA-1", "X-PDNSKIT-R-AAA-3"}, got.drop,
			"record 2 still holds c, so its release of b stays")

		got = b.tidying([]rrset.Key{key("c", "A")}, 0)
		assert.Equal(t, []string{"X-PDNSKIT-O-AAA-1", "X-PDNSKIT-O-AAA-2", "X-PDNSKIT-R-AAA-3", "X-PDNSKIT-R-AAA-4"}, got.drop)
	})
	t.Run("many small records merge into one", func(t *testing.T) {
		var listing [][]string
		// One large record, and many small ones after it.
		large := []string{"X-PDNSKIT-O-AAA-0", "writer me"}
		for i := range 100 {
			large = append(large, claimOf(fmt.Sprintf("big%d", i), "A", 1, ""))
		}
		listing = append(listing, large)
		for i := 1; i <= maxClaimRecords; i++ {
			listing = append(listing, []string{fmt.Sprintf("X-PDNSKIT-O-AAA-%d", i), "writer me", claimOf(fmt.Sprintf("s%02d", i), "A", int64(i+1), "")})
		}
		b := readClaims(md(listing...), "me", readScope{})
		got := b.tidying(nil, 0)
		require.NotNil(t, got.merged)
		merged := maxClaimRecords + 1 - mergeDownTo + 1
		assert.Len(t, got.merged.Claims, merged, "one claim per merged record")
		assert.Len(t, got.drop, merged)
		assert.NotContains(t, got.drop, "X-PDNSKIT-O-AAA-0", "the large record is not rewritten")
		for _, c := range got.merged.Claims {
			assert.False(t, strings.HasPrefix(c.Name, "big"), c.Name)
		}
		// What is merged reads back as the same claims.
		record := append([]string{"X-PDNSKIT-O-AAA-99"}, got.merged.Values(claimrec.ValueBytes)...)
		after := readClaims(append(md(listing...), md(record)...), "me", readScope{})
		for k := range b.owners {
			assert.Equal(t, b.owner(k), after.owner(k), "%s", k)
		}
	})
	t.Run("records the write just posted count towards the bound", func(t *testing.T) {
		var listing [][]string
		for i := 1; i <= maxClaimRecords; i++ {
			listing = append(listing, []string{fmt.Sprintf("X-PDNSKIT-O-AAA-%d", i), "writer me", claimOf(fmt.Sprintf("s%02d", i), "A", int64(i), "")})
		}
		b := readClaims(md(listing...), "me", readScope{})
		assert.Nil(t, b.tidying(nil, 0).merged, "at the bound: nothing to merge")

		got := b.tidying(nil, 1)
		require.NotNil(t, got.merged, "one fresh record puts the zone over the bound")
		read := maxClaimRecords + 1 - mergeDownTo + 1
		assert.Len(t, got.drop, read, "so many read records merge that mergeDownTo remain with the fresh one")
		assert.Len(t, got.merged.Claims, read)

		got = b.tidying(nil, 3*maxClaimRecords)
		assert.Len(t, got.drop, maxClaimRecords, "many fresh records: every read record merges into one, the fresh ones stay")
	})
	t.Run("merging keeps one claim per key, the latest", func(t *testing.T) {
		var listing [][]string
		for i := 1; i <= maxClaimRecords+1; i++ {
			listing = append(listing, []string{fmt.Sprintf("X-PDNSKIT-O-AAA-%d", i), "writer me", claimOf("same", "A", int64(i), fmt.Sprintf("o%d", i))})
		}
		got := readClaims(md(listing...), "me", readScope{}).tidying(nil, 0)
		require.NotNil(t, got.merged)
		latest := 0
		for _, kind := range got.drop {
			n, err := strconv.Atoi(strings.TrimPrefix(kind, "X-PDNSKIT-O-AAA-"))
			require.NoError(t, err)
			latest = max(latest, n)
		}
		assert.Equal(t, &claimrec.Record{Writer: "me", Claims: []claimrec.Claim{
			{Name: "same." + testZone, Type: "A", Stamp: int64(latest), Owner: fmt.Sprintf("o%d", latest)},
		}}, got.merged)
	})
}

// TestSplitRecord: a record's values are split into records whose POST
// bodies stay within the limit, each starting with the writer line, with
// every value kept once and in order.
func TestSplitRecord(t *testing.T) {
	values := []string{"writer w"}
	for i := range 1000 {
		values = append(values, claimOf(fmt.Sprintf("n%04d", i), "A", int64(i), ""))
	}
	for _, limit := range []int{1024, 8 << 10, 64 << 10, 2 << 20} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			parts := splitRecord(values, limit)
			var joined []string
			for _, p := range parts {
				require.Greater(t, len(p), 1)
				assert.Equal(t, "writer w", p[0])
				kind := powerdns.MetadataKind("X-PDNSKIT-O-0123456789AB-ZZZZZZ")
				body, err := json.Marshal(powerdns.Metadata{Kind: &kind, Metadata: p})
				require.NoError(t, err)
				assert.LessOrEqual(t, len(body), limit)
				joined = append(joined, p[1:]...)
			}
			assert.Equal(t, values[1:], joined)
			if limit == 2<<20 {
				assert.Len(t, parts, 1, "what fits in one record stays one")
			}
		})
	}
	assert.Equal(t, [][]string{{"writer w"}}, splitRecord([]string{"writer w"}, 1024))
}

// TestReadClaimsScoped: a book read for one name holds what the whole book
// holds at that name, stamps new claims after every claim of the zone, and
// plans the same upkeep as the whole book.
func TestReadClaimsScoped(t *testing.T) {
	var listing [][]string
	for i := 1; i <= maxClaimRecords+2; i++ {
		listing = append(listing, []string{fmt.Sprintf("X-PDNSKIT-O-AAA-%d", i), "writer me",
			claimOf(fmt.Sprintf("n%02d", i), "A", int64(i), ""), claimOf("shared", "A", int64(i), fmt.Sprintf("o%d", i))})
	}
	listing = append(listing,
		[]string{"X-PDNSKIT-O-BBB-1", "writer them", claimOf("zz", "A", 99, "")},
		[]string{"X-PDNSKIT-R-AAA-50", "writer me", "release shared." + testZone + " A X-PDNSKIT-O-AAA-3", "release n01." + testZone + " A X-PDNSKIT-O-AAA-1"},
	)
	whole := readClaims(md(listing...), "me", readScope{})
	for _, scope := range []readScope{{name: key("shared", "A").Name}, {name: key("n01", "A").Name, typ: "A"}, {name: key("none", "A").Name}} {
		t.Run(scope.name, func(t *testing.T) {
			b := readClaims(md(listing...), "me", scope)
			for k := range whole.owners {
				if scope.covers(k) {
					assert.Equal(t, whole.owner(k), b.owner(k), "%s", k)
					assert.Equal(t, whole.mine[k], b.mine[k], "%s", k)
				} else {
					assert.Equal(t, ownership{}, b.owner(k), "%s is not read", k)
				}
			}
			assert.Equal(t, int64(99), b.maxStamp, "stamped after every claim of the zone")
			assert.Equal(t, whole.tidying(nil, 1), b.tidying(nil, 1))
		})
	}
}

// TestNewApexClaims: the claims that hold the apex of a zone EnsureZone
// created, posted without the lock, hold it only while no other claim
// does: a writer that adopted the apex in between keeps it whichever
// record the listing shows first, and the writer's own later claim (a
// handover to its "soa" object) is stamped after them.
func TestNewApexClaims(t *testing.T) {
	const now = 1_700_000_000_000_000_000
	apex := func(writer, owner string, stamp int64) []string {
		rec := claimrec.Record{Writer: writer}
		for _, typ := range []string{"SOA", "NS"} {
			rec.Claims = append(rec.Claims, claimrec.Claim{Name: testZone, Type: typ, Stamp: stamp, Owner: owner})
		}
		return rec.Values(claimrec.ValueBytes)
	}
	mine := append([]string{"X-PDNSKIT-O-AAA-1"}, newApexClaims(testZone, "me", "dnszone/a").Values(claimrec.ValueBytes)...)
	soa, ns := rrset.Key{Name: testZone, Type: "SOA"}, rrset.Key{Name: testZone, Type: "NS"}

	b := readClaims(md(mine), "me", readScope{})
	assert.Equal(t, ownership{writer: "me", owner: "dnszone/a"}, b.owner(soa))
	assert.Equal(t, ownership{writer: "me", owner: "dnszone/a"}, b.owner(ns))

	adopted := append([]string{"X-PDNSKIT-O-BBB-1"}, apex("them", "", now)...)
	for name, listing := range map[string][]powerdns.Metadata{
		"adoption listed first": md(adopted, mine),
		"adoption listed last":  md(mine, adopted),
	} {
		t.Run(name, func(t *testing.T) {
			b := readClaims(listing, "me", readScope{})
			assert.Equal(t, ownership{writer: "them"}, b.owner(soa))
			assert.Equal(t, ownership{writer: "them"}, b.owner(ns))
		})
	}

	handover := b.claims([]*rrset.RRset{{Name: testZone, Type: "SOA", Owner: "dnsrecordset/a/soa"}}, 1)
	require.NotNil(t, handover)
	b = readClaims(md(mine, append([]string{"X-PDNSKIT-O-AAA-2"}, handover.Values(claimrec.ValueBytes)...)), "me", readScope{})
	assert.Equal(t, ownership{writer: "me", owner: "dnsrecordset/a/soa"}, b.owner(soa), "the handover wins")
	assert.Equal(t, ownership{writer: "me", owner: "dnszone/a"}, b.owner(ns))
}
