package rrset_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestHostname(t *testing.T) {
	longest := strings.Join([]string{label(63), label(63), label(63), label(49)}, ".") + ".example.com"
	tests := []struct {
		name, zone, in, want string
		reason               rrset.Reason
	}{
		{name: "below the zone", zone: "example.com.", in: "api.example.com", want: "api.example.com."},
		{name: "with trailing dot", zone: "example.com.", in: "api.example.com.", want: "api.example.com."},
		{name: "case", zone: "example.com.", in: "API.Example.COM", want: "api.example.com."},
		{name: "apex", zone: "example.com.", in: "example.com", want: "example.com."},
		{name: "apex with dot", zone: "Example.COM", in: "EXAMPLE.com.", want: "example.com."},
		{name: "wildcard", zone: "example.com.", in: "*.example.com", want: "*.example.com."},
		{name: "wildcard below", zone: "example.com.", in: "*.Dev.example.com", want: "*.dev.example.com."},
		{name: "idn", zone: "example.com.", in: "bücher.example.com", want: "xn--bcher-kva.example.com."},
		{name: "idn zone", zone: "bücher.example", in: "www.BÜCHER.example", want: "www.xn--bcher-kva.example."},
		{name: "a-label zone, u-label host", zone: "xn--bcher-kva.example", in: "www.bücher.example", want: "www.xn--bcher-kva.example."},
		{name: "acme challenge", zone: "example.com", in: "_acme-challenge.api.example.com", want: "_acme-challenge.api.example.com."},
		{name: "doubled zone is a name below it", zone: "example.com", in: "api.example.com.example.com", want: "api.example.com.example.com."},
		{name: "escaped dot", zone: "example.com", in: `a\.b.example.com`, want: `a\.b.example.com.`},
		{name: "root zone", zone: ".", in: "api.example.org", want: "api.example.org."},
		{name: "root zone root", zone: ".", in: ".", want: "."},
		{name: "name of 255", zone: "example.com", in: longest, want: longest + "."},

		{name: "other zone", zone: "example.com.", in: "other.example.org", reason: rrset.ReasonOutOfZone},
		{name: "other zone with dot", zone: "example.com.", in: "other.example.org.", reason: rrset.ReasonOutOfZone},
		{name: "single label", zone: "example.com.", in: "api", reason: rrset.ReasonOutOfZone},
		{name: "suffix but not a label", zone: "example.com.", in: "notexample.com", reason: rrset.ReasonOutOfZone},
		{name: "parent", zone: "sub.example.com.", in: "example.com", reason: rrset.ReasonOutOfZone},
		{name: "escaped dot is no boundary", zone: "example.com.", in: `api\.example.com`, reason: rrset.ReasonOutOfZone},
		{name: "root", zone: "example.com.", in: ".", reason: rrset.ReasonOutOfZone},
		{name: "empty", zone: "example.com.", in: "", reason: rrset.ReasonEmptyName},
		{name: "apex sign", zone: "example.com.", in: "@", reason: rrset.ReasonInvalidCharacter},
		{name: "blank", zone: "example.com.", in: " ", reason: rrset.ReasonInvalidCharacter},
		{name: "surrounding blanks", zone: "example.com.", in: " api.example.com ", reason: rrset.ReasonInvalidCharacter},
		{name: "tab", zone: "example.com.", in: "api\t.example.com", reason: rrset.ReasonInvalidCharacter},
		{name: "label of 64", zone: "example.com.", in: label(64) + ".example.com", reason: rrset.ReasonLabelTooLong},
		{name: "name of 256", zone: "example.com.", in: "a." + longest, reason: rrset.ReasonNameTooLong},
		{name: "empty label", zone: "example.com.", in: "a..example.com", reason: rrset.ReasonEmptyLabel},
		{name: "leading dot", zone: "example.com.", in: ".example.com", reason: rrset.ReasonEmptyLabel},
		{name: "bad escape", zone: "example.com.", in: `a\1.example.com`, reason: rrset.ReasonInvalidEscape},
		{name: "invalid idn", zone: "example.com.", in: "a\u200db.example.com", reason: rrset.ReasonInvalidIDN},
		{name: "invalid zone", zone: "a..b", in: "api.a.b", reason: rrset.ReasonInvalidZone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rrset.Hostname(tt.zone, tt.in)
			if tt.reason != "" {
				var ne *rrset.NameError
				require.ErrorAs(t, err, &ne, "got %q", got)
				assert.Equal(t, tt.reason, ne.Reason)
				assert.Equal(t, tt.in, ne.Name)
				if tt.reason != rrset.ReasonInvalidZone {
					assert.Contains(t, err.Error(), fmt.Sprintf("%q", tt.in))
				}
				assert.Equal(t, tt.reason == rrset.ReasonOutOfZone, errors.Is(fmt.Errorf("wrapped: %w", err), rrset.ErrOutOfZone))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := rrset.Hostname(tt.zone, got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "idempotent")
			c, err := rrset.CanonicalName(tt.zone, got)
			require.NoError(t, err)
			assert.Equal(t, c, got, "the spelling CanonicalName gives")
		})
	}
}

