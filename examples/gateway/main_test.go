package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/examples/internal/apikey"
	"github.com/pdnskit/reconcile/pdnstest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from this run")

func TestMain(m *testing.M) { pdnstest.Main(m) }

// TestDemo runs the demo against every server: the same story, the same
// output (but for the line naming the server and where ownership is
// recorded), exit 0.
func TestDemo(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		args := []string{"-server", srv.URL, "-api-key-file", keyFile(t, srv.APIKey), "-dns-addr", srv.DNSAddr}
		if srv.Backend == pdnstest.LMDB {
			// LMDB hands a deleted zone's comments to the next zone
			// created: keep it, so that later tests start clean.
			args = append(args, "-keep")
		}
		code, stdout, stderr := runDemo(t, args...)
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		assertGolden(t, "demo.golden", normalise(stdout))
		assert.NotContains(t, stdout+stderr, srv.APIKey)
		if srv.Backend != pdnstest.LMDB {
			_, err := srv.Client.Zones.Get(pdnstest.Context(t), "gateway.example.")
			assert.Error(t, err, "the demo deletes its zone")
		}
	})
}

// TestDemoStartsItsOwnServer runs the demo as `make demo` does: it starts a
// PowerDNS of its own, of either backend.
func TestDemoStartsItsOwnServer(t *testing.T) {
	pdnstest.Servers(t) // skips where there is no PowerDNS to start
	for _, backend := range []string{"gsqlite3", "lmdb"} {
		t.Run(backend, func(t *testing.T) {
			code, stdout, stderr := runDemo(t, "-backend", backend)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assertGolden(t, "demo.golden", normalise(stdout))
			assert.Contains(t, stderr, "starting PowerDNS")
			assert.Contains(t, stdout, "("+backend+" backend)")
		})
	}
}

// TestDemoKeyFromEnvironment: without -api-key-file the key comes from
// PDNS_API_KEY.
func TestDemoKeyFromEnvironment(t *testing.T) {
	srv := pdnstest.Servers(t)[0]
	t.Setenv(apikey.Env, srv.APIKey)
	code, stdout, stderr := runDemo(t, "-server", srv.URL, "-dns-addr", srv.DNSAddr, "-zone", "env.gateway.example.")
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.NotContains(t, stdout+stderr, srv.APIKey)
}

// TestDemoBadServerInput: a wrong key and an existing zone each give one
// message naming what to fix, and nothing is written.
func TestDemoBadServerInput(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		t.Run("wrong key", func(t *testing.T) {
			wrong := keyFile(t, "not-the-key")
			code, stdout, stderr := runDemo(t, "-server", srv.URL, "-api-key-file", wrong, "-zone", "wrong-key.example.")
			assert.Equal(t, exitFail, code)
			assert.Empty(t, stdout)
			assert.Equal(t, "gateway: PowerDNS at "+srv.URL+" refused the API key from -api-key-file "+wrong+" (401 Unauthorized)\n", stderr)
			_, err := srv.Client.Zones.Get(pdnstest.Context(t), "wrong-key.example.")
			assert.Error(t, err, "no zone was created")
		})
		t.Run("zone exists", func(t *testing.T) {
			zone := srv.NewZone(t)
			before, err := srv.Client.Zones.Get(pdnstest.Context(t), zone)
			require.NoError(t, err)
			code, stdout, stderr := runDemo(t, "-server", srv.URL, "-api-key-file", keyFile(t, srv.APIKey), "-zone", zone)
			assert.Equal(t, exitFail, code)
			assert.Empty(t, stdout)
			assert.Equal(t, "gateway: zone "+zone+" already exists at "+srv.URL+
				": the demo writes only to a zone it creates; pass another -zone\n", stderr)
			after, err := srv.Client.Zones.Get(pdnstest.Context(t), zone)
			require.NoError(t, err)
			assert.Len(t, after.RRsets, len(before.RRsets), "the zone is untouched")
		})
	})
}

// TestDemoBadFlags: flags that cannot work are refused before anything is
// asked of a server.
func TestDemoBadFlags(t *testing.T) {
	t.Setenv(apikey.Env, "")
	empty := keyFile(t, "\n")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no key", []string{"-server", "http://127.0.0.1:1"}, exitUsage,
			"gateway: -server needs an API key: pass -api-key-file or set $PDNS_API_KEY (see gateway -h)\n"},
		{"missing key file", []string{"-server", "http://127.0.0.1:1", "-api-key-file", "/nonexistent/key"}, exitFail,
			"gateway: -api-key-file: open /nonexistent/key: no such file or directory\n"},
		{"empty key file", []string{"-server", "http://127.0.0.1:1", "-api-key-file", empty}, exitFail,
			"gateway: -api-key-file " + empty + " is empty\n"},
		{"key file without server", []string{"-api-key-file", empty}, exitUsage,
			"gateway: -api-key-file and -dns-addr go with -server (see gateway -h)\n"},
		{"bad backend", []string{"-backend", "bind"}, exitUsage,
			"gateway: -backend \"bind\": want gsqlite3 or lmdb (see gateway -h)\n"},
		{"bad zone", []string{"-zone", "a..b"}, exitUsage,
			"gateway: -zone \"a..b\": "},
		{"argument", []string{"extra"}, exitUsage,
			"gateway: unexpected argument \"extra\" (see gateway -h)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runDemo(t, c.args...)
			assert.Equal(t, c.code, code)
			assert.Empty(t, stdout)
			assert.True(t, strings.HasPrefix(stderr, c.msg), "stderr: %q", stderr)
			assert.Equal(t, 1, strings.Count(stderr, "gateway: "), "one message: %q", stderr)
		})
	}
}

func runDemo(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(pdnstest.Context(t), args, &out, &errb)
	return code, out.String(), errb.String()
}

func keyFile(t *testing.T, key string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "api-key")
	require.NoError(t, os.WriteFile(path, []byte(key), 0o600))
	return path
}

var (
	serverLine = regexp.MustCompile(`(?m)^PowerDNS .* at http://.*, DNS at .*$`)
	storeNote  = regexp.MustCompile(`writers recorded in (RRset comments|zone metadata)`)
)

// normalise masks what differs between servers: the line naming the
// server, and where it records ownership.
func normalise(out string) string {
	out = serverLine.ReplaceAllString(out, "PowerDNS <version> (<backend> backend) at <url>, DNS at <addr>")
	return storeNote.ReplaceAllString(out, "writers recorded in <store>")
}

var goldenMu sync.Mutex

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	goldenMu.Lock()
	defer goldenMu.Unlock()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
}
