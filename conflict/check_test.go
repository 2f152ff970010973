package conflict_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const (
	gw  = "gateway-dns"
	ext = "external-dns"
)

type checkCase struct {
	name     string
	live     []rr // the apex SOA and NS are always added
	desired  []rr
	disabled []rr
	writer   string // gw when empty
	policy   conflict.Policy
	adopt    bool
	allowed  []conflict.Kind
	// plan is the allowed plan as "op name type" lines, names relative.
	plan []string
	// conflicts are the Conflict strings, in order.
	conflicts []string
	kinds     []conflict.Kind
}

var checkCases = []checkCase{
	// The incident: gateway-dns wants CNAMEs where external-dns holds
	// addresses. Both are blocked, naming external-dns; the unrelated
	// write still goes.
	{
		name:    "incident",
		live:    []rr{r("v4", "A", ext, "192.0.2.1"), r("v6", "AAAA", ext, "2001:db8::1")},
		desired: []rr{r("v4", "CNAME", "", "example.com."), r("v6", "CNAME", "", "example.com."), r("www", "A", "", "192.0.2.80")},
		plan:    []string{"create www A"},
		conflicts: []string{
			"v4.example.com. CNAME blocked: CNAME next to A held by external-dns",
			"v6.example.com. CNAME blocked: CNAME next to AAAA held by external-dns",
		},
		kinds: []conflict.Kind{conflict.CNAMEAndOtherData, conflict.CNAMEAndOtherData},
	},
	{
		name:    "incident-takeover-keeps-other-writer",
		live:    []rr{r("v4", "A", ext, "192.0.2.1"), r("v6", "AAAA", ext, "2001:db8::1")},
		desired: []rr{r("v4", "CNAME", "", "example.com."), r("v6", "CNAME", "", "example.com.")},
		policy:  conflict.Takeover,
		adopt:   true,
		conflicts: []string{
			"v4.example.com. CNAME blocked: CNAME next to A held by external-dns",
			"v6.example.com. CNAME blocked: CNAME next to AAAA held by external-dns",
		},
	},
	{
		name:      "incident-reverse",
		writer:    ext,
		live:      []rr{r("v4", "CNAME", gw, "example.com.")},
		desired:   []rr{r("v4", "A", "", "192.0.2.1")},
		conflicts: []string{"v4.example.com. A blocked: A next to CNAME held by gateway-dns"},
		kinds:     []conflict.Kind{conflict.CNAMEAndOtherData},
	},
	{
		name:    "own-type-change",
		live:    []rr{r("v4", "A", gw, "192.0.2.1")},
		desired: []rr{r("v4", "CNAME", "", "example.com.")},
		plan:    []string{"delete v4 A", "create v4 CNAME"},
	},
	// The A is kept in desired while its delete is held back.
	{
		name:      "held-delete-refuse",
		live:      []rr{r("v4", "A", gw, "192.0.2.1")},
		desired:   []rr{r("v4", "A", "", "192.0.2.1"), r("v4", "CNAME", "", "example.com.")},
		policy:    conflict.Refuse,
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by gateway-dns"},
	},
	{
		name:    "held-delete-takeover",
		live:    []rr{r("v4", "A", gw, "192.0.2.1")},
		desired: []rr{r("v4", "A", "", "192.0.2.1"), r("v4", "CNAME", "", "example.com.")},
		policy:  conflict.Takeover,
		plan:    []string{"delete v4 A", "create v4 CNAME"},
	},
	{
		name:      "takeover-never-deletes-another-writer",
		live:      []rr{r("x", "A", gw, "192.0.2.1"), r("x", "AAAA", ext, "2001:db8::1")},
		desired:   []rr{r("x", "A", "", "192.0.2.1"), r("x", "CNAME", "", "example.com.")},
		policy:    conflict.Takeover,
		adopt:     true,
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to A held by gateway-dns, AAAA held by external-dns"},
	},
	{
		name:    "takeover-shared-victim",
		live:    []rr{r("x", "CNAME", gw, "example.com.")},
		desired: []rr{r("x", "CNAME", "", "example.com."), r("x", "A", "", "192.0.2.1"), r("x", "TXT", "", "hello")},
		policy:  conflict.Takeover,
		plan:    []string{"delete x CNAME", "create x A", "create x TXT"},
	},
	{
		name:    "takeover-blocked-by-desired-peer",
		live:    []rr{r("x", "TXT", gw, "hello")},
		desired: []rr{r("x", "TXT", "", "hello"), r("x", "CNAME", "", "example.com."), r("x", "A", "", "192.0.2.1")},
		policy:  conflict.Takeover,
		conflicts: []string{
			"x.example.com. A blocked: A next to CNAME also desired",
			"x.example.com. CNAME blocked: CNAME next to TXT held by gateway-dns, A also desired",
		},
	},
	// The CNAME update is blocked on its own: its live version stays, and
	// Takeover must not delete what the writer asked for. The two writes
	// contradict each other besides.
	{
		name:    "takeover-keeps-blocked-write",
		live:    []rr{r("x", "CNAME", gw, "a.example.net.")},
		desired: []rr{r("x", "CNAME", "", "a.example.net.", "b.example.net."), r("x", "A", "", "192.0.2.1")},
		policy:  conflict.Takeover,
		conflicts: []string{
			"x.example.com. A blocked: A next to CNAME held by gateway-dns, CNAME also desired",
			"x.example.com. CNAME blocked: CNAME next to A also desired",
			"x.example.com. CNAME blocked: 2 records in a CNAME RRset, which allows one",
		},
		kinds: []conflict.Kind{conflict.CNAMEAndOtherData, conflict.CNAMEAndOtherData, conflict.SingleRecordType},
	},
	{
		name:    "takeover-unowned-needs-adoption",
		live:    []rr{r("x", "A", "", "192.0.2.1")},
		desired: []rr{r("x", "CNAME", "", "example.com.")},
		policy:  conflict.Takeover,
		conflicts: []string{
			"x.example.com. CNAME blocked: CNAME next to A held by no writer",
		},
	},
	{
		name:    "takeover-unowned-adopted",
		live:    []rr{r("x", "A", "", "192.0.2.1")},
		desired: []rr{r("x", "CNAME", "", "example.com.")},
		policy:  conflict.Takeover,
		adopt:   true,
		plan:    []string{"delete x A", "create x CNAME"},
	},
	// A pre-existing CNAME next to ALIAS: the TXT takes the CNAME over,
	// the A stays blocked by the ALIAS alone.
	{
		name: "takeover-partial",
		live: []rr{r("x", "CNAME", gw, "example.com."), r("x", "ALIAS", ext, "lb.example.net.")},
		desired: []rr{
			r("x", "CNAME", "", "example.com."), r("x", "TXT", "", "hello"), r("x", "A", "", "192.0.2.1"),
		},
		policy:    conflict.Takeover,
		plan:      []string{"delete x CNAME", "create x TXT"},
		conflicts: []string{"x.example.com. A blocked: A next to ALIAS held by external-dns"},
		kinds:     []conflict.Kind{conflict.ALIASAndAddress},
	},

	// Ownership.
	{
		name:      "not-owner",
		live:      []rr{r("www", "A", ext, "192.0.2.1")},
		desired:   []rr{r("www", "A", "", "192.0.2.2")},
		policy:    conflict.Takeover,
		adopt:     true,
		conflicts: []string{"www.example.com. A blocked: held by external-dns"},
		kinds:     []conflict.Kind{conflict.NotOwner},
	},
	{
		name:      "not-owner-same-data",
		live:      []rr{r("www", "A", ext, "192.0.2.1")},
		desired:   []rr{r("www", "A", "", "192.0.2.1")},
		conflicts: []string{"www.example.com. A blocked: held by external-dns"},
	},
	{
		name:      "unowned",
		live:      []rr{r("www", "A", "", "192.0.2.1")},
		desired:   []rr{r("www", "A", "", "192.0.2.2")},
		conflicts: []string{"www.example.com. A blocked: held by no writer, and adoption is off"},
		kinds:     []conflict.Kind{conflict.Unowned},
	},
	{
		name:    "unowned-adopted",
		live:    []rr{r("www", "A", "", "192.0.2.1")},
		desired: []rr{r("www", "A", "", "192.0.2.1")},
		adopt:   true,
		plan:    []string{"update www A"},
	},
	// The A of external-dns stays, so the CNAME next to it is blocked too.
	{
		name:    "not-owner-then-collision",
		live:    []rr{r("x", "A", ext, "192.0.2.1")},
		desired: []rr{r("x", "A", "", "192.0.2.2"), r("x", "CNAME", "", "example.com.")},
		conflicts: []string{
			"x.example.com. A blocked: A next to CNAME also desired",
			"x.example.com. A blocked: held by external-dns",
			"x.example.com. CNAME blocked: CNAME next to A held by external-dns, A also desired",
		},
	},
	{
		name: "several-writers",
		live: []rr{
			r("x", "A", ext, "192.0.2.1"), r("x", "AAAA", "other-dns", "2001:db8::1"),
			r("x", "MX", ext, "10 mail.example.net."), r("x", "TXT", "", "hello"),
		},
		desired:   []rr{r("x", "CNAME", "", "example.com.")},
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to A and MX held by external-dns, AAAA held by other-dns, TXT held by no writer"},
	},
	{
		name:    "deletes-never-blocked",
		live:    []rr{r("x", "A", gw, "192.0.2.1"), r("x", "TXT", ext, "hello"), r("y", "CNAME", gw, "example.com.")},
		desired: []rr{},
		plan:    []string{"delete x A", "delete y CNAME"},
	},

	// Rules PowerDNS enforces, both directions.
	{
		name:      "a-next-to-cname",
		live:      []rr{r("x", "CNAME", ext, "example.com.")},
		desired:   []rr{r("x", "A", "", "192.0.2.1"), r("x", "MX", "", "10 mail.example.net."), r("y", "TXT", "", "ok")},
		plan:      []string{"create y TXT"},
		conflicts: []string{"x.example.com. A blocked: A next to CNAME held by external-dns", "x.example.com. MX blocked: MX next to CNAME held by external-dns"},
	},
	{
		name:      "cname-update-next-to-new-data",
		live:      []rr{r("x", "CNAME", gw, "a.example.net."), r("x", "TXT", ext, "hello")},
		desired:   []rr{r("x", "CNAME", "", "b.example.net.")},
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to TXT held by external-dns"},
	},
	{
		name: "desired-internal",
		desired: []rr{
			r("x", "A", "", "192.0.2.1"), r("x", "CNAME", "", "example.com."), r("x", "AAAA", "", "2001:db8::1"),
		},
		conflicts: []string{
			"x.example.com. A blocked: A next to CNAME also desired",
			"x.example.com. AAAA blocked: AAAA next to CNAME also desired",
			"x.example.com. CNAME blocked: CNAME next to A and AAAA also desired",
		},
	},
	{
		name:    "desired-internal-update",
		live:    []rr{r("x", "A", gw, "192.0.2.1")},
		desired: []rr{r("x", "A", "", "192.0.2.2"), r("x", "CNAME", "", "example.com.")},
		policy:  conflict.Takeover,
		conflicts: []string{
			"x.example.com. A blocked: A next to CNAME also desired",
			"x.example.com. CNAME blocked: CNAME next to A also desired",
		},
	},
	{
		name:      "single-record-cname",
		desired:   []rr{r("x", "CNAME", "", "a.example.net.", "b.example.net.")},
		conflicts: []string{"x.example.com. CNAME blocked: 2 records in a CNAME RRset, which allows one"},
		kinds:     []conflict.Kind{conflict.SingleRecordType},
	},
	{
		name:      "single-record-dname",
		desired:   []rr{r("x", "DNAME", "", "a.example.net.", "b.example.net.", "c.example.net.")},
		conflicts: []string{"x.example.com. DNAME blocked: 3 records in a DNAME RRset, which allows one"},
	},
	{
		name:      "apex-cname",
		desired:   []rr{r("@", "CNAME", "", "example.net."), r("www", "A", "", "192.0.2.80")},
		plan:      []string{"create www A"},
		conflicts: []string{"example.com. CNAME blocked: CNAME at the zone apex, next to NS and SOA held by no writer"},
		kinds:     []conflict.Kind{conflict.ApexCNAME},
	},
	{
		name:    "apex-cname-and-txt",
		desired: []rr{r("@", "CNAME", "", "example.net."), r("@", "TXT", "", "v=spf1 -all")},
		conflicts: []string{
			"example.com. CNAME blocked: CNAME at the zone apex, next to NS and SOA held by no writer, TXT also desired",
			"example.com. TXT blocked: TXT next to CNAME also desired",
		},
	},
	{
		name:      "ns-next-to-dname",
		live:      []rr{r("sub", "DNAME", ext, "example.net.")},
		desired:   []rr{r("sub", "NS", "", "ns1.example.net.")},
		conflicts: []string{"sub.example.com. NS blocked: NS next to DNAME held by external-dns below the zone apex"},
		kinds:     []conflict.Kind{conflict.NSAndDNAME},
	},
	{
		name:      "dname-next-to-ns",
		live:      []rr{r("sub", "NS", ext, "ns1.example.net.")},
		desired:   []rr{r("sub", "DNAME", "", "example.net.")},
		conflicts: []string{"sub.example.com. DNAME blocked: DNAME next to NS held by external-dns below the zone apex"},
	},
	{
		name:    "dname-at-apex",
		desired: []rr{r("@", "DNAME", "", "example.net.")},
		plan:    []string{"create @ DNAME"},
	},
	{
		name:    "ns-dname-takeover",
		live:    []rr{r("sub", "NS", gw, "ns1.example.net.")},
		desired: []rr{r("sub", "NS", "", "ns1.example.net."), r("sub", "DNAME", "", "example.net.")},
		policy:  conflict.Takeover,
		plan:    []string{"delete sub NS", "create sub DNAME"},
	},
	// Only a server written to directly holds such data; PowerDNS then
	// refuses every write at the name.
	{
		name:      "ns-and-dname-already-live",
		live:      []rr{r("sub", "NS", ext, "ns1.example.net."), r("sub", "DNAME", ext, "example.net.")},
		desired:   []rr{r("sub", "TXT", "", "hello")},
		policy:    conflict.Takeover,
		conflicts: []string{"sub.example.com. TXT blocked: the name holds DNAME and NS held by external-dns below the zone apex, where PowerDNS refuses every write"},
	},
	{
		name:      "cname-and-a-already-live",
		live:      []rr{r("x", "CNAME", ext, "example.com."), r("x", "A", "other-dns", "192.0.2.1")},
		desired:   []rr{r("x", "TXT", "", "hello")},
		conflicts: []string{"x.example.com. TXT blocked: TXT next to CNAME held by external-dns"},
	},
	{
		name:    "placement",
		desired: []rr{r("@", "DS", "", "12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"), r("sub", "SOA", "", "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600")},
		conflicts: []string{
			"example.com. DS blocked: DS at the zone apex",
			"sub.example.com. SOA blocked: SOA below the zone apex",
		},
		kinds: []conflict.Kind{conflict.Placement, conflict.Placement},
	},
	{
		name:    "ds-below-apex",
		desired: []rr{r("sub", "DS", "", "12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"), r("sub", "NS", "", "ns1.example.net.")},
		plan:    []string{"create sub DS", "create sub NS"},
	},

	// Rules PowerDNS does not enforce.
	{
		name:      "alias-next-to-a",
		live:      []rr{r("x", "A", ext, "192.0.2.1")},
		desired:   []rr{r("x", "ALIAS", "", "lb.example.net.")},
		conflicts: []string{"x.example.com. ALIAS blocked: ALIAS next to A held by external-dns"},
		kinds:     []conflict.Kind{conflict.ALIASAndAddress},
	},
	{
		name:      "aaaa-next-to-alias",
		live:      []rr{r("x", "ALIAS", ext, "lb.example.net.")},
		desired:   []rr{r("x", "AAAA", "", "2001:db8::1"), r("x", "TXT", "", "ok")},
		plan:      []string{"create x TXT"},
		conflicts: []string{"x.example.com. AAAA blocked: AAAA next to ALIAS held by external-dns"},
	},
	{
		name:      "alias-next-to-cname",
		live:      []rr{r("x", "CNAME", ext, "example.com.")},
		desired:   []rr{r("x", "ALIAS", "", "lb.example.net.")},
		conflicts: []string{"x.example.com. ALIAS blocked: ALIAS next to CNAME held by external-dns"},
		kinds:     []conflict.Kind{conflict.CNAMEAndOtherData},
	},
	{
		name:    "alias-and-a-desired",
		desired: []rr{r("x", "ALIAS", "", "lb.example.net."), r("x", "A", "", "192.0.2.1")},
		conflicts: []string{
			"x.example.com. A blocked: A next to ALIAS also desired",
			"x.example.com. ALIAS blocked: ALIAS next to A also desired",
		},
	},
	{
		name:    "alias-takeover-own",
		live:    []rr{r("x", "A", gw, "192.0.2.1"), r("x", "AAAA", gw, "2001:db8::1")},
		desired: []rr{r("x", "A", "", "192.0.2.1"), r("x", "AAAA", "", "2001:db8::1"), r("x", "ALIAS", "", "lb.example.net.")},
		policy:  conflict.Takeover,
		plan:    []string{"delete x A", "delete x AAAA", "create x ALIAS"},
	},

	// Disabled live data counts for ownership, not for type rules.
	{
		name:     "disabled-cname-next-to-a",
		disabled: []rr{r("x", "CNAME", ext, "example.com.")},
		desired:  []rr{r("x", "A", "", "192.0.2.1")},
		plan:     []string{"create x A"},
	},
	{
		name:     "disabled-a-next-to-cname",
		disabled: []rr{r("x", "A", ext, "192.0.2.1")},
		desired:  []rr{r("x", "CNAME", "", "example.com.")},
		plan:     []string{"create x CNAME"},
	},
	{
		name:      "disabled-key-of-another-writer",
		disabled:  []rr{r("x", "CNAME", ext, "example.com.")},
		desired:   []rr{r("x", "CNAME", "", "example.com.")},
		policy:    conflict.Takeover,
		adopt:     true,
		conflicts: []string{"x.example.com. CNAME blocked: held by external-dns"},
		kinds:     []conflict.Kind{conflict.NotOwner},
	},
	{
		name:      "disabled-key-unowned",
		disabled:  []rr{r("x", "TXT", "", "hello")},
		desired:   []rr{r("x", "TXT", "", "hello")},
		conflicts: []string{"x.example.com. TXT blocked: held by no writer, and adoption is off"},
	},
	{
		name:     "disabled-key-unowned-adopted",
		disabled: []rr{r("x", "TXT", "", "hello")},
		desired:  []rr{r("x", "TXT", "", "hello")},
		adopt:    true,
		plan:     []string{"create x TXT"},
	},
	{
		name:     "disabled-key-own",
		disabled: []rr{r("x", "TXT", gw, "hello")},
		desired:  []rr{r("x", "TXT", "", "hello")},
		plan:     []string{"create x TXT"},
	},
	// Both reasons are reported, as PowerDNS would refuse the write for
	// the A even if the key were free.
	{
		name:     "disabled-key-and-collision",
		live:     []rr{r("x", "A", "other-dns", "192.0.2.1")},
		disabled: []rr{r("x", "CNAME", ext, "example.com.")},
		desired:  []rr{r("x", "CNAME", "", "example.com.")},
		conflicts: []string{
			"x.example.com. CNAME blocked: CNAME next to A held by other-dns",
			"x.example.com. CNAME blocked: held by external-dns",
		},
		kinds: []conflict.Kind{conflict.CNAMEAndOtherData, conflict.NotOwner},
	},

	// Rules switched off: only those PowerDNS does not enforce.
	{
		name:    "allowed-alias-next-to-a",
		live:    []rr{r("x", "A", ext, "192.0.2.1")},
		desired: []rr{r("x", "ALIAS", "", "lb.example.net.")},
		allowed: []conflict.Kind{conflict.ALIASAndAddress},
		plan:    []string{"create x ALIAS"},
	},
	{
		name:    "allowed-not-owner",
		live:    []rr{r("www", "A", ext, "192.0.2.1")},
		desired: []rr{r("www", "A", "", "192.0.2.2")},
		allowed: []conflict.Kind{conflict.NotOwner},
		plan:    []string{"update www A"},
	},
	{
		name:    "allowed-unowned",
		live:    []rr{r("www", "A", "", "192.0.2.1")},
		desired: []rr{r("www", "A", "", "192.0.2.2")},
		allowed: []conflict.Kind{conflict.Unowned},
		plan:    []string{"update www A"},
	},
	// Allowing Unowned is no adoption: Takeover still deletes no RRset
	// without a writer.
	{
		name:      "allowed-unowned-no-takeover",
		live:      []rr{r("x", "A", "", "192.0.2.1")},
		desired:   []rr{r("x", "CNAME", "", "example.com.")},
		policy:    conflict.Takeover,
		allowed:   []conflict.Kind{conflict.Unowned},
		conflicts: []string{"x.example.com. CNAME blocked: CNAME next to A held by no writer"},
	},
	{
		name:      "allowed-enforced-ignored",
		live:      []rr{r("v4", "A", ext, "192.0.2.1"), r("x", "A", ext, "192.0.2.1")},
		desired:   []rr{r("v4", "CNAME", "", "example.com."), r("x", "ALIAS", "", "lb.example.net.")},
		allowed:   []conflict.Kind{conflict.CNAMEAndOtherData, conflict.ApexCNAME, conflict.SingleRecordType, conflict.NSAndDNAME, conflict.Placement, "Novel"},
		conflicts: []string{"v4.example.com. CNAME blocked: CNAME next to A held by external-dns", "x.example.com. ALIAS blocked: ALIAS next to A held by external-dns"},
	},
}

