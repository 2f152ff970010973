package conflict_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// Object references, standing for the writers of objects that claim names.
const (
	objA = "default/gw-v4-address"
	objB = "infra/edge-v4-address"
	objC = "default/gw-v4-cname"
)

// lv is a live RRset written as a controller might hold it: any spelling,
// records optional.
func lv(name, typ, writer string, records ...string) rrset.RRset {
	return rrset.RRset{Name: name, Type: typ, TTL: 300, Records: records, ManagedBy: writer}
}

type againstCase struct {
	name   string
	want   rrset.RRset
	writer string // gw when empty
	live   []rrset.RRset
	opts   []conflict.AgainstOption // WithZone(zone) unless noZone
	noZone bool
	// conflicts are the Conflict strings, in order; nil when want may be
	// written.
	conflicts []string
	kinds     []conflict.Kind
	// writers are the Writers of each conflict, when the case checks them.
	writers [][]string
}

var againstCases = []againstCase{
	// The incident, as objects: another path's addresses at the gateway
	// names block the CNAMEs, naming the object in the way.
	{
		name:      "cname-next-to-a",
		want:      lv("v4", "CNAME", "", "example.com."),
		writer:    objC,
		live:      []rrset.RRset{lv("v4.example.com.", "A", objA, "192.0.2.1"), lv("v6.example.com.", "AAAA", objA, "2001:db8::1")},
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by default/gw-v4-address"},
		kinds:     []conflict.Kind{conflict.CNAMEAndOtherData},
		writers:   [][]string{{objA}},
	},
	{
		name:      "a-next-to-cname",
		want:      lv("v4", "A", "", "192.0.2.1"),
		writer:    objA,
		live:      []rrset.RRset{lv("v4", "CNAME", objC, "example.com.")},
		conflicts: []string{"v4.example.com. A blocked: A next to CNAME held by default/gw-v4-cname"},
		kinds:     []conflict.Kind{conflict.CNAMEAndOtherData},
	},
	{
		name:   "free-name",
		want:   lv("www", "CNAME", "", "example.com."),
		live:   []rrset.RRset{lv("v4", "A", ext, "192.0.2.1"), lv("www.www", "TXT", ext, `"not here"`), lv("api", "A", ext, "192.0.2.2")},
		writer: gw,
	},
	{
		name:      "single-record-type",
		want:      lv("x", "CNAME", "", "a.example.net.", "b.example.net."),
		conflicts: []string{"x.example.com. CNAME blocked: 2 records in a CNAME RRset, which allows one"},
		kinds:     []conflict.Kind{conflict.SingleRecordType},
	},
	{
		name:      "apex-cname-next-to-soa-and-ns",
		want:      lv("@", "CNAME", "", "example.net."),
		live:      []rrset.RRset{lv("example.com.", "SOA", ""), lv("EXAMPLE.com", "NS", "", "ns1.example.net.")},
		conflicts: []string{"example.com. CNAME blocked: CNAME at the zone apex, next to NS and SOA held by no writer"},
		kinds:     []conflict.Kind{conflict.ApexCNAME},
	},
	{
		name:      "apex-cname-alone",
		want:      lv("example.com.", "CNAME", "", "example.net."),
		conflicts: []string{"example.com. CNAME blocked: CNAME at the zone apex"},
		kinds:     []conflict.Kind{conflict.ApexCNAME},
	},
	{
		name:      "ns-next-to-dname",
		want:      lv("sub", "NS", "", "ns1.example.net."),
		live:      []rrset.RRset{lv("sub", "DNAME", ext, "example.net.")},
		conflicts: []string{"sub.example.com. NS blocked: NS next to DNAME held by external-dns below the zone apex"},
		kinds:     []conflict.Kind{conflict.NSAndDNAME},
	},
	{
		name: "dname-next-to-ns-at-apex",
		want: lv("@", "DNAME", "", "example.net."),
		live: []rrset.RRset{lv("@", "NS", "", "ns1.example.net.")},
	},
	{
		name:      "ns-and-dname-already-held",
		want:      lv("sub", "TXT", "", `"hello"`),
		live:      []rrset.RRset{lv("sub", "NS", ext, "ns1.example.net."), lv("sub", "DNAME", "other-dns", "example.net.")},
		conflicts: []string{"sub.example.com. TXT blocked: the name holds DNAME held by other-dns, NS held by external-dns below the zone apex, where PowerDNS refuses every write"},
		kinds:     []conflict.Kind{conflict.NSAndDNAME},
	},
	{
		name:      "ds-at-apex",
		want:      lv("@", "DS", "", "12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"),
		conflicts: []string{"example.com. DS blocked: DS at the zone apex"},
		kinds:     []conflict.Kind{conflict.Placement},
	},
	{
		name:      "soa-below-apex",
		want:      lv("sub", "SOA", "", "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"),
		conflicts: []string{"sub.example.com. SOA blocked: SOA below the zone apex"},
		kinds:     []conflict.Kind{conflict.Placement},
	},
	{
		name: "ds-below-apex",
		want: lv("sub", "DS", "", "12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"),
		live: []rrset.RRset{lv("sub", "NS", ext, "ns1.example.net.")},
	},
	{
		name:      "alias-next-to-a",
		want:      lv("x", "ALIAS", "", "lb.example.net."),
		live:      []rrset.RRset{lv("x", "A", ext, "192.0.2.1")},
		conflicts: []string{"x.example.com. ALIAS blocked: ALIAS next to A held by external-dns"},
		kinds:     []conflict.Kind{conflict.ALIASAndAddress},
	},
	{
		name:      "aaaa-next-to-alias",
		want:      lv("x", "AAAA", "", "2001:db8::1"),
		live:      []rrset.RRset{lv("x", "ALIAS", ext, "lb.example.net.")},
		conflicts: []string{"x.example.com. AAAA blocked: AAAA next to ALIAS held by external-dns"},
		kinds:     []conflict.Kind{conflict.ALIASAndAddress},
	},

	// Ownership of want's key.
	{
		name:      "not-owner",
		want:      lv("www", "A", "", "192.0.2.2"),
		live:      []rrset.RRset{lv("www", "A", ext, "192.0.2.1")},
		opts:      []conflict.AgainstOption{conflict.WithAdoption(true)},
		conflicts: []string{"www.example.com. A blocked: held by external-dns"},
		kinds:     []conflict.Kind{conflict.NotOwner},
	},
	{
		name:      "unowned",
		want:      lv("www", "A", "", "192.0.2.2"),
		live:      []rrset.RRset{lv("www", "A", "", "192.0.2.1")},
		conflicts: []string{"www.example.com. A blocked: held by no writer, and adoption is off"},
		kinds:     []conflict.Kind{conflict.Unowned},
		writers:   [][]string{{""}},
	},
	{
		name: "unowned-adopted",
		want: lv("www", "A", "", "192.0.2.2"),
		live: []rrset.RRset{lv("www", "A", "", "192.0.2.1")},
		opts: []conflict.AgainstOption{conflict.WithAdoption(true)},
	},
	{
		name: "own-key",
		want: lv("www", "A", "", "192.0.2.2"),
		live: []rrset.RRset{lv("www.example.com.", "A", gw, "192.0.2.1")},
	},
	// The name holds another writer's A: want's own key is free, but the
	// CNAME cannot go next to it; both reasons are given.
	{
		name: "not-owner-and-collision",
		want: lv("x", "CNAME", "", "example.com."),
		live: []rrset.RRset{lv("x", "CNAME", ext, "old.example.net."), lv("x", "A", "other-dns", "192.0.2.1")},
		conflicts: []string{
			"x.example.com. CNAME blocked: CNAME next to A held by other-dns",
			"x.example.com. CNAME blocked: held by external-dns",
		},
		kinds: []conflict.Kind{conflict.CNAMEAndOtherData, conflict.NotOwner},
	},

	// Several claimants at one key.
	{
		name:   "several-claimants-of-another-type",
		want:   lv("v4", "CNAME", "", "example.com."),
		writer: objC,
		live: []rrset.RRset{
			lv("v4", "A", objB, "192.0.2.9"), lv("v4.example.com", "A", objA, "192.0.2.1"),
		},
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by default/gw-v4-address, A held by infra/edge-v4-address"},
		writers:   [][]string{{objA, objB}},
	},
	{
		name:   "several-claimants-of-want-key",
		want:   lv("v4", "A", "", "192.0.2.1"),
		writer: objA,
		live: []rrset.RRset{
			lv("v4", "A", objA, "192.0.2.1"), lv("v4", "A", objB, "192.0.2.9"), lv("v4", "A", "default/hand-made", "192.0.2.1"),
		},
		conflicts: []string{"v4.example.com. A blocked: held by default/hand-made and infra/edge-v4-address"},
		kinds:     []conflict.Kind{conflict.NotOwner},
		writers:   [][]string{{"default/hand-made", objB}},
	},
	{
		name:   "claimants-foreign-and-unowned",
		want:   lv("v4", "A", "", "192.0.2.1"),
		writer: objA,
		live:   []rrset.RRset{lv("v4", "A", "", "192.0.2.7"), lv("v4", "A", objB, "192.0.2.9"), lv("v4", "A", objA, "192.0.2.1")},
		conflicts: []string{
			"v4.example.com. A blocked: held by infra/edge-v4-address",
			"v4.example.com. A blocked: held by no writer, and adoption is off",
		},
		kinds: []conflict.Kind{conflict.NotOwner, conflict.Unowned},
	},
	{
		name:   "claimants-own-only",
		want:   lv("v4", "A", "", "192.0.2.1"),
		writer: objA,
		live:   []rrset.RRset{lv("v4", "A", objA, "192.0.2.1"), lv("V4.EXAMPLE.COM.", "a", objA)},
	},

	// Records are not needed to be in the way.
	{
		name:      "empty-records-stand-for-data",
		want:      lv("v6", "CNAME", "", "example.com."),
		writer:    objC,
		live:      []rrset.RRset{lv("v6", "AAAA", objA)},
		conflicts: []string{"v6.example.com. CNAME blocked: CNAME next to AAAA held by default/gw-v4-address"},
	},
	{
		name:      "empty-records-at-want-key",
		want:      lv("v6", "AAAA", "", "2001:db8::1"),
		live:      []rrset.RRset{lv("v6", "AAAA", ext)},
		conflicts: []string{"v6.example.com. AAAA blocked: held by external-dns"},
	},

	// Spellings: one name, one type.
	{
		name: "respelled-names-and-types",
		want: lv("API.example.COM", "cname", "", "lb.example.net."),
		live: []rrset.RRset{
			lv("api", "a", ext, "192.0.2.1"), lv("api.example.com.", "TYPE28", "other-dns", "2001:db8::1"),
			lv("Api.Example.Com", "txt", "", `"x"`), lv("api.example.com.example.com.", "A", ext, "192.0.2.2"),
		},
		conflicts: []string{"api.example.com. CNAME blocked: CNAME next to A held by external-dns, AAAA held by other-dns, TXT held by no writer"},
		writers:   [][]string{{"", ext, "other-dns"}},
	},
	{
		name: "fqdn-to-relative-own",
		want: lv("api", "A", "", "192.0.2.1"),
		live: []rrset.RRset{lv("api.example.com", "A", gw, "192.0.2.1")},
	},
	{
		name: "out-of-zone-ignored",
		want: lv("v4", "CNAME", "", "example.com."),
		live: []rrset.RRset{lv("v4.example.org.", "A", ext, "192.0.2.1"), lv("v4.", "A", ext, "192.0.2.1")},
	},

	// Own data of another type is in the way too; unchanged data is
	// judged all the same.
	{
		name:      "own-a-next-to-own-cname",
		want:      lv("x", "CNAME", "", "example.com."),
		live:      []rrset.RRset{lv("x", "A", gw, "192.0.2.1")},
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to A held by gateway-dns"},
		writers:   [][]string{{gw}},
	},
	{
		name:      "own-a-adoption-deletes-nothing",
		want:      lv("x", "CNAME", "", "example.com."),
		live:      []rrset.RRset{lv("x", "A", gw, "192.0.2.1")},
		opts:      []conflict.AgainstOption{conflict.WithAdoption(true)},
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to A held by gateway-dns"},
	},
	{
		name:      "unchanged-own-still-judged",
		want:      lv("x", "A", "", "192.0.2.1"),
		live:      []rrset.RRset{lv("x", "A", gw, "192.0.2.1"), lv("x", "ALIAS", ext, "lb.example.net.")},
		conflicts: []string{"x.example.com. A blocked: A next to ALIAS held by external-dns"},
	},

	// The apex without WithZone.
	{
		name:      "apex-from-live-soa",
		want:      lv("example.com", "CNAME", "", "example.net."),
		noZone:    true,
		live:      []rrset.RRset{lv("Example.com.", "SOA", ""), lv("www.example.com.", "A", ext, "192.0.2.1")},
		conflicts: []string{"example.com. CNAME blocked: CNAME at the zone apex, next to SOA held by no writer"},
		kinds:     []conflict.Kind{conflict.ApexCNAME},
	},
	{
		name:      "apex-of-closest-zone",
		want:      lv("sub.example.com.", "DS", "", "12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"),
		noZone:    true,
		live:      []rrset.RRset{lv("example.com.", "SOA", ""), lv("sub.example.com.", "SOA", ""), lv("other.example.", "SOA", "")},
		conflicts: []string{"sub.example.com. DS blocked: DS at the zone apex"},
		kinds:     []conflict.Kind{conflict.Placement},
	},
	{
		name:      "no-zone-no-soa-below-apex",
		want:      lv("example.com.", "CNAME", "", "example.net."),
		noZone:    true,
		live:      []rrset.RRset{lv("example.com.", "NS", "", "ns1.example.net.")},
		conflicts: []string{"example.com. CNAME blocked: CNAME next to NS held by no writer"},
		kinds:     []conflict.Kind{conflict.CNAMEAndOtherData},
	},
	{
		name:   "no-zone-names-absolute",
		want:   lv("v4.example.com", "CNAME", "", "example.com."),
		noZone: true,
		live:   []rrset.RRset{lv("V4.example.com.", "A", ext, "192.0.2.1"), lv("v4", "AAAA", ext, "2001:db8::1")},
		// "v4" alone is the top-level name v4., not v4.example.com.
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by external-dns"},
	},

	// Disabled data counts for ownership only.
	{
		name: "disabled-cname-not-in-the-way",
		want: lv("x", "A", "", "192.0.2.1"),
		opts: []conflict.AgainstOption{conflict.WithDisabledLive(lv("x", "CNAME", ext, "example.com."))},
	},
	{
		name:      "disabled-key-of-another-writer",
		want:      lv("x", "CNAME", "", "example.com."),
		opts:      []conflict.AgainstOption{conflict.WithDisabledLive(lv("X.example.com.", "cname", ext, "example.com."))},
		conflicts: []string{"x.example.com. CNAME blocked: held by external-dns"},
		kinds:     []conflict.Kind{conflict.NotOwner},
	},
	{
		name: "disabled-key-live-wins",
		want: lv("x", "TXT", "", `"hello"`),
		live: []rrset.RRset{lv("x", "TXT", gw, `"old"`)},
		opts: []conflict.AgainstOption{conflict.WithDisabledLive(lv("x", "TXT", ext, `"older"`))},
	},

	// Rules switched off.
	{
		name: "allowed-alias-and-address",
		want: lv("x", "ALIAS", "", "lb.example.net."),
		live: []rrset.RRset{lv("x", "A", ext, "192.0.2.1")},
		opts: []conflict.AgainstOption{conflict.WithAllowed(conflict.ALIASAndAddress)},
	},
	{
		name: "allowed-not-owner",
		want: lv("www", "A", "", "192.0.2.2"),
		live: []rrset.RRset{lv("www", "A", ext, "192.0.2.1")},
		opts: []conflict.AgainstOption{conflict.WithAllowed(conflict.NotOwner)},
	},
	{
		name: "allowed-unowned",
		want: lv("www", "A", "", "192.0.2.2"),
		live: []rrset.RRset{lv("www", "A", "", "192.0.2.1")},
		opts: []conflict.AgainstOption{conflict.WithAllowed(conflict.Unowned)},
	},
	{
		name:      "allowed-enforced-ignored",
		want:      lv("v4", "CNAME", "", "example.com."),
		live:      []rrset.RRset{lv("v4", "A", ext, "192.0.2.1")},
		opts:      []conflict.AgainstOption{conflict.WithAllowed(conflict.CNAMEAndOtherData, conflict.ApexCNAME, "Novel")},
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by external-dns"},
	},
	{
		name:      "allowed-one-of-two",
		want:      lv("x", "ALIAS", "", "lb.example.net."),
		live:      []rrset.RRset{lv("x", "A", ext, "192.0.2.1"), lv("x", "ALIAS", ext, "old.example.net.")},
		opts:      []conflict.AgainstOption{conflict.WithAllowed(conflict.ALIASAndAddress)},
		conflicts: []string{"x.example.com. ALIAS blocked: held by external-dns"},
	},
}

