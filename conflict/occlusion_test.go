package conflict_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

const infra = "infra-dns"

var occlusionCheckCases = []checkCase{
	{
		name:      "a-below-a-delegation",
		live:      []rr{r("sub", "NS", infra, "ns1.example.net.")},
		desired:   []rr{r("x.sub", "A", "", "192.0.2.1"), r("www", "A", "", "192.0.2.80")},
		plan:      []string{"create www A"},
		conflicts: []string{"x.sub.example.com. A blocked: below NS at sub.example.com. held by infra-dns, never served"},
		kinds:     []conflict.Kind{conflict.Occluded},
	},
	{
		name:      "deep-below-a-delegation",
		live:      []rr{r("sub", "NS", infra, "ns1.example.net.")},
		desired:   []rr{r("a.b.c.sub", "TXT", "", `"x"`)},
		conflicts: []string{"a.b.c.sub.example.com. TXT blocked: below NS at sub.example.com. held by infra-dns, never served"},
	},
	{
		name:      "own-delegation-hides-own-data",
		live:      []rr{r("sub", "NS", gw, "ns1.example.net.")},
		desired:   []rr{r("sub", "NS", "", "ns1.example.net."), r("x.sub", "A", "", "192.0.2.1")},
		conflicts: []string{"x.sub.example.com. A blocked: below NS at sub.example.com. held by gateway-dns, never served"},
	},
	{
		name:      "delegation-written-in-the-same-plan",
		desired:   []rr{r("sub", "NS", "", "ns1.example.net."), r("x.sub", "A", "", "192.0.2.1")},
		plan:      []string{"create sub NS"},
		conflicts: []string{"x.sub.example.com. A blocked: below NS at sub.example.com. also desired, never served"},
	},
	{
		name:    "glue-of-the-delegation",
		live:    []rr{r("sub", "NS", infra, "ns1.sub.example.com.", "ns2.example.net.")},
		desired: []rr{r("ns1.sub", "A", "", "192.0.2.53"), r("ns1.sub", "AAAA", "", "2001:db8::53")},
		plan:    []string{"create ns1.sub A", "create ns1.sub AAAA"},
	},
	{
		name:      "glue-is-addresses-only",
		live:      []rr{r("sub", "NS", infra, "ns1.sub.example.com.")},
		desired:   []rr{r("ns1.sub", "TXT", "", `"x"`)},
		conflicts: []string{"ns1.sub.example.com. TXT blocked: below NS at sub.example.com. held by infra-dns, never served"},
	},
	{
		name:      "an-address-nobody-delegates-to",
		live:      []rr{r("sub", "NS", infra, "ns1.sub.example.com.")},
		desired:   []rr{r("ns2.sub", "A", "", "192.0.2.53")},
		conflicts: []string{"ns2.sub.example.com. A blocked: below NS at sub.example.com. held by infra-dns, never served"},
	},
	{
		name:    "the-apex-ns-is-no-delegation",
		desired: []rr{r("x", "A", "", "192.0.2.1"), r("@", "A", "", "192.0.2.2")},
		plan:    []string{"create @ A", "create x A"},
	},
	{
		name:      "below-a-dname",
		live:      []rr{r("old", "DNAME", infra, "new.example.net.")},
		desired:   []rr{r("www.old", "CNAME", "", "example.com."), r("old", "TXT", "", `"beside the DNAME"`)},
		plan:      []string{"create old TXT"},
		conflicts: []string{"www.old.example.com. CNAME blocked: below DNAME at old.example.com. held by infra-dns, never served"},
	},
	{
		name:      "below-a-dname-at-the-apex",
		live:      []rr{r("@", "DNAME", infra, "example.net.")},
		desired:   []rr{r("www", "A", "", "192.0.2.1")},
		conflicts: []string{"www.example.com. A blocked: below DNAME at example.com. held by infra-dns, never served"},
	},
	{
		name:    "a-dname-hides-glue-too",
		live:    []rr{r("old", "DNAME", infra, "new.example.net."), r("sub.old", "NS", infra, "ns1.sub.old.example.com.")},
		desired: []rr{r("ns1.sub.old", "A", "", "192.0.2.53")},
		conflicts: []string{
			"ns1.sub.old.example.com. A blocked: below DNAME at old.example.com. held by infra-dns, never served",
		},
	},
	{
		name:      "delegating-over-another-writers-data",
		live:      []rr{r("x.sub", "A", ext, "192.0.2.1"), r("y.sub", "TXT", ext, `"y"`)},
		desired:   []rr{r("sub", "NS", "", "ns1.example.net.")},
		conflicts: []string{"sub.example.com. NS blocked: would hide A at x.sub.example.com. held by external-dns and TXT at y.sub.example.com. held by external-dns"},
		kinds:     []conflict.Kind{conflict.Occluded},
	},
	{
		name: "delegating-over-many",
		live: []rr{
			r("a.sub", "A", ext, "192.0.2.1"), r("b.sub", "A", ext, "192.0.2.1"), r("c.sub", "A", ext, "192.0.2.1"),
			r("d.sub", "A", ext, "192.0.2.1"), r("e.sub", "A", ext, "192.0.2.1"),
		},
		desired: []rr{r("sub", "NS", "", "ns1.example.net.")},
		conflicts: []string{
			"sub.example.com. NS blocked: would hide A at a.sub.example.com. held by external-dns, A at b.sub.example.com. held by external-dns, A at c.sub.example.com. held by external-dns and 2 more",
		},
	},
	{
		name:      "delegating-over-data-of-no-writer",
		live:      []rr{r("x.sub", "A", "", "192.0.2.1")},
		desired:   []rr{r("sub", "NS", "", "ns1.example.net.")},
		conflicts: []string{"sub.example.com. NS blocked: would hide A at x.sub.example.com. held by no writer"},
	},
	{
		name:    "delegating-over-data-of-no-writer-adopted",
		live:    []rr{r("x.sub", "A", "", "192.0.2.1")},
		desired: []rr{r("sub", "NS", "", "ns1.example.net.")},
		adopt:   true,
		plan:    []string{"create sub NS"},
	},
	{
		name:    "delegating-over-own-data-that-goes",
		live:    []rr{r("x.sub", "A", gw, "192.0.2.1")},
		desired: []rr{r("sub", "NS", "", "ns1.example.net.")},
		plan:    []string{"delete x.sub A", "create sub NS"},
	},
	{
		name:    "delegating-beside-glue",
		live:    []rr{r("ns1.sub", "A", ext, "192.0.2.53")},
		desired: []rr{r("sub", "NS", "", "ns1.sub.example.com.")},
		plan:    []string{"create sub NS"},
	},
	{
		name:      "dropping-a-target-hides-its-glue",
		live:      []rr{r("sub", "NS", gw, "ns1.sub.example.com.", "ns2.sub.example.com."), r("ns2.sub", "A", ext, "192.0.2.54")},
		desired:   []rr{r("sub", "NS", "", "ns1.sub.example.com.")},
		conflicts: []string{"sub.example.com. NS blocked: would hide A at ns2.sub.example.com. held by external-dns"},
		kinds:     []conflict.Kind{conflict.Occluded},
	},
	{
		name:    "an-update-keeping-the-glue-targets",
		live:    []rr{r("sub", "NS", gw, "ns1.sub.example.com.", "ns2.example.net."), r("ns1.sub", "A", ext, "192.0.2.53")},
		desired: []rr{r("sub", "NS", "", "ns1.sub.example.com.")},
		plan:    []string{"update sub NS"},
	},
	{
		name:    "dropping-a-target-allowed",
		live:    []rr{r("sub", "NS", gw, "ns1.sub.example.com.", "ns2.sub.example.com."), r("ns2.sub", "A", ext, "192.0.2.54")},
		desired: []rr{r("sub", "NS", "", "ns1.sub.example.com.")},
		allowed: []conflict.Kind{conflict.Occluded},
		plan:    []string{"update sub NS"},
	},
	{
		name:      "a-dname-over-another-writers-data",
		live:      []rr{r("x.old", "A", ext, "192.0.2.1")},
		desired:   []rr{r("old", "DNAME", "", "new.example.net.")},
		conflicts: []string{"old.example.com. DNAME blocked: would hide A at x.old.example.com. held by external-dns"},
	},
	{
		name:    "a-delegation-the-plan-deletes",
		live:    []rr{r("sub", "NS", gw, "ns1.example.net.")},
		desired: []rr{r("x.sub", "A", "", "192.0.2.1")},
		plan:    []string{"delete sub NS", "create x.sub A"},
	},
	{
		name:    "a-delegation-blocked-in-the-same-plan",
		live:    []rr{r("x.sub", "A", ext, "192.0.2.1")},
		desired: []rr{r("sub", "NS", "", "ns1.example.net."), r("y.sub", "A", "", "192.0.2.2")},
		plan:    []string{"create y.sub A"},
		conflicts: []string{
			"sub.example.com. NS blocked: would hide A at x.sub.example.com. held by external-dns",
		},
	},
	{
		name:    "allowed",
		live:    []rr{r("sub", "NS", infra, "ns1.example.net."), r("x.other", "A", ext, "192.0.2.1")},
		desired: []rr{r("x.sub", "A", "", "192.0.2.1"), r("other", "NS", "", "ns1.example.net.")},
		allowed: []conflict.Kind{conflict.Occluded},
		plan:    []string{"create other NS", "create x.sub A"},
	},
	{
		name:    "other-rules-still-reported",
		live:    []rr{r("sub", "NS", infra, "ns1.example.net."), r("x.sub", "A", ext, "192.0.2.1")},
		desired: []rr{r("x.sub", "CNAME", "", "example.com.")},
		conflicts: []string{
			"x.sub.example.com. CNAME blocked: CNAME next to A held by external-dns",
			"x.sub.example.com. CNAME blocked: below NS at sub.example.com. held by infra-dns, never served",
		},
		kinds: []conflict.Kind{conflict.CNAMEAndOtherData, conflict.Occluded},
	},
	{
		name:    "takeover-does-not-lift-it",
		live:    []rr{r("sub", "NS", gw, "ns1.example.net.")},
		desired: []rr{r("sub", "NS", "", "ns1.example.net."), r("x.sub", "A", "", "192.0.2.1")},
		policy:  conflict.Takeover,
		conflicts: []string{
			"x.sub.example.com. A blocked: below NS at sub.example.com. held by gateway-dns, never served",
		},
	},
}

