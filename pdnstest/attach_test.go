package pdnstest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// versionServer answers what waitReady and attachServers ask a PowerDNS
// API for, for key only: the file handover is under test here, not
// PowerDNS.
func versionServer(t *testing.T, key, version string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != key || r.URL.Path != "/api/v1/servers/localhost" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"version":"` + version + `"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// TestServersHandover: what WriteServers writes, a test binary reads back
// whole when EnvServers names it, and a server read so cannot be killed.
func TestServersHandover(t *testing.T) {
	key := APIKeyPrefix + "handover"
	api := versionServer(t, key, "4.9.18")
	front := versionServer(t, key, "4.9.18")
	written := []*Server{
		{
			Target: Target{Provider: Container, Image: "pdnskit/pdns-auth:4.9", Backend: GSQLite3},
			URL:    api.URL, APIKey: key, DNSAddr: "127.0.0.1:5300", Version: "4.9.18", Backend: GSQLite3,
		},
		{
			Target: Target{Provider: Process, Root: "/roots/4.9", Backend: GPGSQL, Postgres: "/roots/postgres"},
			URL:    api.URL, APIKey: key, DNSAddr: "127.0.0.1:5301", Version: "4.9.18", Backend: GPGSQL,
			Frontends: []Frontend{{URL: front.URL, DNSAddr: "127.0.0.1:5302"}, {URL: api.URL, DNSAddr: "127.0.0.1:5303"}},
		},
	}
	path := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, WriteServers(path, written))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the file holds API keys")

	read, err := attachServers(path)
	require.NoError(t, err)
	require.Len(t, read, len(written))
	for i, got := range read {
		want := written[i]
		assert.Equal(t, want.Target, got.Target)
		if len(want.Frontends) == 0 {
			assert.Equal(t, want.URL, got.URL)
		} else {
			// A round-robin of the reading binary's own, in front of the
			// frontends.
			assert.NotEqual(t, want.URL, got.URL)
			for range 2 {
				v, err := fetchVersion(context.Background(), got.URL, key)
				require.NoError(t, err)
				assert.Equal(t, want.Version, v)
			}
		}
		assert.Equal(t, want.APIKey, got.APIKey)
		assert.Equal(t, want.DNSAddr, got.DNSAddr)
		assert.Equal(t, want.Version, got.Version)
		assert.Equal(t, want.Backend, got.Backend)
		assert.Equal(t, want.Name(), got.Name())
		require.NotNil(t, got.Client)
		require.Len(t, got.Frontends, len(want.Frontends))
		for j, f := range got.Frontends {
			assert.Equal(t, want.Frontends[j].URL, f.URL)
			assert.Equal(t, want.Frontends[j].DNSAddr, f.DNSAddr)
			require.NotNil(t, f.Client)
		}
		assert.ErrorIs(t, got.Kill(context.Background()), errAttached)
		assert.ErrorIs(t, got.Restart(context.Background()), errAttached)
		require.NoError(t, got.Stop(context.Background()))
		if len(want.Frontends) > 0 {
			_, err := fetchVersion(context.Background(), got.URL, key)
			assert.Error(t, err, "Stop closes the binary's own round-robin")
		}
	}
	// The servers themselves are their owner's: still there.
	for _, s := range []*httptest.Server{api, front} {
		_, err := fetchVersion(context.Background(), s.URL, key)
		assert.NoError(t, err)
	}
}

// TestServersHandoverRefused: a file that cannot serve fails with a reason
// that names the variable.
func TestServersHandoverRefused(t *testing.T) {
	key := APIKeyPrefix + "refused"
	saved := attachTimeout
	attachTimeout = 500 * time.Millisecond
	t.Cleanup(func() { attachTimeout = saved })
	gone := versionServer(t, key, "5.1.5")
	goneURL := gone.URL
	gone.Close()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	stale := filepath.Join(dir, "stale.json")
	require.NoError(t, WriteServers(stale, []*Server{{
		Target: Target{Provider: Container, Image: "i", Backend: GSQLite3},
		URL:    goneURL, APIKey: key, Version: "5.1.5", Backend: GSQLite3,
	}}))
	cases := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "missing.json"), "no such file"},
		{"not JSON", write("garbage.json", "{"), "unexpected end of JSON input"},
		{"another format", write("v2.json", `{"version":2,"servers":[]}`), "format 2, want 1"},
		{"no server", write("empty.json", `{"version":1,"servers":[]}`), "names no server"},
		{"a server that has stopped", stale, "does the command that started it still run?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			servers, err := attachServers(c.path)
			require.Error(t, err)
			assert.Nil(t, servers)
			assert.Contains(t, err.Error(), EnvServers)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), key, "an error never holds the API key")
		})
	}
}

// TestWriteServersRefusesAMissingServer: a server that did not start (nil,
// as LaunchAll leaves it) is an error, not a hole in the file.
func TestWriteServersRefusesAMissingServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "servers.json")
	err := WriteServers(path, []*Server{nil})
	require.Error(t, err)
	_, statErr := os.Stat(path)
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "nothing written")
}

// TestShareable: only gsqlite3 before 4.8 is run by every test binary for
// itself.
func TestShareable(t *testing.T) {
	cases := []struct {
		version string
		backend Backend
		want    bool
	}{
		{"4.7.3", GSQLite3, false},
		{"4.8.0", GSQLite3, true},
		{"4.9.18", GSQLite3, true},
		{"5.1.5", GSQLite3, true},
		{"4.9.18", LMDB, false},
		{"5.1.5", LMDB, false},
		{"4.9.18", GPGSQL, true},
		{"4.9.18", GMySQL, true},
	}
	for _, c := range cases {
		t.Run(c.version+"-"+string(c.backend), func(t *testing.T) {
			assert.Equal(t, c.want, shareable(&Server{Version: c.version, Backend: c.backend}))
		})
	}
}