func (tc checkCase) run(t *testing.T) conflict.Result {
	t.Helper()
	live := newSet(t, zone, buildAll(t, zone, append(apex(), tc.live...)))
	desired := newSet(t, zone, buildAll(t, zone, tc.desired))
	writer := tc.writer
	if writer == "" {
		writer = gw
	}
	opts := []conflict.CheckOption{conflict.WithPolicy(tc.policy), conflict.WithAdoption(tc.adopt), conflict.WithAllowed(tc.allowed...)}
	if len(tc.disabled) > 0 {
		opts = append(opts, conflict.WithDisabledLive(buildAll(t, zone, tc.disabled)...))
	}
	return conflict.Check(desired, live, writer, opts...)
}

func TestCheck(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.run(t)
			assertCheckResult(t, tc, res)
			for _, c := range res.Conflicts {
				assert.Equal(t, c.Key, c.RRset.Key(), "Conflict.Key is the blocked RRset's")
				assert.Equal(t, gwOr(tc.writer), c.RRset.ManagedBy, "the blocked RRset carries the writer")
			}
		})
	}
}

// assertCheckResult holds a Check's result to its case: the plan, the
// conflicts and their kinds, no blocked key in the plan, and Kind.Intrinsic.
func assertCheckResult(t *testing.T, tc checkCase, res conflict.Result) {
	t.Helper()
	want := tc.plan
	if want == nil {
		want = []string{}
	}
	assert.Equal(t, want, changes(res.Plan), "plan:\n%s", res.Plan)
	assert.Equal(t, tc.conflicts, nilIfEmpty(strs(res.Conflicts)))
	if tc.kinds != nil {
		var got []conflict.Kind
		for _, c := range res.Conflicts {
			got = append(got, c.Kind)
		}
		assert.Equal(t, tc.kinds, got)
	}
	for _, c := range res.Conflicts {
		assert.False(t, planHas(res.Plan, c.Key), "%s is blocked yet in the plan", c.Key)
		assertIntrinsic(t, c)
	}
}