func TestCheckOccluded(t *testing.T) {
	for _, tc := range occlusionCheckCases {
		t.Run(tc.name, func(t *testing.T) {
			assertCheckResult(t, tc, tc.run(t))
		})
	}
}

var occlusionAgainstCases = []againstCase{
	{
		name:      "below-another-objects-delegation",
		want:      lv("x.sub", "A", "", "192.0.2.1"),
		live:      []rrset.RRset{lv("SUB.example.com", "ns", objB, "ns1.example.net.")},
		conflicts: []string{"x.sub.example.com. A blocked: below NS at sub.example.com. held by infra/edge-v4-address, never served"},
		kinds:     []conflict.Kind{conflict.Occluded},
	},
	{
		name: "glue",
		want: lv("ns1.sub", "A", "", "192.0.2.53"),
		live: []rrset.RRset{lv("sub", "NS", objB, "NS1.sub.example.com")},
	},
	{
		name:      "glue-needs-the-ns-records",
		want:      lv("ns1.sub", "A", "", "192.0.2.53"),
		live:      []rrset.RRset{lv("sub", "NS", objB)},
		conflicts: []string{"ns1.sub.example.com. A blocked: below NS at sub.example.com. held by infra/edge-v4-address, never served"},
	},
	{
		name:      "delegation-over-another-object",
		want:      lv("sub", "NS", "", "ns1.sub.example.com."),
		live:      []rrset.RRset{lv("x.sub.example.com.", "A", objA, "192.0.2.1"), lv("ns1.sub", "A", objA, "192.0.2.53")},
		conflicts: []string{"sub.example.com. NS blocked: would hide A at x.sub.example.com. held by default/gw-v4-address"},
	},
	{
		name:      "an-update-dropping-another-objects-glue",
		want:      lv("sub", "NS", "", "ns1.sub.example.com."),
		live:      []rrset.RRset{lv("sub", "NS", gw, "ns1.sub.example.com.", "ns2.sub.example.com."), lv("ns2.sub", "A", objA, "192.0.2.54")},
		conflicts: []string{"sub.example.com. NS blocked: would hide A at ns2.sub.example.com. held by default/gw-v4-address"},
		kinds:     []conflict.Kind{conflict.Occluded},
	},
	{
		name: "delegation-over-own-glue",
		want: lv("sub", "NS", "", "ns1.sub.example.com."),
		live: []rrset.RRset{lv("ns1.sub", "A", objA, "192.0.2.53")},
	},
	{
		name: "own-data-below-is-no-conflict",
		want: lv("sub", "NS", "", "ns1.example.net."),
		live: []rrset.RRset{lv("x.sub", "A", gw, "192.0.2.1")},
	},
	{
		name:      "below-a-dname",
		want:      lv("a.old", "TXT", "", `"x"`),
		live:      []rrset.RRset{lv("old", "DNAME", objB, "new.example.net.")},
		conflicts: []string{"a.old.example.com. TXT blocked: below DNAME at old.example.com. held by infra/edge-v4-address, never served"},
	},
	{
		name:   "no-apex-known-ns-not-judged",
		noZone: true,
		want:   lv("x.example.com.", "A", "", "192.0.2.1"),
		live:   []rrset.RRset{lv("example.com.", "NS", objB, "ns1.example.net.")},
	},
	{
		name:      "no-apex-known-dname-judged",
		noZone:    true,
		want:      lv("x.old.example.com.", "A", "", "192.0.2.1"),
		live:      []rrset.RRset{lv("old.example.com.", "DNAME", objB, "new.example.net.")},
		conflicts: []string{"x.old.example.com. A blocked: below DNAME at old.example.com. held by infra/edge-v4-address, never served"},
	},
	{
		name:   "apex-from-live-soa",
		noZone: true,
		want:   lv("x.sub.example.com.", "A", "", "192.0.2.1"),
		live: []rrset.RRset{
			lv("example.com.", "SOA", "", "ns1.example.net. h.example.net. 1 10800 3600 604800 3600"),
			lv("example.com.", "NS", "", "ns1.example.net."), lv("sub.example.com.", "NS", objB, "ns1.example.net."),
		},
		conflicts: []string{"x.sub.example.com. A blocked: below NS at sub.example.com. held by infra/edge-v4-address, never served"},
	},
	{
		name: "allowed",
		want: lv("x.sub", "A", "", "192.0.2.1"),
		live: []rrset.RRset{lv("sub", "NS", objB, "ns1.example.net.")},
		opts: []conflict.AgainstOption{conflict.WithAllowed(conflict.Occluded)},
	},
}