// TestHostnameAgainstCanonicalName holds the table of the package
// documentation: the same spellings, read as zone-file names and as
// hostnames.
func TestHostnameAgainstCanonicalName(t *testing.T) {
	tests := []struct {
		in, canonical, hostname string
	}{
		{in: "api", canonical: "api.example.com.", hostname: "OutOfZone"},
		{in: "api.example.com", canonical: "api.example.com.", hostname: "api.example.com."},
		{in: "api.example.com.", canonical: "api.example.com.", hostname: "api.example.com."},
		{in: "API.Example.COM", canonical: "api.example.com.", hostname: "api.example.com."},
		{in: "example.com", canonical: "example.com.", hostname: "example.com."},
		{in: "@", canonical: "example.com.", hostname: "InvalidCharacter"},
		{in: "", canonical: "example.com.", hostname: "EmptyName"},
		{in: "*.example.com", canonical: "*.example.com.", hostname: "*.example.com."},
		{in: "bücher.example.com", canonical: "xn--bcher-kva.example.com.", hostname: "xn--bcher-kva.example.com."},
		{in: "other.example.org", canonical: "other.example.org.example.com.", hostname: "OutOfZone"},
		{in: "other.example.org.", canonical: "OutOfZone", hostname: "OutOfZone"},
	}
	result := func(s string, err error) string {
		var ne *rrset.NameError
		if errors.As(err, &ne) {
			return string(ne.Reason)
		}
		require.NoError(t, err)
		return s
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.canonical, result(rrset.CanonicalName("example.com.", tt.in)), "CanonicalName")
			assert.Equal(t, tt.hostname, result(rrset.Hostname("example.com.", tt.in)), "Hostname")
		})
	}
}

func TestNameErrorIsOutOfZone(t *testing.T) {
	_, err := rrset.CanonicalName("example.com", "api.example.net.")
	assert.ErrorIs(t, err, rrset.ErrOutOfZone)
	_, err = rrset.CanonicalName("example.com", "a..b")
	assert.NotErrorIs(t, err, rrset.ErrOutOfZone)
	assert.NotErrorIs(t, errors.New("rrset: name not in zone"), rrset.ErrOutOfZone)
}

// TestCanonicalHostname: a hostname on its own is absolute, dot or not,
// and gets the spelling Hostname gives it in a zone that holds it.
func TestCanonicalHostname(t *testing.T) {
	tests := []struct {
		in, want, zone string
		reason         rrset.Reason
	}{
		{in: "api.example.com", want: "api.example.com.", zone: "example.com"},
		{in: "API.Example.COM.", want: "api.example.com.", zone: "Example.com."},
		{in: "api", want: "api.", zone: "api"},
		{in: "*.Dev.example.com", want: "*.dev.example.com.", zone: "dev.example.com"},
		{in: "bücher.example", want: "xn--bcher-kva.example.", zone: "example"},
		{in: "_acme-challenge.api.example.com", want: "_acme-challenge.api.example.com.", zone: "example.com"},
		{in: `a\.b.example.com`, want: `a\.b.example.com.`, zone: "example.com"},
		{in: ".", want: ".", zone: "."},
		{in: "", reason: rrset.ReasonEmptyName},
		{in: "@", reason: rrset.ReasonInvalidCharacter},
		{in: " api.example.com", reason: rrset.ReasonInvalidCharacter},
		{in: "a..example.com", reason: rrset.ReasonEmptyLabel},
		{in: label(64) + ".example.com", reason: rrset.ReasonLabelTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := rrset.CanonicalHostname(tt.in)
			root, rootErr := rrset.Hostname(".", tt.in)
			assert.Equal(t, root, got, "Hostname in the root zone")
			assert.Equal(t, rootErr, err)
			if tt.reason != "" {
				var ne *rrset.NameError
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, tt.reason, ne.Reason)
				assert.NotErrorIs(t, err, rrset.ErrOutOfZone)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := rrset.CanonicalHostname(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "idempotent")
			in, err := rrset.Hostname(tt.zone, tt.in)
			require.NoError(t, err)
			assert.Equal(t, got, in, "as Hostname in zone %s", tt.zone)
		})
	}
}