// assertIntrinsic checks Kind.Intrinsic against Check: a conflict of an
// intrinsic kind stands when its RRset is the only one, desired or live, in
// the zone; one of any other kind then goes.
func assertIntrinsic(t *testing.T, c conflict.Conflict) {
	t.Helper()
	desired, err := rrset.NewSet(zone)
	require.NoError(t, err)
	require.NoError(t, desired.Add(c.RRset))
	alone := conflict.Check(desired, nil, c.RRset.ManagedBy, conflict.WithAdoption(true))
	var kinds []conflict.Kind
	for _, ac := range alone.Conflicts {
		kinds = append(kinds, ac.Kind)
	}
	if c.Kind.Intrinsic() {
		assert.Contains(t, kinds, c.Kind, "%s is intrinsic, so %s alone breaks it", c.Kind, c.Key)
	} else {
		assert.NotContains(t, kinds, c.Kind, "%s is not intrinsic, yet %s alone breaks it", c.Kind, c.Key)
	}
}

// TestCheckGolden renders every case of TestCheck in full, so that a change
// in what a Result holds or how it reads shows as a diff in testdata/.
func TestCheckGolden(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.header() + "\n" + render(tc.run(t))
			path := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}

func TestCheckNilSets(t *testing.T) {
	res := conflict.Check(nil, nil, gw)
	assert.True(t, res.Plan.Empty())
	assert.Empty(t, res.Conflicts)
	assert.Empty(t, res.Displaced)

	live := newSet(t, zone, buildAll(t, zone, []rr{r("x", "A", gw, "192.0.2.1"), r("y", "A", ext, "192.0.2.2")}))
	res = conflict.Check(nil, live, gw, conflict.WithPolicy(conflict.Takeover), nil)
	assert.Equal(t, []string{"delete x A"}, changes(res.Plan))

	desired := newSet(t, zone, buildAll(t, zone, []rr{r("x", "CNAME", "", "example.com.")}))
	res = conflict.Check(desired, nil, gw)
	assert.Equal(t, []string{"create x CNAME"}, changes(res.Plan))
}