func TestAgainstOccluded(t *testing.T) {
	for _, tc := range occlusionAgainstCases {
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
		})
	}
}

func TestOccludedKind(t *testing.T) {
	assert.True(t, conflict.Occluded.Known())
	assert.False(t, conflict.Occluded.EnforcedByPowerDNS(), "PowerDNS stores occluded data")
	assert.False(t, conflict.Occluded.Intrinsic(), "the data above or below decides")
	assert.Equal(t, "Occluded", conflict.Occluded.String())
}

func TestAncestors(t *testing.T) {
	tests := []struct {
		zone, name string
		want       []string
	}{
		{"example.com", "x.sub.example.com.", []string{"sub.example.com.", "example.com."}},
		{"example.com.", "x.sub", []string{"sub.example.com.", "example.com."}},
		{"Example.COM", "WWW", []string{"example.com."}},
		{"example.com.", "@", nil},
		{"example.com.", `a\.b.example.com.`, []string{"example.com."}},
		{"example.com.", `x.a\.b.example.com.`, []string{`a\.b.example.com.`, "example.com."}},
		{"example.com.", "other.example.org.", nil},
		{"", "x", nil},
	}
	for _, tc := range tests {
		t.Run(tc.zone+" "+tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, conflict.Ancestors(tc.zone, tc.name))
		})
	}
}