func (tc againstCase) run(t *testing.T, live []rrset.RRset) []conflict.Conflict {
	t.Helper()
	opts := tc.opts
	if !tc.noZone {
		opts = append([]conflict.AgainstOption{conflict.WithZone("Example.COM")}, opts...)
	}
	return conflict.Against(tc.want, gwOr(tc.writer), live, opts...)
}

func TestAgainst(t *testing.T) {
	for _, tc := range againstCases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.run(t, tc.live)
			assert.Equal(t, tc.conflicts, nilIfEmpty(strs(got)))
			if tc.kinds != nil {
				var kinds []conflict.Kind
				for _, c := range got {
					kinds = append(kinds, c.Kind)
				}
				assert.Equal(t, tc.kinds, kinds)
			}
			if tc.writers != nil {
				var writers [][]string
				for _, c := range got {
					writers = append(writers, c.Writers())
				}
				assert.Equal(t, tc.writers, writers)
			}
			for _, c := range got {
				assert.Equal(t, c.Key, c.RRset.Key(), "Conflict.Key is want's")
				assert.Equal(t, gwOr(tc.writer), c.RRset.ManagedBy, "the blocked RRset carries the writer")
				assert.Empty(t, c.Desired, "Against has no other writes")
				if c.Kind == conflict.NotOwner || c.Kind == conflict.Unowned {
					assert.NotContains(t, c.Writers(), gwOr(tc.writer), "a claimant that is the writer is no conflict")
				}
			}

			// The same answer whatever the order of live.
			rev := slices.Clone(tc.live)
			slices.Reverse(rev)
			assert.Equal(t, got, tc.run(t, rev), "order of live")
		})
	}
}

