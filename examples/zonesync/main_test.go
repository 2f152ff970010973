package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/examples/internal/apikey"
	"github.com/pdnskit/reconcile/pdnstest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from this run")

func TestMain(m *testing.M) { pdnstest.Main(m) }

// TestSync runs zonesync as an operator would, against every server: a dry
// run writes nothing, -apply writes the plan, a second run has nothing to
// do, and a changed file updates and deletes what the writer owns.
func TestSync(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		z := newZone(t, srv)
		before := z.live(t)

		code, out, errOut := z.run(t, "-file", "testdata/example.zone")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "plan.golden", out)
		assert.Equal(t, before, z.live(t), "a dry run writes nothing")

		code, out, errOut = z.run(t, "-file", "testdata/example.zone", "-apply")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "apply.golden", out)
		assert.Contains(t, z.live(t), "www A 300 192.0.2.10,192.0.2.11")

		code, out, errOut = z.run(t, "-file", "testdata/example.zone", "-apply")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "in-sync.golden", out)

		code, out, errOut = z.run(t, "-file", "testdata/changed.zone", "-format", "json")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "changed.json.golden", out)

		code, out, errOut = z.run(t, "-file", "testdata/changed.zone", "-apply", "-format", "json")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "changed-applied.json.golden", out)
		assert.NotContains(t, strings.Join(z.live(t), "\n"), "sip", "what the file no longer holds is deleted")
		assert.Empty(t, errOut)
	})
}

// TestBlocked: a CNAME the file wants next to an address nobody owns is
// blocked (exit 2) and not written; with -adopt -takeover the address is
// replaced in the same PATCH.
func TestBlocked(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		z := newZone(t, srv)
		// Written by hand: no writer recorded.
		require.NoError(t, srv.Client.Records.Add(pdnstest.Context(t), z.name, "legacy."+z.name, powerdns.RRTypeA, 300, []string{"192.0.2.99"}))

		code, out, errOut := z.run(t, "-file", "testdata/conflict.zone", "-apply")
		require.Equal(t, exitBlocked, code, errOut)
		z.golden(t, "blocked.golden", out)
		assert.Contains(t, z.live(t), "legacy A 300 192.0.2.99")

		code, out, errOut = z.run(t, "-file", "testdata/conflict.zone", "-apply", "-adopt", "-takeover")
		require.Equal(t, exitOK, code, errOut)
		z.golden(t, "takeover.golden", out)
		assert.Contains(t, z.live(t), "legacy CNAME 300 www."+z.name)
	})
}

// TestBadInput: every bad input gives one message naming the file and
// line, or the flag, exits 1, and writes nothing.
func TestBadInput(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		z := newZone(t, srv)
		before := z.live(t)
		wrongKey := writeFile(t, "key", "not-the-key")
		cases := []struct {
			name string
			args []string
			want string
		}{
			{"unreadable file", []string{"-file", "testdata/missing.zone"},
				"zonesync: -file: open testdata/missing.zone: no such file or directory"},
			{"bad line", []string{"-file", "testdata/bad-line.zone"},
				`zonesync: testdata/bad-line.zone:4:28: bad A A: "192.0.2.300"`},
			{"out of zone", []string{"-file", "testdata/out-of-zone.zone"},
				"zonesync: testdata/out-of-zone.zone:3: www.example.org. is outside zone " + z.name + " (-zone)"},
			{"two TTLs", []string{"-file", "testdata/two-ttls.zone"},
				"zonesync: testdata/two-ttls.zone:3: www." + z.name + " A has TTL 600, but 300 on line 2: the records of an RRset share one TTL"},
			{"unsupported type", []string{"-file", "testdata/unsupported.zone"},
				"zonesync: testdata/unsupported.zone:3: www." + z.name + " GPOS: type not supported"},
			{"wrong key", []string{"-file", "testdata/example.zone", "-api-key-file", wrongKey, "-apply"},
				"zonesync: PowerDNS at " + srv.URL + " refused the API key from -api-key-file " + wrongKey + " (401 Unauthorized)"},
			{"no such zone", []string{"-file", "testdata/example.zone", "-zone", "missing." + z.name, "-apply"},
				"zonesync: zone missing." + z.name + " does not exist at " + srv.URL + " (-zone); zonesync writes into an existing zone"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				code, out, errOut := z.run(t, append(c.args, "-apply")...)
				assert.Equal(t, exitFail, code)
				assert.Empty(t, out)
				assert.True(t, strings.HasPrefix(errOut, c.want), "stderr: %q\nwant prefix: %q", errOut, c.want)
				assert.Equal(t, 1, strings.Count(errOut, "\n"), "one message: %q", errOut)
				assert.NotContains(t, errOut, srv.APIKey)
				assert.Equal(t, before, z.live(t), "nothing written")
			})
		}
	})
}

// TestProgress: a zone of over 1,000 RRsets reports progress on stderr,
// and is written in one go.
func TestProgress(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		z := newZone(t, srv)
		var b strings.Builder
		b.WriteString("$TTL 300\n")
		for i := range 1500 {
			fmt.Fprintf(&b, "host%04d IN A 10.0.%d.%d\n", i, i/250, i%250+1)
		}
		file := writeFile(t, "big.zone", b.String())
		code, out, errOut := z.run(t, "-file", file, "-apply")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "Applied to "+z.name+" by zonesync: 1500 created, 0 updated, 0 deleted.")
		assert.Contains(t, errOut, "zonesync: "+file+": 1500 RRsets read")
		assert.Contains(t, errOut, "zonesync: 1500 changes applied in 1 PATCH(es)")
		assert.Len(t, z.live(t), 1502, "1500 hosts, SOA and NS")
	})
}

