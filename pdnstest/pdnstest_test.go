package pdnstest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/pdnskit/reconcile/pdnstest"
)

// probeEnv makes the test binary report, before anything else runs, what
// importing pdnstest changed: TestImportHasNoSideEffects runs it so.
const probeEnv = "PDNSTEST_IMPORT_PROBE"

func TestMain(m *testing.M) {
	if os.Getenv(probeEnv) == "1" {
		_, ryuk := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED")
		fmt.Printf("ryuk-variable-set=%t logger=%T\n", ryuk, tclog.Default())
		return
	}
	pdnstest.Main(m)
}

// TestImportHasNoSideEffects: a test binary that imports pdnstest finds its
// environment and testcontainers-go's logger as it left them until a test
// asks for a server.
func TestImportHasNoSideEffects(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TESTCONTAINERS_RYUK_DISABLED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, probeEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "ryuk-variable-set=false")
	assert.NotContains(t, string(out), "pdnstest.", "testcontainers-go's logger is its own")
}

// TestSmoke proves each configured server is a working PowerDNS: a zone
// created and an RRset written through the API read back through the API
// and over DNS, on UDP and TCP.
func TestSmoke(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		t.Logf("PowerDNS %s, %s backend, %s provider (%s), API %s, DNS %s",
			srv.Version, srv.Backend, srv.Target.Provider, srv.Target, srv.URL, srv.DNSAddr)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		zone := srv.NewZone(t)
		name := "www." + zone
		require.NoError(t, srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{{
			Name:       powerdns.String(name),
			Type:       powerdns.RRTypePtr(powerdns.RRTypeA),
			TTL:        powerdns.Uint32(300),
			ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
			Records: []powerdns.Record{
				{Content: powerdns.String("192.0.2.10"), Disabled: powerdns.Bool(false)},
				{Content: powerdns.String("192.0.2.11"), Disabled: powerdns.Bool(false)},
			},
		}}}))

		got, err := srv.Client.Records.Get(ctx, zone, name, powerdns.RRTypePtr(powerdns.RRTypeA))
		require.NoError(t, err)
		require.Len(t, got, 1)
		var contents []string
		for _, r := range got[0].Records {
			contents = append(contents, *r.Content)
		}
		assert.ElementsMatch(t, []string{"192.0.2.10", "192.0.2.11"}, contents)
		assert.Equal(t, uint32(300), *got[0].TTL)

		for _, network := range []string{"udp", "tcp"} {
			c := &dns.Client{Net: network, Timeout: 5 * time.Second}
			resp, _, err := c.ExchangeContext(ctx, new(dns.Msg).SetQuestion(name, dns.TypeA), srv.DNSAddr)
			require.NoError(t, err, network)
			require.Equal(t, dns.RcodeSuccess, resp.Rcode, network)
			assert.True(t, resp.Authoritative, "%s: answer is authoritative", network)
			var addrs []string
			for _, rr := range resp.Answer {
				if a, ok := rr.(*dns.A); ok {
					addrs = append(addrs, a.A.String())
					assert.Equal(t, uint32(300), a.Hdr.Ttl)
				}
			}
			assert.ElementsMatch(t, []string{"192.0.2.10", "192.0.2.11"}, addrs, network)
		}
	})
}

// TestStartDedicated proves Start gives a test its own server, stopped when
// the test ends.
func TestStartDedicated(t *testing.T) {
	srv := pdnstest.Start(t, pdnstest.WithArgs("--webserver-max-bodysize=1"))
	require.NotEmpty(t, srv.Version)
	assert.True(t, srv.AtLeast(4, 7), "version %s", srv.Version)
	zone := srv.NewZone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	z, err := srv.Client.Zones.Get(ctx, zone)
	require.NoError(t, err)
	assert.Equal(t, zone, *z.Name)
}

// TestKillRestart proves a killed server comes back on the same address with
// its data, as fault tests need; a server with frontends loses and gets back
// all of them.
func TestKillRestart(t *testing.T) {
	for _, backend := range []pdnstest.Backend{pdnstest.GSQLite3, pdnstest.LMDB, pdnstest.GPGSQL} {
		t.Run(string(backend), func(t *testing.T) {
			srv := pdnstest.Start(t, pdnstest.WithBackend(backend))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			zone := srv.NewZone(t)
			require.NoError(t, srv.Client.Records.Add(ctx, zone, "kept."+zone, powerdns.RRTypeTXT, 60, []string{`"still here"`}))
			url := srv.URL

			require.NoError(t, srv.Kill(ctx))
			_, err := srv.Client.Zones.Get(ctx, zone)
			require.Error(t, err, "a killed server does not answer")
			for i, f := range srv.Frontends {
				_, err := f.Client.Zones.Get(ctx, zone)
				require.Error(t, err, "killed frontend %d does not answer", i)
			}

			require.NoError(t, srv.Restart(ctx))
			assert.Equal(t, url, srv.URL)
			got, err := srv.Client.Records.Get(ctx, zone, "kept."+zone, powerdns.RRTypePtr(powerdns.RRTypeTXT))
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, `"still here"`, *got[0].Records[0].Content)
			for i, f := range srv.Frontends {
				_, err := f.Client.Zones.Get(ctx, zone)
				require.NoError(t, err, "frontend %d is back", i)
			}
		})
	}
}
