package rrset_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestNewRRset(t *testing.T) {
	tests := []struct {
		name, owner, typ string
		contents         []string
		want             rrset.RRset
	}{
		{
			name: "every spelling of the name gives one RRset", owner: "API.example.com", typ: "a",
			contents: []string{"192.0.2.2", "192.0.2.1"},
			want:     rrset.RRset{Name: "api.example.com.", Type: "A", TTL: 300, Records: []string{"192.0.2.1", "192.0.2.2"}},
		},
		{
			name: "duplicates after canonicalisation collapse", owner: "@", typ: "Mx",
			contents: []string{"10 mail.example.com", "10 MAIL.example.com.", "010 mail.example.com."},
			want:     rrset.RRset{Name: "example.com.", Type: "MX", TTL: 300, Records: []string{"10 mail.example.com."}},
		},
		{
			name: "generic type name", owner: "www", typ: "type5",
			contents: []string{"target.example.net"},
			want:     rrset.RRset{Name: "www.example.com.", Type: "CNAME", TTL: 300, Records: []string{"target.example.net."}},
		},
		{
			name: "wildcard owner", owner: "*.dev", typ: "TXT",
			contents: []string{"x"},
			want:     rrset.RRset{Name: "*.dev.example.com.", Type: "TXT", TTL: 300, Records: []string{`"x"`}},
		},
		{
			name: "slash in owner (RFC 2317 delegation)", owner: "0/26", typ: "NS",
			contents: []string{"ns1.example.net"},
			want:     rrset.RRset{Name: "0/26.example.com.", Type: "NS", TTL: 300, Records: []string{"ns1.example.net."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr, err := rrset.New(zone, tt.owner, tt.typ, 300, tt.contents...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rr)
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name, zone, owner, typ string
		contents               []string
		reason                 rrset.Reason
		message                string
	}{
		{name: "unknown type", zone: zone, owner: "www", typ: "BOGUS", contents: []string{"x"}, reason: rrset.ReasonUnknownType,
			message: "rrset: www.example.com. BOGUS: unknown type"},
		{name: "unsupported type", zone: zone, owner: "www", typ: "nsec", contents: []string{"x"}, reason: rrset.ReasonUnsupportedType},
		{name: "signature type", zone: zone, owner: "www", typ: "RRSIG", contents: []string{"A 13 3 300 20260101000000 20250101000000 1 example.com. AAAA"}, reason: rrset.ReasonUnsupportedType},
		{name: "no contents", zone: zone, owner: "www", typ: "A", reason: rrset.ReasonNoRecords,
			message: "rrset: www.example.com. A: no records"},
		{name: "empty content", zone: zone, owner: "www", typ: "A", contents: []string{"192.0.2.1", ""}, reason: rrset.ReasonEmptyContent},
		{name: "bad content named", zone: zone, owner: "www", typ: "A", contents: []string{"192.0.2.1", "nope"}, reason: rrset.ReasonInvalidContent,
			message: `rrset: www.example.com. A "nope": invalid content: ParseAddr("nope"): unable to parse IP`},
		{name: "bad target named", zone: zone, owner: "www", typ: "CNAME", contents: []string{"a..b"}, reason: rrset.ReasonInvalidTarget,
			message: `rrset: www.example.com. CNAME "a..b": invalid name in content: name "a..b": empty label`},
		{name: "unportable content", zone: zone, owner: "www", typ: "TXT", contents: []string{`"a\"b"`}, reason: rrset.ReasonUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rrset.New(tt.zone, tt.owner, tt.typ, 300, tt.contents...)
			var re *rrset.RecordError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, tt.reason, re.Reason)
			assert.Equal(t, "www.example.com.", re.Name)
			if tt.message != "" {
				assert.Equal(t, tt.message, err.Error())
			}
			wrapped := fmt.Errorf("desired: %w", fmt.Errorf("record %d: %w", 1, err))
			require.ErrorAs(t, wrapped, &re)
		})
	}

	nameTests := []struct {
		name, zone, owner string
		reason            rrset.Reason
	}{
		{name: "owner out of zone", zone: zone, owner: "www.example.net.", reason: rrset.ReasonOutOfZone},
		{name: "owner invalid", zone: zone, owner: "a..b", reason: rrset.ReasonEmptyLabel},
		{name: "zone invalid", zone: "a b", owner: "www", reason: rrset.ReasonInvalidZone},
		{name: "owner PowerDNS refuses", zone: zone, owner: `a\.b`, reason: rrset.ReasonUnsupported},
		{name: "owner with an at sign", zone: zone, owner: "a@b", reason: rrset.ReasonUnsupported},
		{name: "wildcard not first", zone: zone, owner: "a.*", reason: rrset.ReasonUnsupported},
		{name: "star inside a label", zone: zone, owner: "a*", reason: rrset.ReasonUnsupported},
	}
	for _, tt := range nameTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rrset.New(tt.zone, tt.owner, "A", 300, "192.0.2.1")
			var ne *rrset.NameError
			require.ErrorAs(t, err, &ne)
			assert.Equal(t, tt.reason, ne.Reason)
			assert.Equal(t, tt.owner, ne.Name)
		})
	}
}

