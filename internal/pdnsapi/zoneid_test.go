package pdnsapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// apiZoneNameToID is PowerDNS's apiZoneNameToId (ws-api.cc, 4.7 to 5.1),
// written from its description, to hold ZoneID to it byte by byte: every
// byte but an ASCII letter, digit, '.' and '-' as =XX in upper-case
// hexadecimal, a trailing dot added when missing, the root as "=2E".
func apiZoneNameToID(printed string) string {
	var b strings.Builder
	for i := 0; i < len(printed); i++ {
		c := printed[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '.' || c == '-' {
			b.WriteByte(c)
			continue
		}
		b.WriteString("=" + strings.ToUpper(hex2(c)))
	}
	id := b.String()
	if !strings.HasSuffix(id, ".") {
		id += "."
	}
	if id == "." {
		id = "=2E"
	}
	return id
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

func TestZoneID(t *testing.T) {
	tests := []struct{ zone, want string }{
		{"example.com.", "example.com."},
		{"example.com", "example.com."},
		{"Example.COM.", "Example.COM."},
		{"0/26.2.0.192.in-addr.arpa.", "0=2F26.2.0.192.in-addr.arpa."},
		{"_tcp.example.", "=5Ftcp.example."},
		{"a%2fb.example.", "a=252fb.example."},
		{"a?b#c=d.example.", "a=3Fb=23c=3Dd.example."},
		{"a b.example.", "a=20b.example."},
		{`a\.b.example.`, "a=5C.b.example."},
		{`a\.`, "a=5C.."},    // a label "a.", absolute
		{`a\\.`, "a=5C=5C."}, // a label "a\", absolute
		{`a\032b.example.`, "a=5C032b.example."},
		{"\xc3\xa9.example.", "=C3=A9.example."},
		{".", "=2E"},
		{"", "=2E"},
		{"..", "=2E=2E"},
		{"...", "=2E=2E=2E"},
	}
	for _, tc := range tests {
		t.Run(tc.zone, func(t *testing.T) {
			id := pdnsapi.ZoneID(tc.zone)
			assert.Equal(t, tc.want, id)
			if tc.zone != "" && tc.zone != ".." && tc.zone != "..." && tc.zone != `a\.` {
				assert.Equal(t, apiZoneNameToID(tc.zone), id, "as PowerDNS makes it")
			}
			// Nothing in the id changes meaning in go-powerdns's path
			// building (a trailing dot added, path.Join, url.URL.Path), nor
			// in PowerDNS's reading of the path. The root's id is the
			// exception go-powerdns makes: it appends a dot to "=2E".
			withDot := strings.TrimSuffix(id, ".") + "."
			if strings.HasSuffix(id, ".") {
				assert.Equal(t, id, withDot)
			}
			joined := path.Join("/api/v1/", "servers", "localhost", "zones", withDot)
			assert.True(t, strings.HasSuffix(joined, "/zones/"+withDot), "path.Join keeps %q: %q", withDot, joined)
			u := url.URL{Scheme: "http", Host: "pdns", Path: joined}
			assert.Equal(t, joined, u.EscapedPath(), "no byte of %q is escaped", id)
			assert.NotContains(t, id, "/")
			assert.NotContains(t, id, "%")
		})
	}
}

// recorded is what a server saw of one request: the path exactly as sent.
type recorded struct{ method, requestURI string }

func recordingServer(t *testing.T) (string, func() []recorded) {
	t.Helper()
	srv, seen := okServer(t)
	return srv.URL, func() []recorded {
		seen.mu.Lock()
		defer seen.mu.Unlock()
		var out []recorded
		for _, r := range seen.reqs {
			out = append(out, recorded{r.Method, r.RequestURI})
		}
		return out
	}
}

// TestClientPaths: every call of Client, for zones whose names need an id,
// sends a request whose path holds the id exactly, once.
func TestClientPaths(t *testing.T) {
	for _, zone := range []string{"0/26.2.0.192.in-addr.arpa.", "_x.example.", "Up.Example."} {
		t.Run(zone, func(t *testing.T) {
			serverURL, requests := recordingServer(t)
			c, err := pdnsapi.New(serverURL, testKey, "", nil)
			require.NoError(t, err)
			ctx := context.Background()
			canonical, err := rrset.CanonicalZone(zone)
			require.NoError(t, err)
			id := pdnsapi.ZoneID(canonical)
			zonePath := "/api/v1/servers/localhost/zones/" + id

			_, _ = c.GetZone(ctx, zone, pdnsapi.ZoneQuery{RRsetName: "a/b." + canonical, RRsetType: "PTR"})
			_ = c.PatchZone(ctx, zone, nil)
			_, _ = c.ListMetadata(ctx, zone)
			_ = c.AddMetadata(ctx, zone, "X-LOCK", []string{"v"})
			_ = c.SetMetadata(ctx, zone, "X-LOCK", []string{"v"})
			_, _ = c.GetMetadata(ctx, zone, "X-LOCK")
			_ = c.DeleteMetadata(ctx, zone, "X-LOCK")
			_ = c.DeleteZone(ctx, zone)
			want := []recorded{
				{http.MethodGet, zonePath + "?rrset_name=a%2Fb." + url.QueryEscape(canonical) + "&rrset_type=PTR"},
				{http.MethodPatch, zonePath},
				{http.MethodGet, zonePath + "/metadata"},
				{http.MethodPost, zonePath + "/metadata"},
				{http.MethodPut, zonePath + "/metadata/X-LOCK"},
				{http.MethodGet, zonePath + "/metadata/X-LOCK"},
				{http.MethodDelete, zonePath + "/metadata/X-LOCK"},
				{http.MethodDelete, zonePath},
			}
			assert.Equal(t, want, requests())
		})
	}
}

// TestUnaddressableZones: zones no request can address are refused with a
// *ZoneError before any request.
func TestUnaddressableZones(t *testing.T) {
	serverURL, requests := recordingServer(t)
	c, err := pdnsapi.New(serverURL, testKey, "", nil)
	require.NoError(t, err)
	ctx := context.Background()
	for _, zone := range []string{".", "", "a..b.", "a%2fb.example.", "a?b.example.", "a#b.example.", "a=b.example.", `a\.b.example.`, "*.example."} {
		t.Run(zone, func(t *testing.T) {
			calls := map[string]error{
				"GetZone":        func() error { _, err := c.GetZone(ctx, zone, pdnsapi.ZoneQuery{}); return err }(),
				"PatchZone":      c.PatchZone(ctx, zone, nil),
				"ListMetadata":   func() error { _, err := c.ListMetadata(ctx, zone); return err }(),
				"AddMetadata":    c.AddMetadata(ctx, zone, "X-A", nil),
				"SetMetadata":    c.SetMetadata(ctx, zone, "X-A", nil),
				"GetMetadata":    func() error { _, err := c.GetMetadata(ctx, zone, "X-A"); return err }(),
				"DeleteMetadata": c.DeleteMetadata(ctx, zone, "X-A"),
				"DeleteZone":     c.DeleteZone(ctx, zone),
				"CreateZone":     c.CreateZone(ctx, powerdns.Zone{Name: powerdns.String(zone)}),
			}
			for name, err := range calls {
				var ze *pdnsapi.ZoneError
				require.True(t, errors.As(err, &ze), "%s: %v", name, err)
				assert.Equal(t, zone, ze.Zone)
				if zone == "." {
					assert.ErrorIs(t, err, pdnsapi.ErrRootZone)
				} else {
					var ne *rrset.NameError
					assert.True(t, errors.As(err, &ne), "%s: %v", name, err)
				}
			}
		})
	}
	assert.Empty(t, requests(), "no request was made")

	for _, kind := range []string{"", "X-A/B", "..", "X A", "X-%41", "X?"} {
		err := c.AddMetadata(ctx, "example.com.", kind, nil)
		assert.ErrorIs(t, err, pdnsapi.ErrInvalidMetadataKind, "%q", kind)
		_, err = c.GetMetadata(ctx, "example.com.", kind)
		assert.ErrorIs(t, err, pdnsapi.ErrInvalidMetadataKind, "%q", kind)
	}
	assert.Empty(t, requests(), "no request was made")
}