// TestCheckTakeoverOrder checks that the deletes Takeover adds are merged
// with Diff's in canonical order, all before the first write.
func TestCheckTakeoverOrder(t *testing.T) {
	live := newSet(t, zone, buildAll(t, zone, []rr{
		r("a", "A", gw, "192.0.2.1"),
		r("b", "TXT", gw, "gone"),
		r("c", "A", gw, "192.0.2.3"),
		r("c", "AAAA", gw, "2001:db8::3"),
		r("z", "MX", gw, "10 mail.example.net."),
	}))
	desired := newSet(t, zone, buildAll(t, zone, []rr{
		r("a", "A", "", "192.0.2.1"), r("a", "CNAME", "", "example.com."),
		r("c", "A", "", "192.0.2.3"), r("c", "AAAA", "", "2001:db8::3"), r("c", "CNAME", "", "example.com."),
		r("z", "MX", "", "10 mail.example.net."), r("z", "CNAME", "", "example.com."),
	}))
	res := conflict.Check(desired, live, gw, conflict.WithPolicy(conflict.Takeover))
	assert.Equal(t, []string{
		"delete a A", "delete b TXT", "delete c A", "delete c AAAA", "delete z MX",
		"create a CNAME", "create c CNAME", "create z CNAME",
	}, changes(res.Plan))
	assert.Empty(t, res.Conflicts)
	var displaced []string
	for _, d := range res.Displaced {
		displaced = append(displaced, d.Key().String())
	}
	assert.Equal(t, []string{"a.example.com. A", "c.example.com. A", "c.example.com. AAAA", "z.example.com. MX"}, displaced)
}