// TestEmptyContent: an empty content (or only blanks) is refused for every
// type but TXT and SPF, where it is one empty character-string, as 4.7 and
// 4.9 store it, so that it is written the same on every version; live data
// reads it the same way.
func TestEmptyContent(t *testing.T) {
	for _, tc := range []struct {
		typ, content string
		want         []string // nil: refused, ReasonEmptyContent
	}{
		{"TXT", "", []string{`""`}},
		{"TXT", "   ", []string{`""`}},
		{"txt", "\n", []string{`""`}},
		{"SPF", "", []string{`""`}},
		{"A", "", nil},
		{"CNAME", " ", nil},
		{"HINFO", "", nil},
		{"CAA", "", nil},
		{"NAPTR", "", nil},
		{"TYPE16", "", []string{`""`}}, // TXT by number
		{"TYPE65420", "", nil},
	} {
		t.Run(tc.typ+" "+strconv.Quote(tc.content), func(t *testing.T) {
			for _, build := range []struct {
				name string
				fn   func(zone, name, typ string, ttl uint32, contents ...string) (rrset.RRset, error)
			}{{"New", rrset.New}, {"NewLive", rrset.NewLive}} {
				rr, err := build.fn(zone, "www", tc.typ, 300, tc.content)
				if tc.want == nil {
					var re *rrset.RecordError
					require.ErrorAs(t, err, &re, build.name)
					assert.Equal(t, rrset.ReasonEmptyContent, re.Reason, build.name)
					continue
				}
				require.NoError(t, err, build.name)
				assert.Equal(t, tc.want, rr.Records, build.name)
				quoted, err := build.fn(zone, "www", tc.typ, 300, `""`)
				require.NoError(t, err)
				assert.True(t, rr.EqualData(quoted), "%s: the same data as the quoted empty string", build.name)
			}
		})
	}
}

func TestNewLive(t *testing.T) {
	tests := []struct {
		name, owner, typ string
		contents         []string
		want             rrset.RRset
	}{
		{
			name: "canonical like New", owner: "WWW.example.com.", typ: "aaaa",
			contents: []string{"::ffff:192.0.2.1", "2001:DB8::1"},
			want:     rrset.RRset{Name: "www.example.com.", Type: "AAAA", TTL: 60, Records: []string{"2001:db8::1", "::ffff:c000:201"}},
		},
		{
			name: "unportable data still canonical", owner: "www", typ: "TXT",
			contents: []string{`"say \"hi\""`, `"x\065"`},
			want:     rrset.RRset{Name: "www.example.com.", Type: "TXT", TTL: 60, Records: []string{`"say \"hi\""`, `"xA"`}},
		},
		{
			name: "owner PowerDNS would refuse", owner: `a\.b`, typ: "A",
			contents: []string{"192.0.2.1"},
			want:     rrset.RRset{Name: `a\.b.example.com.`, Type: "A", TTL: 60, Records: []string{"192.0.2.1"}},
		},
		{
			name: "unsupported type kept verbatim", owner: "www", typ: "NSEC",
			contents: []string{" next.example.com. A  RRSIG NSEC "},
			want:     rrset.RRset{Name: "www.example.com.", Type: "NSEC", TTL: 60, Records: []string{"next.example.com. A  RRSIG NSEC"}},
		},
		{
			name: "type unknown to everyone kept", owner: "www", typ: "type65280",
			contents: []string{`\# 1 ab`},
			want:     rrset.RRset{Name: "www.example.com.", Type: "TYPE65280", TTL: 60, Records: []string{`\# 1 ab`}},
		},
		{
			name: "unparsable content kept", owner: "www", typ: "MX",
			contents: []string{"garbage"},
			want:     rrset.RRset{Name: "www.example.com.", Type: "MX", TTL: 60, Records: []string{"garbage"}},
		},
		{
			name: "apex-only type anywhere", owner: "www", typ: "SOA",
			contents: []string{"ns1. host. 1 2 3 4 5"},
			want:     rrset.RRset{Name: "www.example.com.", Type: "SOA", TTL: 60, Records: []string{"ns1. host. 1 2 3 4 5"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr, err := rrset.NewLive(zone, tt.owner, tt.typ, 60, tt.contents...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rr)
			again, err := rrset.NewLive(zone, rr.Name, rr.Type, rr.TTL, rr.Records...)
			require.NoError(t, err)
			assert.Equal(t, rr, again, "idempotent")
		})
	}

	for _, tt := range []struct {
		name, owner, typ string
		contents         []string
	}{
		{"invalid owner", "a..b", "A", []string{"192.0.2.1"}},
		{"type that is no mnemonic", "www", "A B", []string{"x"}},
		{"no records", "www", "A", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rrset.NewLive(zone, tt.owner, tt.typ, 60, tt.contents...)
			require.Error(t, err)
		})
	}
}

