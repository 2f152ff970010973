package pdnstest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/pdnstest"
)

// TestRestartDatabase proves a gpgsql or gmysql server started
// WithOwnDatabase gets its database server back from RestartDatabase with
// its data: what was written before is read after through the API of
// either frontend and over DNS from either. What the frontends answered
// while the database was away is logged.
func TestRestartDatabase(t *testing.T) {
	for _, backend := range []pdnstest.Backend{pdnstest.GPGSQL, pdnstest.GMySQL} {
		t.Run(string(backend), func(t *testing.T) {
			t.Parallel()
			requireBackend(t, backend)
			srv := pdnstest.Start(t, pdnstest.WithBackend(backend), pdnstest.WithOwnDatabase())
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			zone := srv.NewZone(t)
			name := "kept." + zone
			require.NoError(t, srv.Client.Records.Add(ctx, zone, name, powerdns.RRTypeTXT, 60, []string{`"still here"`}))

			probe := startProbe(ctx, srv, zone)
			began := time.Now()
			require.NoError(t, srv.RestartDatabase(ctx))
			took := time.Since(began)
			seen := probe.stop()
			t.Logf("%s: database restarted in %s; while it was away the frontends answered:\n%s",
				srv.Name(), took.Round(time.Millisecond), seen)

			for i, f := range srv.Frontends {
				got, err := f.Client.Records.Get(ctx, zone, name, powerdns.RRTypePtr(powerdns.RRTypeTXT))
				require.NoError(t, err, "frontend %d answers through its API", i)
				require.Len(t, got, 1)
				assert.Equal(t, `"still here"`, *got[0].Records[0].Content, "frontend %d", i)

				c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
				resp, _, err := c.ExchangeContext(ctx, new(dns.Msg).SetQuestion(name, dns.TypeTXT), f.DNSAddr)
				require.NoError(t, err, "frontend %d answers over DNS", i)
				assert.Equal(t, dns.RcodeToString[dns.RcodeSuccess], dns.RcodeToString[resp.Rcode], "frontend %d serves %s", i, name)
				assert.Len(t, resp.Answer, 1, "frontend %d serves %s", i, name)
			}
			// Written after the restart, through either frontend.
			require.NoError(t, srv.Client.Records.Add(ctx, zone, "after."+zone, powerdns.RRTypeA, 60, []string{"192.0.2.1"}))
		})
	}
}

// requireBackend skips the test when no configured target runs backend.
func requireBackend(t *testing.T, backend pdnstest.Backend) {
	t.Helper()
	targets, err := pdnstest.Targets()
	if err != nil {
		return // Start skips, or fails where PowerDNS is required
	}
	for _, tg := range targets {
		if tg.Backend == backend {
			return
		}
	}
	t.Skipf("no %s target configured", backend)
}

// probe reads a zone through every frontend of a server, over the API
// and over DNS, again and again, counting the distinct answers.
type probe struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	seen   map[string]int
}

func startProbe(ctx context.Context, srv *pdnstest.Server, zone string) *probe {
	ctx, cancel := context.WithCancel(ctx)
	p := &probe{cancel: cancel, seen: make(map[string]int)}
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 10 * time.Second}
	for i, f := range srv.Frontends {
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			for ctx.Err() == nil {
				answer := apiAnswer(ctx, hc, f.URL+"/api/v1/servers/localhost/zones/"+zone, srv.APIKey)
				if ctx.Err() == nil {
					p.count(fmt.Sprintf("frontend %d API GET zone: %s", i, answer))
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		go func() {
			defer p.wg.Done()
			c := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
			for ctx.Err() == nil {
				resp, _, err := c.ExchangeContext(ctx, new(dns.Msg).SetQuestion(zone, dns.TypeSOA), f.DNSAddr)
				answer := "no answer"
				if err == nil {
					answer = dns.RcodeToString[resp.Rcode]
				}
				if ctx.Err() == nil {
					p.count(fmt.Sprintf("frontend %d DNS SOA: %s", i, answer))
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	return p
}

func (p *probe) count(answer string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[answer]++
}

// stop ends the probe and returns what it saw, a line per answer with
// its count.
func (p *probe) stop() string {
	p.cancel()
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	lines := make([]string, 0, len(p.seen))
	for answer, n := range p.seen {
		lines = append(lines, fmt.Sprintf("  %s (%d)", answer, n))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// apiAnswer sends a GET, asking for JSON as the library does, and says
// what came back: the status, the content
// type and the start of the body, or that nothing did.
func apiAnswer(ctx context.Context, hc *http.Client, url, key string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err.Error()
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "no answer"
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return resp.Status
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return fmt.Sprintf("%s (%s) %q", resp.Status, resp.Header.Get("Content-Type"), strings.TrimSpace(string(body)))
}