// TestAgainstCanonicalForm checks what a Conflict carries: want spelled
// canonically, its records sorted as a Set keeps them, and the live RRsets
// respelled, their records as given.
func TestAgainstCanonicalForm(t *testing.T) {
	want := lv("V4", "cname", "", "example.com.")
	live := []rrset.RRset{lv("v4.EXAMPLE.com", "aaaa", ext, "2001:db8::2", "2001:db8::1")}
	got := conflict.Against(want, gw, live, conflict.WithZone("example.com"))
	assert.Equal(t, []conflict.Conflict{{
		Key:   rrset.Key{Name: "v4.example.com.", Type: "CNAME"},
		Kind:  conflict.CNAMEAndOtherData,
		RRset: rrset.RRset{Name: "v4.example.com.", Type: "CNAME", TTL: 300, Records: []string{"example.com."}, ManagedBy: gw},
		With:  []rrset.RRset{{Name: "v4.example.com.", Type: "AAAA", TTL: 300, Records: []string{"2001:db8::2", "2001:db8::1"}, ManagedBy: ext}},
	}}, got)

	two := lv("x", "CNAME", "", "b.example.net.", "a.example.net.", "b.example.net.")
	got = conflict.Against(two, gw, nil, conflict.WithZone("example.com"))
	if assert.Len(t, got, 1) {
		assert.Equal(t, []string{"a.example.net.", "b.example.net."}, got[0].RRset.Records)
		assert.Equal(t, []string{"b.example.net.", "a.example.net.", "b.example.net."}, two.Records, "want is not modified")
	}
}

// TestAgainstBadInput feeds Against what it cannot canonicalise: it judges
// as well as it can and never panics.
func TestAgainstBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		want rrset.RRset
		live []rrset.RRset
		zone string
		n    int
	}{
		{"invalid zone", lv("v4.example.com.", "CNAME", "", "x."), []rrset.RRset{lv("v4.example.com.", "A", ext)}, "exa mple..com", 1},
		{"invalid names compared as written", lv("a..b", "CNAME", "", "x."), []rrset.RRset{lv("A..B", "A", ext)}, "example.com", 1},
		{"empty type", lv("x", "", "", "x."), []rrset.RRset{lv("x", "", ext)}, "example.com", 1},
		{"odd type", lv("x", "not a type", "", "x."), []rrset.RRset{lv("x", "CNAME", ext)}, "example.com", 1},
		{"empty want", rrset.RRset{}, []rrset.RRset{{}}, "", 1},
		{"nil live", lv("x", "A", "", "192.0.2.1"), nil, "example.com", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := conflict.Against(tc.want, gw, tc.live, conflict.WithZone(tc.zone))
			assert.Len(t, got, tc.n, "%s", strs(got))
		})
	}
}