func TestRRsetMethods(t *testing.T) {
	a, err := rrset.New(zone, "www", "A", 300, "192.0.2.2", "192.0.2.1")
	require.NoError(t, err)
	assert.Equal(t, rrset.Key{Name: "www.example.com.", Type: "A"}, a.Key())
	assert.Equal(t, "www.example.com. A", a.Key().String())
	assert.Equal(t, "www.example.com. 300 IN A 192.0.2.1\nwww.example.com. 300 IN A 192.0.2.2", a.String())

	b := a
	b.ManagedBy = "other"
	assert.True(t, a.EqualData(b))
	assert.False(t, a.Equal(b))
	b.ManagedBy = ""
	assert.True(t, a.Equal(b))

	n := a
	n.Comment = "ticket 42"
	assert.True(t, a.EqualData(n), "a comment is not data")
	assert.False(t, a.Equal(n))

	c := a
	c.TTL = 60
	assert.False(t, a.EqualData(c))
	c = a
	c.Records = []string{"192.0.2.1"}
	assert.False(t, a.EqualData(c))
}

func TestCheckComment(t *testing.T) {
	tests := []struct {
		name, comment string
		detail        string // "" when accepted
	}{
		{"none", "", ""},
		{"text", "moved to the new load balancer, see ticket 42", ""},
		{"lines and unicode", "first line\nzweite Zeile: äöü ✓", ""},
		{"exactly the limit", strings.Repeat("x", rrset.MaxCommentSize), ""},
		{"over the limit", strings.Repeat("x", rrset.MaxCommentSize+1), "longer than 4096 bytes"},
		{"multi-byte over the limit", strings.Repeat("ä", rrset.MaxCommentSize/2+1), "longer than 4096 bytes"},
		{"invalid UTF-8", "ticket \xff", "not valid UTF-8"},
		{"NUL", "ticket\x0042", "holds a NUL"},
		{"last of the Basic Multilingual Plane", "ticket \uffff", ""},
		{"emoji", "deployed 🚀", "holds a character beyond U+FFFF, which gmysql cannot store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rr, err := rrset.New(zone, "www", "A", 300, "192.0.2.1")
			require.NoError(t, err)
			rr.Comment = tc.comment
			err = rr.CheckComment()
			if tc.detail == "" {
				assert.NoError(t, err)
				return
			}
			var re *rrset.RecordError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, rrset.ReasonInvalidComment, re.Reason)
			assert.Equal(t, tc.detail, re.Detail)
			assert.Equal(t, "www.example.com.", re.Name)
		})
	}
}

func TestSupportedTypes(t *testing.T) {
	types := rrset.SupportedTypes()
	assert.IsNonDecreasing(t, types)
	for _, typ := range []string{"A", "AAAA", "ALIAS", "CAA", "CNAME", "DS", "HTTPS", "MX", "NAPTR", "NS", "PTR", "SOA", "SRV", "SSHFP", "SVCB", "TLSA", "TXT"} {
		assert.Contains(t, types, typ)
	}
}
