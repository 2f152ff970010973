// Package golden_test provokes every class of PowerDNS API error on every
// configured server and keeps the answers in testdata/pdns/<version>/ as the
// test data of the errors package.
//
//	make testdata     # go test ./internal/golden -run TestGoldenBodies -update
//
// Without -update the test compares each server's answers with the files of
// its major.minor version, so the files are shown to be what real servers
// say; versions without files are skipped.
package golden_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/pdnstest"
)

var update = flag.Bool("update", false, "rewrite testdata/pdns/<version>/*.json from the servers")

func TestMain(m *testing.M) { pdnstest.Main(m) }

// goldenDir is testdata/pdns at the module root.
var goldenDir = filepath.Join("..", "..", "..", "testdata", "pdns")

// zone is the fixed zone every case runs in, so that bodies are stable.
const zone = "golden.example."

// Body is one recorded answer, as stored in a golden file.
type Body struct {
	Case        string  `json:"case"`
	Version     string  `json:"version"`
	Backend     string  `json:"backend"`
	Request     Request `json:"request"`
	Status      int     `json:"status"`
	ContentType string  `json:"content_type"`
	Body        string  `json:"body"`
}

// Request is what was sent to provoke the answer.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Accept is the Accept header sent, "" for none.
	Accept string `json:"accept,omitempty"`
	Body   string `json:"body,omitempty"`
}

// gcase is one provocation: Setup is PATCHed to the fresh zone first and
// must succeed; Send is the request whose answer is recorded.
type gcase struct {
	Name    string
	Backend pdnstest.Backend // only on servers with this backend
	Setup   []rrset
	Send    Request
	APIKey  string // "" for the server's own key
	NoZone  bool   // run without creating the zone
}

// rrset is the API's RRset object; fields are kept as the case sets them so
// that a case can send exactly a malformed change.
type rrset map[string]any

func replace(name, typ string, ttl int, contents ...string) rrset {
	records := make([]map[string]any, 0, len(contents))
	for _, c := range contents {
		records = append(records, map[string]any{"content": c, "disabled": false})
	}
	return rrset{"name": name, "type": typ, "ttl": ttl, "changetype": "REPLACE", "records": records}
}

func patch(sets ...rrset) Request {
	b, err := json.Marshal(map[string]any{"rrsets": sets})
	if err != nil {
		panic(err) // the cases are static data
	}
	return Request{Method: http.MethodPatch, Path: "/api/v1/servers/localhost/zones/" + zone, Accept: "application/json", Body: string(b)}
}

func n(label string) string { return label + "." + zone }

