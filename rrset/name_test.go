package rrset_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

// label returns a label of n octets.
func label(n int) string { return strings.Repeat("a", n) }

func TestCanonicalZone(t *testing.T) {
	tests := []struct {
		name, zone, want string
		reason           rrset.Reason
	}{
		{name: "relative", zone: "example.com", want: "example.com."},
		{name: "absolute", zone: "example.com.", want: "example.com."},
		{name: "mixed case", zone: "Example.COM", want: "example.com."},
		{name: "root", zone: ".", want: "."},
		{name: "idn", zone: "Bücher.example", want: "xn--bcher-kva.example."},
		{name: "underscore", zone: "_tcp.example", want: "_tcp.example."},
		{name: "classless reverse", zone: "0/26.2.0.192.IN-ADDR.arpa", want: "0/26.2.0.192.in-addr.arpa."},
		{name: "escaped dot", zone: `a\.b.example`, reason: rrset.ReasonUnsupported},
		{name: "percent", zone: "a%2fb.example", reason: rrset.ReasonUnsupported},
		{name: "question mark", zone: "a?b.example", reason: rrset.ReasonUnsupported},
		{name: "hash", zone: "a#b.example", reason: rrset.ReasonUnsupported},
		{name: "equals", zone: "a=2F.example", reason: rrset.ReasonUnsupported},
		{name: "wildcard", zone: "*.example", reason: rrset.ReasonUnsupported},
		{name: "escaped octet", zone: `a\195b.example`, reason: rrset.ReasonUnsupported},
		{name: "C1 control", zone: "a\u0085b.example", reason: rrset.ReasonInvalidCharacter},
		{name: "empty", zone: "", reason: rrset.ReasonEmptyName},
		{name: "apex sign", zone: "@", reason: rrset.ReasonEmptyName},
		{name: "empty label", zone: "a..b", reason: rrset.ReasonEmptyLabel},
		{name: "leading dot", zone: ".example.com", reason: rrset.ReasonEmptyLabel},
		{name: "two dots", zone: "..", reason: rrset.ReasonEmptyLabel},
		{name: "space", zone: "exa mple.com", reason: rrset.ReasonInvalidCharacter},
		{name: "label too long", zone: label(64) + ".com", reason: rrset.ReasonLabelTooLong},
		{name: "bad escape", zone: `a\2.com`, reason: rrset.ReasonInvalidEscape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rrset.CanonicalZone(tt.zone)
			if tt.reason != "" {
				var ne *rrset.NameError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, tt.reason, ne.Reason)
				assert.Equal(t, tt.zone, ne.Name)
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", tt.zone))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := rrset.CanonicalZone(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "idempotent")
		})
	}
}