func TestPolicyString(t *testing.T) {
	assert.Equal(t, "refuse", conflict.Refuse.String())
	assert.Equal(t, "takeover", conflict.Takeover.String())
	assert.Equal(t, "Policy(7)", conflict.Policy(7).String())
	var zero conflict.Policy
	assert.Equal(t, conflict.Refuse, zero, "the zero Policy refuses")
}

// TestUnknownPolicyRefuses makes sure a Policy value from nowhere deletes
// nothing.
func TestUnknownPolicyRefuses(t *testing.T) {
	live := newSet(t, zone, buildAll(t, zone, []rr{r("x", "A", gw, "192.0.2.1")}))
	desired := newSet(t, zone, buildAll(t, zone, []rr{r("x", "A", "", "192.0.2.1"), r("x", "CNAME", "", "example.com.")}))
	res := conflict.Check(desired, live, gw, conflict.WithPolicy(conflict.Policy(42)))
	assert.True(t, res.Plan.Empty())
	assert.Len(t, res.Conflicts, 1)
}

func TestKind(t *testing.T) {
	enforced := map[conflict.Kind]bool{
		conflict.CNAMEAndOtherData: true, conflict.SingleRecordType: true, conflict.ApexCNAME: true,
		conflict.NSAndDNAME: true, conflict.Placement: true,
		conflict.ALIASAndAddress: false, conflict.NotOwner: false, conflict.Unowned: false,
		conflict.ApexRequired: false,
	}
	intrinsic := map[conflict.Kind]bool{
		conflict.SingleRecordType: true, conflict.ApexCNAME: true, conflict.Placement: true,
		// Only a Remove asks for it, and only the Remove can change.
		conflict.ApexRequired: true,
	}
	for k, want := range enforced {
		assert.Equal(t, want, k.EnforcedByPowerDNS(), "%s", k)
		assert.Equal(t, intrinsic[k], k.Intrinsic(), "%s", k)
		assert.Equal(t, string(k), k.String())
	}
}