var cases = []gcase{
	{Name: "cname-over-a",
		Setup: []rrset{replace(n("v4"), "A", 300, "192.0.2.1")},
		Send:  patch(replace(n("v4"), "CNAME", 300, zone))},
	{Name: "a-over-cname",
		Setup: []rrset{replace(n("v6"), "CNAME", 300, zone)},
		Send:  patch(replace(n("v6"), "AAAA", 300, "2001:db8::1"))},
	{Name: "cname-at-apex",
		Send: patch(replace(zone, "CNAME", 300, "target.example.net."))},
	{Name: "duplicate-record",
		Send: patch(replace(n("d"), "A", 300, "192.0.2.1", "192.0.2.1"))},
	{Name: "duplicate-records-several",
		Send: patch(replace(n("d"), "A", 300, "192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.2"))},
	{Name: "two-cname-records",
		Send: patch(replace(n("e"), "CNAME", 300, "a.example.net.", "b.example.net."))},
	{Name: "invalid-a",
		Send: patch(replace(n("a"), "A", 300, "192.0.2.300"))},
	{Name: "invalid-aaaa",
		Send: patch(replace(n("a"), "AAAA", 300, "2001:db8::zz"))},
	{Name: "invalid-mx",
		Send: patch(replace(n("m"), "MX", 300, "mail.example.net."))},
	{Name: "invalid-srv",
		Send: patch(replace(n("_sip._tcp"), "SRV", 300, "10 5 sip.example.net."))},
	{Name: "invalid-caa",
		Send: patch(replace(n("c"), "CAA", 300, "0 issue"))},
	{Name: "invalid-txt",
		Send: patch(replace(n("t"), "TXT", 300, `"unterminated`))},
	{Name: "txt-unquoted",
		Send: patch(replace(n("t"), "TXT", 300, "hello world"))},
	{Name: "target-without-dot",
		Send: patch(replace(n("m"), "MX", 300, "10 mail.example.com"))},
	{Name: "cname-target-without-dot",
		Send: patch(replace(n("w"), "CNAME", 300, "target.example.com"))},
	{Name: "relative-name",
		Send: patch(replace("api", "A", 300, "192.0.2.1"))},
	{Name: "dotless-name",
		Send: patch(replace(strings.TrimSuffix(n("api"), "."), "A", 300, "192.0.2.1"))},
	{Name: "out-of-zone",
		Send: patch(replace("api.other.example.", "A", 300, "192.0.2.1"))},
	{Name: "unsupported-characters",
		Send: patch(replace(n("bad name"), "A", 300, "192.0.2.1"))},
	{Name: "same-rrset-twice",
		Send: patch(replace(n("x"), "A", 300, "192.0.2.1"), replace(n("x"), "A", 300, "192.0.2.2"))},
	{Name: "unknown-changetype",
		Send: patch(rrset{"name": n("x"), "type": "A", "ttl": 300, "changetype": "UPSERT",
			"records": []map[string]any{{"content": "192.0.2.1", "disabled": false}}})},
	{Name: "missing-ttl",
		Send: patch(rrset{"name": n("x"), "type": "A", "changetype": "REPLACE",
			"records": []map[string]any{{"content": "192.0.2.1", "disabled": false}}})},
	{Name: "soa-off-apex",
		Send: patch(replace(n("sub"), "SOA", 300, "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"))},
	{Name: "ds-at-apex",
		Send: patch(replace(zone, "DS", 300, "44030 8 2 a9f4be3b7d4a32fdbd7c9bfe7f5e6d1fb8f1d0a0f3d6c1a2b3c4d5e6f7a8b9c0"))},
	{Name: "ns-dname-off-apex",
		Send: patch(replace(n("sub"), "NS", 300, "ns1.example.net."), replace(n("sub"), "DNAME", 300, "example.net."))},
	{Name: "unknown-type",
		Send: patch(replace(n("x"), "FOO", 300, "bar"))},
	{Name: "zone-create-conflicts", NoZone: true,
		Send: Request{Method: http.MethodPost, Path: "/api/v1/servers/localhost/zones", Accept: "application/json",
			Body: mustJSON(map[string]any{
				"name": zone, "kind": "Native", "nameservers": []string{"ns1.example.net."},
				"rrsets": []rrset{
					replace(n("v4"), "A", 300, "192.0.2.1"),
					replace(n("v4"), "CNAME", 300, zone),
					replace(n("v6"), "AAAA", 300, "2001:db8::1"),
					replace(n("v6"), "CNAME", 300, zone),
				},
			})}},
	{Name: "lmdb-comment", Backend: pdnstest.LMDB,
		Send: patch(rrset{"name": n("c"), "type": "A", "ttl": 300, "changetype": "REPLACE",
			"records":  []map[string]any{{"content": "192.0.2.1", "disabled": false}},
			"comments": []map[string]any{{"content": "owner", "account": "writer"}}})},
	{Name: "bad-request-400", NoZone: true,
		Send: Request{Method: http.MethodPost, Path: "/api/v1/servers/localhost/zones", Body: "{not json"}},
	{Name: "bad-request-400-json", NoZone: true,
		Send: Request{Method: http.MethodPost, Path: "/api/v1/servers/localhost/zones", Accept: "application/json", Body: "{not json"}},
	{Name: "unauthorized-401", NoZone: true, APIKey: "wrong-key",
		Send: Request{Method: http.MethodGet, Path: "/api/v1/servers/localhost/zones"}},
	{Name: "unauthorized-401-json", NoZone: true, APIKey: "wrong-key",
		Send: Request{Method: http.MethodGet, Path: "/api/v1/servers/localhost/zones", Accept: "application/json"}},
	{Name: "zone-not-found-404", NoZone: true,
		Send: Request{Method: http.MethodGet, Path: "/api/v1/servers/localhost/zones/missing.example."}},
	{Name: "zone-not-found-404-json", NoZone: true,
		Send: Request{Method: http.MethodGet, Path: "/api/v1/servers/localhost/zones/missing.example.", Accept: "application/json"}},
	{Name: "zone-exists-409",
		Send: Request{Method: http.MethodPost, Path: "/api/v1/servers/localhost/zones",
			Body: mustJSON(map[string]any{"name": zone, "kind": "Native", "nameservers": []string{"ns1.example.net."}})}},
	{Name: "zone-exists-409-json",
		Send: Request{Method: http.MethodPost, Path: "/api/v1/servers/localhost/zones", Accept: "application/json",
			Body: mustJSON(map[string]any{"name": zone, "kind": "Native", "nameservers": []string{"ns1.example.net."}})}},
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the cases are static data
	}
	return string(b)
}