// TestDeleteGuard: a file that drops most of what the writer holds deletes
// nothing (exit 2) unless -force-deletes says so.
func TestDeleteGuard(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		z := newZone(t, srv)
		hosts := func(n int) string {
			var b strings.Builder
			b.WriteString("$TTL 300\n")
			for i := range n {
				fmt.Fprintf(&b, "host%02d IN A 192.0.2.%d\n", i, i+1)
			}
			return writeFile(t, fmt.Sprintf("hosts%d.zone", n), b.String())
		}
		code, _, errOut := z.run(t, "-file", hosts(20), "-apply")
		require.Equal(t, exitOK, code, errOut)

		five := hosts(5)
		code, out, errOut := z.run(t, "-file", five, "-apply")
		require.Equal(t, exitBlocked, code, errOut)
		assert.Contains(t, out, "Nothing applied to "+z.name+" by zonesync: no changes.\nDeletes held back:\n")
		assert.Equal(t, 15, strings.Count(out, ": this run would delete over 30% of the writer's RRsets in the zone; -force-deletes lets it"))
		assert.Len(t, z.live(t), 22, "nothing deleted")

		code, out, errOut = z.run(t, "-file", five, "-apply", "-force-deletes")
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "Applied to "+z.name+" by zonesync: 0 created, 0 updated, 15 deleted.")
		assert.Len(t, z.live(t), 7)
	})
}

// TestFlags: flags that cannot work are refused with one message and exit 1
// before any file or server is read.
func TestFlags(t *testing.T) {
	t.Setenv(apikey.Env, "")
	key := writeFile(t, "key", "secret-key")
	base := []string{"-server", "http://127.0.0.1:1", "-zone", "example.com.", "-managed-by", "zonesync", "-file", "testdata/example.zone"}
	without := func(flag string) []string {
		var out []string
		for i := 0; i < len(base); i += 2 {
			if base[i] != flag {
				out = append(out, base[i], base[i+1])
			}
		}
		return append(out, "-api-key-file", key)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no server", without("-server"), "zonesync: -server is required (see zonesync -h)\n"},
		{"no zone", without("-zone"), "zonesync: -zone is required (see zonesync -h)\n"},
		{"no writer", without("-managed-by"), "zonesync: -managed-by is required (see zonesync -h)\n"},
		{"no file", without("-file"), "zonesync: -file is required (see zonesync -h)\n"},
		{"no key", base, "zonesync: no API key: pass -api-key-file or set $PDNS_API_KEY\n"},
		{"missing key file", append(base, "-api-key-file", "/nonexistent/key"), "zonesync: -api-key-file: open /nonexistent/key: no such file or directory\n"},
		{"bad format", append(without(""), "-format", "yaml"), "zonesync: -format \"yaml\": want text or json\n"},
		{"bad zone", append(without("-zone"), "-zone", "a..b"), "zonesync: -zone \"a..b\": "},
		{"bad server", append(without("-server"), "-server", "ftp://x"), "zonesync: -server: "},
		{"argument", append(without(""), "extra"), "zonesync: unexpected argument \"extra\"\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(pdnstest.Context(t), c.args, &out, &errOut)
			assert.Equal(t, exitFail, code)
			assert.Empty(t, out.String())
			assert.True(t, strings.HasPrefix(errOut.String(), c.want), "stderr: %q", errOut.String())
			assert.NotContains(t, errOut.String(), "secret-key")
		})
	}
}

// zone is a fresh zone on one server, synced by the writer "zonesync".
type zone struct {
	srv     *pdnstest.Server
	name    string
	keyFile string
}

func newZone(t *testing.T, srv *pdnstest.Server) *zone {
	t.Helper()
	return &zone{srv: srv, name: srv.NewZone(t), keyFile: writeFile(t, "api-key", srv.APIKey+"\n")}
}

// run runs zonesync on the zone; later flags win over the defaults.
func (z *zone) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	all := append([]string{"-server", z.srv.URL, "-api-key-file", z.keyFile, "-zone", z.name, "-managed-by", "zonesync"}, args...)
	var out, errOut bytes.Buffer
	code = run(pdnstest.Context(t), all, &out, &errOut)
	return code, out.String(), errOut.String()
}

// live reads the zone over the API: one line per RRset but the SOA,
// "name TYPE ttl records", names relative, sorted.
func (z *zone) live(t *testing.T) []string {
	t.Helper()
	got, err := z.srv.Client.Zones.Get(pdnstest.Context(t), z.name)
	require.NoError(t, err)
	var out []string
	for _, rr := range got.RRsets {
		var recs []string
		for _, r := range rr.Records {
			recs = append(recs, *r.Content)
		}
		sort.Strings(recs)
		name := strings.TrimSuffix(strings.TrimSuffix(*rr.Name, z.name), ".")
		if name == "" {
			name = "@"
		}
		out = append(out, fmt.Sprintf("%s %s %d %s", name, *rr.Type, *rr.TTL, strings.Join(recs, ",")))
	}
	sort.Strings(out)
	return out
}

// golden compares out, with the zone's random name spelled example.com.,
// with testdata/name.
func (z *zone) golden(t *testing.T, name, out string) {
	t.Helper()
	out = strings.ReplaceAll(out, z.name, "example.com.")
	path := filepath.Join("testdata", name)
	goldenMu.Lock()
	defer goldenMu.Unlock()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -update writes it")
	assert.Equal(t, string(want), out)
}

var goldenMu sync.Mutex

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}