func TestApexRequiredString(t *testing.T) {
	c := conflict.Conflict{Key: rrset.Key{Name: zone, Type: "SOA"}, Kind: conflict.ApexRequired}
	assert.Equal(t, zone+" SOA blocked: the zone needs its apex SOA: it is not deleted (its contents may change; DeleteZone removes the zone)", c.String())
	assert.True(t, conflict.ApexRequired.Known())
}

func TestConflictWriters(t *testing.T) {
	c := conflict.Conflict{With: []rrset.RRset{
		{Type: "A", ManagedBy: ext}, {Type: "AAAA", ManagedBy: ""}, {Type: "MX", ManagedBy: ext}, {Type: "TXT", ManagedBy: "b"},
	}}
	assert.Equal(t, []string{"", "b", ext}, c.Writers())
	assert.Empty(t, conflict.Conflict{}.Writers())
}

func TestResultBlocked(t *testing.T) {
	res := checkCases[0].run(t)
	assert.True(t, res.Blocked(rrset.Key{Name: "v4.example.com.", Type: "CNAME"}))
	assert.False(t, res.Blocked(rrset.Key{Name: "www.example.com.", Type: "A"}))
}

// header describes the case's input for its golden file.
func (tc checkCase) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Check by %s, policy %s, adoption %t.\n", gwOr(tc.writer), tc.policy, tc.adopt)
	if len(tc.allowed) > 0 {
		fmt.Fprintf(&b, "Allowed: %v.\n", tc.allowed)
	}
	for _, part := range []struct {
		title string
		rrs   []rr
	}{{"Live", tc.live}, {"Live, all records disabled", tc.disabled}, {"Desired", tc.desired}} {
		if len(part.rrs) == 0 {
			continue
		}
		b.WriteString(part.title + ":\n")
		for _, x := range part.rrs {
			line := fmt.Sprintf("  %s %s %s", x.name, x.typ, strings.Join(x.contents, " | "))
			if x.owner != "" || part.title != "Desired" {
				line += " (" + owner(x.owner) + ")"
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func gwOr(w string) string {
	if w == "" {
		return gw
	}
	return w
}

func planHas(p rrset.Plan, k rrset.Key) bool {
	for _, c := range p.Changes {
		if c.Key() == k {
			return true
		}
	}
	return false
}

func TestConflictString(t *testing.T) {
	k := rrset.Key{Name: "x.example.com.", Type: "CNAME"}
	for _, tc := range []struct {
		c    conflict.Conflict
		want string
	}{
		{conflict.Conflict{Key: k, Kind: conflict.ApexCNAME}, "x.example.com. CNAME blocked: CNAME at the zone apex"},
		{conflict.Conflict{Key: k, Kind: conflict.CNAMEAndOtherData}, "x.example.com. CNAME blocked: CNAME next to other data"},
		{conflict.Conflict{Key: k, Kind: conflict.NotOwner}, "x.example.com. CNAME blocked: held by another writer"},
		{
			conflict.Conflict{Key: k, Kind: conflict.NotOwner, With: []rrset.RRset{{ManagedBy: "b"}, {ManagedBy: "a"}}},
			"x.example.com. CNAME blocked: held by a and b",
		},
		{
			conflict.Conflict{Key: rrset.Key{Name: "x.example.com.", Type: "DNSKEY"}, Kind: conflict.Placement},
			"x.example.com. DNSKEY blocked: DNSKEY below the zone apex",
		},
		{
			conflict.Conflict{Key: k, Kind: "Novel", With: []rrset.RRset{{Type: "A", ManagedBy: ext}}},
			"x.example.com. CNAME blocked: Novel with A held by external-dns",
		},
	} {
		assert.Equal(t, tc.want, tc.c.String())
	}
}