func TestGoldenBodies(t *testing.T) {
	servers := pdnstest.Servers(t)
	// Each version's files come from its gsqlite3 server, except the cases
	// that exist for a backend's sake.
	for _, srv := range servers {
		t.Run(srv.Name(), func(t *testing.T) {
			dir := filepath.Join(goldenDir, majorMinor(srv.Version))
			if !*update {
				if _, err := os.Stat(dir); err != nil {
					t.Skipf("no golden bodies for %s in %s", srv.Version, dir)
				}
			}
			for _, c := range cases {
				if (c.Backend == "" && srv.Backend != pdnstest.GSQLite3) || (c.Backend != "" && c.Backend != srv.Backend) {
					continue
				}
				t.Run(c.Name, func(t *testing.T) {
					got := provoke(t, srv, c)
					path := filepath.Join(dir, c.Name+".json")
					if *update {
						require.NoError(t, os.MkdirAll(dir, 0o755))
						b, err := json.MarshalIndent(got, "", "  ")
						require.NoError(t, err)
						require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
						return
					}
					b, err := os.ReadFile(path)
					require.NoError(t, err, "run `make testdata` to record this case")
					var want Body
					require.NoError(t, json.Unmarshal(b, &want))
					if want.Version != srv.Version {
						t.Logf("golden body recorded on %s, server is %s", want.Version, srv.Version)
					}
					require.Equal(t, want.Status, got.Status, "status of %s", c.Name)
					require.Equal(t, want.Body, got.Body, "body of %s", c.Name)
				})
			}
		})
	}
}

// provoke sends c's request to a fresh zone (or none) and records the answer.
func provoke(t *testing.T, srv *pdnstest.Server, c gcase) Body {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !c.NoZone {
		srv.CreateZone(t, zone)
		if len(c.Setup) > 0 {
			status, _, body := send(ctx, t, srv, srv.APIKey, patch(c.Setup...))
			require.Equal(t, http.StatusNoContent, status, "setup of %s: %s", c.Name, body)
		}
	}
	if c.Send.Method == http.MethodPost && c.NoZone && strings.Contains(c.Send.Body, `"rrsets"`) {
		// A zone created by the case itself must not outlive it.
		t.Cleanup(func() {
			_ = srv.Client.Zones.Delete(context.Background(), zone)
		})
	}
	key := srv.APIKey
	if c.APIKey != "" {
		key = c.APIKey
	}
	status, ctype, body := send(ctx, t, srv, key, c.Send)
	return Body{
		Case: c.Name, Version: srv.Version, Backend: string(srv.Backend), Request: c.Send,
		Status: status, ContentType: ctype, Body: body,
	}
}

func send(ctx context.Context, t *testing.T, srv *pdnstest.Server, key string, r Request) (int, string, string) {
	t.Helper()
	var body io.Reader
	if r.Body != "" {
		body = bytes.NewBufferString(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, srv.URL+r.Path, body)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", key)
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return fmt.Sprintf("%s.%s", parts[0], parts[1])
}
