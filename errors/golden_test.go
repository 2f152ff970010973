package errors_test

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/bodies")

// answer is one recorded PowerDNS answer, as the test harness writes them to
// testdata/pdns/<version>/<case>.json.
type answer struct {
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}

func loadAnswer(t *testing.T, path string) answer {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var a answer
	require.NoError(t, json.Unmarshal(raw, &a), path)
	return a
}

// expectation is what every server version must answer for a harness case:
// the reason of the answer and the owner, type and content of its first
// problem with that reason (the harness writes into zone golden.example.).
type expectation struct {
	reason             pdnserrors.Reason
	name, typ, content string
	several            bool // some versions (5.1) report more than one problem
}

// goldenCases are the answers the harness records from every PowerDNS
// version (make testdata), keyed by case name.
var goldenCases = map[string]expectation{
	"cname-over-a":              {reason: pdnserrors.Conflict, name: "v4.golden.example.", typ: "CNAME"},
	"a-over-cname":              {reason: pdnserrors.Conflict, name: "v6.golden.example.", typ: "AAAA"},
	"cname-at-apex":             {reason: pdnserrors.Conflict, name: "golden.example.", typ: "CNAME"},
	"zone-create-conflicts":     {reason: pdnserrors.Conflict, name: "v4.golden.example.", typ: "CNAME", several: true},
	"duplicate-record":          {reason: pdnserrors.DuplicateRecord, name: "d.golden.example.", typ: "A", content: "192.0.2.1"},
	"duplicate-records-several": {reason: pdnserrors.DuplicateRecord, name: "d.golden.example.", typ: "A", content: "192.0.2.1", several: true},
	"two-cname-records":         {reason: pdnserrors.SingleRecordType, name: "e.golden.example.", typ: "CNAME"},
	"same-rrset-twice":          {reason: pdnserrors.DuplicateRRset, name: "x.golden.example.", typ: "A"},
	"invalid-a":                 {reason: pdnserrors.InvalidContent, name: "a.golden.example.", typ: "A", content: "192.0.2.300"},
	"invalid-aaaa":              {reason: pdnserrors.InvalidContent, name: "a.golden.example.", typ: "AAAA", content: "2001:db8::zz"},
	"invalid-mx":                {reason: pdnserrors.InvalidContent, name: "m.golden.example.", typ: "MX", content: "mail.example.net."},
	"invalid-srv":               {reason: pdnserrors.InvalidContent, name: "_sip._tcp.golden.example.", typ: "SRV", content: "10 5 sip.example.net."},
	"invalid-caa":               {reason: pdnserrors.InvalidContent, name: "c.golden.example.", typ: "CAA", content: "0 issue"},
	"invalid-txt":               {reason: pdnserrors.InvalidContent, name: "t.golden.example.", typ: "TXT", content: `"unterminated`},
	"txt-unquoted":              {reason: pdnserrors.InvalidContent, name: "t.golden.example.", typ: "TXT", content: "hello world"},
	"target-without-dot":        {reason: pdnserrors.InvalidContent, name: "m.golden.example.", typ: "MX", content: "10 mail.example.com"},
	"cname-target-without-dot":  {reason: pdnserrors.InvalidContent, name: "w.golden.example.", typ: "CNAME", content: "target.example.com"},
	"relative-name":             {reason: pdnserrors.InvalidName, name: "api"},
	"dotless-name":              {reason: pdnserrors.InvalidName, name: "api.golden.example"},
	"unsupported-characters":    {reason: pdnserrors.InvalidName, name: `bad\032name.golden.example.`},
	"out-of-zone":               {reason: pdnserrors.OutOfZone, name: "api.other.example.", typ: "A"},
	"soa-off-apex":              {reason: pdnserrors.Placement, name: "sub.golden.example.", typ: "SOA"},
	"ds-at-apex":                {reason: pdnserrors.Placement, name: "golden.example.", typ: "DS"},
	"ns-dname-off-apex":         {reason: pdnserrors.Placement, name: "sub.golden.example.", typ: "DNAME"},
	"unknown-type":              {reason: pdnserrors.UnknownType, name: "x.golden.example.", typ: "FOO"},
	"unknown-changetype":        {reason: pdnserrors.InvalidRequest},
	"missing-ttl":               {reason: pdnserrors.InvalidRequest},
	"lmdb-comment":              {reason: pdnserrors.InvalidRequest},
	"bad-request-400":           {reason: pdnserrors.InvalidRequest},
	"bad-request-400-json":      {reason: pdnserrors.InvalidRequest},
	"unauthorized-401":          {reason: pdnserrors.Unauthorized},
	"unauthorized-401-json":     {reason: pdnserrors.Unauthorized},
	"zone-not-found-404":        {reason: pdnserrors.ZoneNotFound},
	"zone-not-found-404-json":   {reason: pdnserrors.ZoneNotFound},
	"zone-exists-409":           {reason: pdnserrors.ZoneExists},
	"zone-exists-409-json":      {reason: pdnserrors.ZoneExists},
}