func TestCanonicalName(t *testing.T) {
	// 3 labels of 63 octets and one of 49 make 255 octets with example.com.
	longest := strings.Join([]string{label(63), label(63), label(63), label(49)}, ".")
	tests := []struct {
		name, zone, in, want string
		reason               rrset.Reason
	}{
		{name: "apex sign", zone: "example.com", in: "@", want: "example.com."},
		{name: "empty is apex", zone: "example.com", in: "", want: "example.com."},
		{name: "zone name is apex", zone: "example.com", in: "Example.com", want: "example.com."},
		{name: "zone name with dot is apex", zone: "example.com", in: "example.com.", want: "example.com."},
		{name: "relative", zone: "example.com", in: "api", want: "api.example.com."},
		{name: "relative with zone labels", zone: "example.com", in: "api.example.com", want: "api.example.com."},
		{name: "absolute", zone: "example.com", in: "api.example.com.", want: "api.example.com."},
		{name: "case", zone: "EXAMPLE.com.", in: "API.Example.COM", want: "api.example.com."},
		{name: "relative multi-label", zone: "example.com", in: "a.b", want: "a.b.example.com."},
		{name: "label-aware suffix", zone: "example.com", in: "notexample.com", want: "notexample.com.example.com."},
		{name: "zone name inside", zone: "example.com", in: "example.com.net", want: "example.com.net.example.com."},
		{name: "doubled zone written absolute", zone: "example.com", in: "api.example.com.example.com.", want: "api.example.com.example.com."},
		{name: "wildcard", zone: "example.com", in: "*", want: "*.example.com."},
		{name: "wildcard below", zone: "example.com", in: "*.Dev", want: "*.dev.example.com."},
		{name: "underscore labels", zone: "example.com", in: "_443._tcp.www", want: "_443._tcp.www.example.com."},
		{name: "acme challenge", zone: "example.com", in: "_acme-challenge.example.com.", want: "_acme-challenge.example.com."},
		{name: "escaped dot is one label", zone: "example.com", in: `a\.b`, want: `a\.b.example.com.`},
		{name: "escaped dot not a zone boundary", zone: "example.com", in: `api\.example.com`, want: `api\.example.com.example.com.`},
		{name: "escaped backslash", zone: "example.com", in: `a\\b`, want: `a\\b.example.com.`},
		{name: "decimal escape of a letter", zone: "example.com", in: `\065pi`, want: "api.example.com."},
		{name: "decimal escape of a space", zone: "example.com", in: `a\032b`, want: `a\032b.example.com.`},
		{name: "escaped space", zone: "example.com", in: `a\ b`, want: `a\032b.example.com.`},
		{name: "escaped high octets stay octets", zone: "example.com", in: `\195\188`, want: `\195\188.example.com.`},
		{name: "idn", zone: "example.com", in: "bücher", want: "xn--bcher-kva.example.com."},
		{name: "idn upper case", zone: "example.com", in: "BÜCHER", want: "xn--bcher-kva.example.com."},
		{name: "idn sharp s non-transitional", zone: "example.com", in: "straße", want: "xn--strae-oqa.example.com."},
		{name: "idn zone", zone: "bücher.example", in: "www", want: "www.xn--bcher-kva.example."},
		{name: "idn zone given as U-label in name", zone: "xn--bcher-kva.example", in: "www.bücher.example.", want: "www.xn--bcher-kva.example."},
		{name: "a-label kept", zone: "example.com", in: "XN--BCHER-KVA", want: "xn--bcher-kva.example.com."},
		{name: "printable specials", zone: "example.com", in: `a@b"c(d)`, want: `a@b"c(d).example.com.`},
		{name: "root zone relative", zone: ".", in: "com", want: "com."},
		{name: "root zone absolute", zone: ".", in: "example.com.", want: "example.com."},
		{name: "root zone apex", zone: ".", in: "@", want: "."},
		{name: "label of 63", zone: "example.com", in: label(63), want: label(63) + ".example.com."},
		{name: "name of 255", zone: "example.com", in: longest, want: longest + ".example.com."},

		{name: "out of zone", zone: "example.com", in: "api.example.net.", reason: rrset.ReasonOutOfZone},
		{name: "suffix but not a label", zone: "example.com", in: "notexample.com.", reason: rrset.ReasonOutOfZone},
		{name: "parent", zone: "sub.example.com", in: "example.com.", reason: rrset.ReasonOutOfZone},
		{name: "root", zone: "example.com", in: ".", reason: rrset.ReasonOutOfZone},
		{name: "empty label", zone: "example.com", in: "a..b", reason: rrset.ReasonEmptyLabel},
		{name: "leading dot", zone: "example.com", in: ".a", reason: rrset.ReasonEmptyLabel},
		{name: "label of 64", zone: "example.com", in: label(64), reason: rrset.ReasonLabelTooLong},
		{name: "escapes count once", zone: "example.com", in: strings.Repeat(`\097`, 64), reason: rrset.ReasonLabelTooLong},
		{name: "name of 256", zone: "example.com", in: longest + "a", reason: rrset.ReasonNameTooLong},
		{name: "absolute too long", zone: ".", in: strings.Repeat(label(63)+".", 4), reason: rrset.ReasonNameTooLong},
		{name: "space", zone: "example.com", in: "a b", reason: rrset.ReasonInvalidCharacter},
		{name: "tab", zone: "example.com", in: "a\tb", reason: rrset.ReasonInvalidCharacter},
		{name: "newline", zone: "example.com", in: "a\n", reason: rrset.ReasonInvalidCharacter},
		{name: "delete character", zone: "example.com", in: "a\x7f", reason: rrset.ReasonInvalidCharacter},
		{name: "C1 next line", zone: "example.com", in: "a\u0085", reason: rrset.ReasonInvalidCharacter},
		{name: "C1 first", zone: "example.com", in: "\u0080a", reason: rrset.ReasonInvalidCharacter},
		{name: "C1 last", zone: "example.com", in: "a\u009f.b", reason: rrset.ReasonInvalidCharacter},
		{name: "C1 octets escaped are data", zone: "example.com", in: `a\194\133`, want: `a\194\133.example.com.`},
		{name: "latin-1 letter is no control", zone: "example.com", in: "\u00e9t\u00e9", want: "xn--t-9fab.example.com."},
		{name: "trailing backslash", zone: "example.com", in: `a\`, reason: rrset.ReasonInvalidEscape},
		{name: "short decimal escape", zone: "example.com", in: `a\1x`, reason: rrset.ReasonInvalidEscape},
		{name: "decimal escape over 255", zone: "example.com", in: `a\256`, reason: rrset.ReasonInvalidEscape},
		{name: "invalid utf-8", zone: "example.com", in: "a\xff", reason: rrset.ReasonInvalidIDN},
		{name: "disallowed code point", zone: "example.com", in: "a\u200db", reason: rrset.ReasonInvalidIDN},
		{name: "ideographic full stop", zone: "example.com", in: "a。b", reason: rrset.ReasonInvalidIDN},
		{name: "invalid zone", zone: "a..b", in: "api", reason: rrset.ReasonInvalidZone},
		{name: "empty zone", zone: "", in: "api", reason: rrset.ReasonInvalidZone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rrset.CanonicalName(tt.zone, tt.in)
			if tt.reason != "" {
				var ne *rrset.NameError
				require.ErrorAs(t, err, &ne, "got %q", got)
				assert.Equal(t, tt.reason, ne.Reason, "%v", err)
				assert.Equal(t, tt.in, ne.Name)
				assert.Equal(t, tt.zone, ne.Zone)
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", tt.zone))
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assertCanonicalName(t, tt.zone, got)
		})
	}
}

// assertCanonicalName checks the properties every canonical name has.
func assertCanonicalName(t *testing.T, zone, c string) {
	t.Helper()
	again, err := rrset.CanonicalName(zone, c)
	require.NoError(t, err)
	assert.Equal(t, c, again, "CanonicalName is idempotent")
	rel, err := rrset.RelativeName(zone, c)
	require.NoError(t, err)
	back, err := rrset.CanonicalName(zone, rel)
	require.NoError(t, err)
	assert.Equal(t, c, back, "CanonicalName(RelativeName(%q)) = %q", c, rel)
	rel2, err := rrset.RelativeName(zone, rel)
	require.NoError(t, err)
	assert.Equal(t, rel, rel2, "RelativeName is idempotent")
	assert.Equal(t, strings.ToLower(c), c, "lower case")
	_, ok := dns.IsDomainName(c)
	assert.True(t, ok, "miekg/dns reads %q as a name", c)
	assert.True(t, dns.IsFqdn(c), "absolute")
}

func TestRelativeName(t *testing.T) {
	tests := []struct {
		name, zone, in, want string
		reason               rrset.Reason
	}{
		{name: "apex", zone: "example.com", in: "example.com.", want: "@"},
		{name: "apex sign", zone: "example.com", in: "@", want: "@"},
		{name: "empty", zone: "example.com", in: "", want: "@"},
		{name: "child", zone: "example.com", in: "api.example.com.", want: "api"},
		{name: "relative input", zone: "example.com", in: "API", want: "api"},
		{name: "grandchild", zone: "Example.com", in: "a.B.example.com", want: "a.b"},
		{name: "wildcard", zone: "example.com", in: "*.example.com.", want: "*"},
		{name: "escaped", zone: "example.com", in: `a\.b.example.com.`, want: `a\.b`},
		{name: "idn", zone: "example.com", in: "bücher.example.com.", want: "xn--bcher-kva"},
		{name: "ambiguous stays absolute", zone: "example.com", in: "api.example.com.example.com.", want: "api.example.com.example.com."},
		{name: "zone name as relative part", zone: "example.com", in: "example.com.example.com.", want: "example.com.example.com."},
		{name: "@ label stays absolute", zone: "example.com", in: "@.example.com.", want: "@.example.com."},
		{name: "escaped @ label stays absolute", zone: "example.com", in: `\064.example.com.`, want: "@.example.com."},
		{name: "root zone", zone: ".", in: "www.example.com.", want: "www.example.com"},
		{name: "root zone apex", zone: ".", in: ".", want: "@"},
		{name: "out of zone", zone: "example.com", in: "www.example.net.", reason: rrset.ReasonOutOfZone},
		{name: "invalid zone", zone: "a..b", in: "www", reason: rrset.ReasonInvalidZone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rrset.RelativeName(tt.zone, tt.in)
			if tt.reason != "" {
				var ne *rrset.NameError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, tt.reason, ne.Reason)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			c, err := rrset.CanonicalName(tt.zone, tt.in)
			require.NoError(t, err)
			assertCanonicalName(t, tt.zone, c)
		})
	}
}

func TestNameErrorMessages(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{
			name: "out of zone",
			err:  func() error { _, err := rrset.CanonicalName("example.com", "www.example.net."); return err },
			want: `rrset: name "www.example.net." in zone "example.com": not in zone`,
		},
		{
			name: "invalid zone",
			err:  func() error { _, err := rrset.CanonicalName("a..b", "www"); return err },
			want: `rrset: zone "a..b" is not a valid name: empty label`,
		},
		{
			name: "zone alone",
			err:  func() error { _, err := rrset.CanonicalZone("a b"); return err },
			want: `rrset: name "a b": character not allowed in a name (' ' at offset 1)`,
		},
		{
			name: "idn",
			err:  func() error { _, err := rrset.CanonicalName("example.com", "a\u200db"); return err },
			want: `rrset: name "a\u200db" in zone "example.com": invalid internationalised label: idna: invalid label "a\u200db"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			// Typed errors survive wrapping.
			wrapped := fmt.Errorf("sync zone: %w", fmt.Errorf("desired record: %w", err))
			var ne *rrset.NameError
			require.ErrorAs(t, wrapped, &ne)
			assert.NotEmpty(t, ne.Reason)
		})
	}
	var ne *rrset.NameError
	_, err := rrset.CanonicalName("a..b", "www")
	require.ErrorAs(t, err, &ne)
	var inner *rrset.NameError
	require.ErrorAs(t, errors.Unwrap(err), &inner)
	assert.Equal(t, rrset.ReasonEmptyLabel, inner.Reason, "the zone's own error is wrapped")
}
