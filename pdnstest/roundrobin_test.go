package pdnstest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoundRobinAlternates: consecutive requests of one client, on one
// kept-alive connection, go to alternate frontends, and every answer says
// which one answered; a frontend that does not answer is a 502 naming it.
func TestRoundRobinAlternates(t *testing.T) {
	var frontends []string
	for _, name := range []string{"a", "b"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, name+" "+r.URL.Path+" "+r.Header.Get("X-API-Key"))
		}))
		t.Cleanup(srv.Close)
		frontends = append(frontends, srv.URL)
	}
	rr, err := startRoundRobin(frontends)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rr.close() })

	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	t.Cleanup(hc.CloseIdleConnections)
	get := func() (status int, body, frontend string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, rr.url+"/api/v1/servers", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", "k")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b), resp.Header.Get(FrontendHeader)
	}
	var bodies, headers []string
	for range 4 {
		status, body, frontend := get()
		require.Equal(t, http.StatusOK, status)
		bodies, headers = append(bodies, body), append(headers, frontend)
	}
	assert.Equal(t, []string{"a /api/v1/servers k", "b /api/v1/servers k", "a /api/v1/servers k", "b /api/v1/servers k"}, bodies)
	assert.Equal(t, []string{"0", "1", "0", "1"}, headers)

	// Frontend 1 goes away: its turns are 502s naming it, frontend 0's
	// still answer.
	dead, err := startRoundRobin([]string{frontends[0], "http://127.0.0.1:1"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = dead.close() })
	rr = dead
	status, _, frontend := get()
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "0", frontend)
	status, body, frontend := get()
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Equal(t, "1", frontend)
	assert.Contains(t, body, "frontend 1 did not answer")
}

func TestLookupUser(t *testing.T) {
	passwd := filepath.Join(t.TempDir(), "passwd")
	require.NoError(t, os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/bash\n"+
		"postgres:x:100:102:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n"+
		"broken:x:abc:1::/:/bin/false\n"), 0o600))
	cases := []struct {
		name    string
		want    *runAs
		wantErr bool
	}{
		{name: "postgres", want: &runAs{uid: 100, gid: 102}},
		{name: "root", want: &runAs{uid: 0, gid: 0}},
		{name: "broken", wantErr: true},
		{name: "nobody", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := lookupUser(passwd, c.name)
			if c.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestMatrix(t *testing.T) {
	got := matrix(Process, databases{"/roots/postgres", "/roots/mariadb"}, []string{"/r/4.7", "none"}, []string{"/r/5.1"},
		[]string{"/r/4.9", "none"}, []string{"none", "/r/5.1"})
	assert.Equal(t, []Target{
		{Provider: Process, Root: "/r/4.7", Backend: GSQLite3},
		{Provider: Process, Root: "/r/5.1", Backend: LMDB},
		{Provider: Process, Root: "/r/4.9", Backend: GPGSQL, Postgres: "/roots/postgres"},
		{Provider: Process, Root: "/r/5.1", Backend: GMySQL, MariaDB: "/roots/mariadb"},
	}, got)
	assert.Equal(t, "process /r/4.9 (gpgsql on /roots/postgres)", got[2].String())
	assert.Equal(t, "process /r/5.1 (gmysql on /roots/mariadb)", got[3].String())
}