// TestGoldenPowerDNS classifies every answer recorded from a real server.
// It skips when the recordings are absent (run make testdata).
func TestGoldenPowerDNS(t *testing.T) {
	root := filepath.Join("..", "testdata", "pdns")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no recorded answers in %s (make testdata): %v", root, err)
	}
	var files []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	}))
	if len(files) == 0 {
		t.Skipf("no recorded answers in %s (make testdata)", root)
	}
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			a := loadAnswer(t, path)
			if a.Status >= 200 && a.Status <= 299 {
				t.Skipf("case %s was accepted (%d) by this server", name, a.Status)
			}
			got := pdnserrors.Parse(a.Status, []byte(a.Body))
			require.NotEmpty(t, got.Problems)
			assert.NotEmpty(t, got.Message)
			want, ok := goldenCases[name]
			if !ok {
				t.Errorf("no expectation for case %q: add it to goldenCases (got %s)", name, got)
				return
			}
			assert.Equal(t, want.reason, got.Reason(), "%s", got)
			first := got.Problems[0]
			for _, p := range got.Problems {
				if p.Reason == want.reason {
					first = p
					break
				}
			}
			assert.Equal(t, want.name, first.Name, "%s", got)
			assert.Equal(t, want.typ, first.Type, "%s", got)
			assert.Equal(t, want.content, first.Content, "%s", got)
			if key, ok := first.Key(); ok {
				assert.Contains(t, got.Keys(), key)
			}
			if !want.several {
				assert.Len(t, got.Problems, 1, "%s", got)
			}
			for _, p := range got.Problems {
				assert.NotEqual(t, pdnserrors.Unknown, p.Reason, "%s", p.Message)
				if strings.HasPrefix(a.ContentType, "application/json") {
					assert.Contains(t, a.Body, jsonQuoted(t, p.Message))
				}
			}
			if strings.HasPrefix(a.ContentType, "application/json") && len(got.Problems) > 1 {
				assert.Equal(t, "Multiple errors found in RRset", got.Message)
			}
		})
	}
}

// jsonQuoted is msg as it appears inside a JSON string.
func jsonQuoted(t *testing.T, msg string) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(msg))
	return strings.Trim(strings.TrimSpace(b.String()), `"`)
}

// TestGoldenBodies renders the APIError of each whole body under
// testdata/bodies and compares it with the .golden file beside it
// (regenerate with go test -run TestGoldenBodies -update).
func TestGoldenBodies(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "bodies", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	slices.Sort(inputs)
	for _, path := range inputs {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			a := loadAnswer(t, path)
			got := pdnserrors.Parse(a.Status, []byte(a.Body))
			rendered, err := json.MarshalIndent(struct {
				Error string
				*pdnserrors.APIError
				Reason pdnserrors.Reason
				Keys   []pdnserrors.Key
			}{got.Error(), got, got.Reason(), got.Keys()}, "", "  ")
			require.NoError(t, err)
			rendered = append(rendered, '\n')
			golden := strings.TrimSuffix(path, ".json") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, rendered, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update to create it")
			assert.Equal(t, string(want), string(rendered))
		})
	}
}
