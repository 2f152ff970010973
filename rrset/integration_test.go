package rrset_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

// roundTrip is one RRset written to PowerDNS and read back. Contents are
// given in a non-canonical spelling where there is one, so that the test
// also proves the canonical form New makes is the one PowerDNS keeps.
type roundTrip struct {
	name, typ string
	contents  []string
	// fixedIn515: 5.1 releases before 5.1.5 refuse the contents
	// (escapes above \127, PowerDNS issue 17875); 4.x stores them.
	fixedIn515 bool
}

var roundTrips = []roundTrip{
	{name: "a", typ: "a", contents: []string{"192.0.2.1", "192.0.2.2", "192.0.2.1"}},
	{name: "aaaa", typ: "AAAA", contents: []string{"2001:DB8:0:0:1:0:0:1", "2001:db8::0:1", "::", "::1"}},
	{name: "aaaa-v4", typ: "AAAA", contents: []string{"::ffff:192.0.2.1", "::192.0.2.1", "::ffff:0:0"}},
	{name: "cname", typ: "CNAME", contents: []string{"Target.Example.NET"}},
	{name: "cname-apex", typ: "CNAME", contents: []string{"@"}},
	{name: "cname-idn", typ: "CNAME", contents: []string{"Bücher.example"}},
	{name: "alias", typ: "ALIAS", contents: []string{"lb.example.net"}},
	{name: "dname", typ: "DNAME", contents: []string{"other.example.net."}},
	{name: "ns", typ: "NS", contents: []string{"NS1.example.net", "ns2.example.net."}},
	{name: "ptr", typ: "PTR", contents: []string{"host.example.net"}},
	{name: "mx", typ: "MX", contents: []string{"10 Mail.Example.net", "20  backup.example.net.", "0 ."}},
	{name: "_sip._tcp", typ: "SRV", contents: []string{"10 5 5060 sip.example.net", "0 0 0 ."}},
	{name: "txt", typ: "TXT", contents: []string{"v=spf1 include:_spf.example.net ~all", `"a" "b"`, `"x\065y"`, `""`}},
	{name: "txt-long", typ: "TXT", contents: []string{strings.Repeat("k", 600), `"` + strings.Repeat("j", 255) + `" "` + strings.Repeat("j", 45) + `"`}},
	{name: "txt-escapes", typ: "TXT", contents: []string{`"tab\009and\127del"`, `"semi;colon (paren)"`}},
	{name: "txt-unicode", typ: "TXT", contents: []string{"héllo wörld ☃"}, fixedIn515: true},
	{name: "txt-dkim._domainkey", typ: "TXT", contents: []string{"v=DKIM1; k=rsa; p=" + strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A", 12)}},
	{name: "spf", typ: "SPF", contents: []string{"v=spf1 -all"}},
	{name: "caa", typ: "CAA", contents: []string{"0 ISSUE letsencrypt.org", `0 issuewild ";"`, `128 iodef "mailto:security@example.net"`, `0 issue "ca.example.net; account=42"`}},
	{name: "_443._tcp.www", typ: "TLSA", contents: []string{"3 1 1 ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF01234567 89"}},
	{name: "smimea", typ: "SMIMEA", contents: []string{"3 0 1 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"}},
	{name: "sshfp", typ: "SSHFP", contents: []string{"4 2 ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789", "1 1 0123456789abcdef0123456789abcdef01234567"}},
	{name: "naptr", typ: "NAPTR", contents: []string{`100 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .`, `100 20 S SIP+D2U "" _sip._udp.example.net`}},
	{name: "ds", typ: "DS", contents: []string{"12345 13 2 ABCDEF0123456789ABCDEF0123456789 ABCDEF0123456789ABCDEF0123456789"}},
	{name: "cds", typ: "CDS", contents: []string{"12345 13 2 abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"}},
	{name: "cdnskey", typ: "CDNSKEY", contents: []string{"257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpV XckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="}},
	{name: "https", typ: "HTTPS", contents: []string{
		"1 . port=443 alpn=h3,h2 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:DB8::1",
		"2 svc.example.net mandatory=port,alpn alpn=h2 port=8443 no-default-alpn",
		`3 . ech="AEX+DQBBAQAgACBsDfj36D0SDOEuwDhohBHNKzONoH6dwiyXt1d8FCzT2wAEAAEAAQASY2xvdWRmbGFyZS1lY2guY29tAAA="`,
		"4 . ipv6hint=::ffff:192.0.2.9",
	}},
	{name: "https-alias", typ: "HTTPS", contents: []string{"0 Pool.Example.net"}},
	{name: "_dns.svcb", typ: "svcb", contents: []string{"1 dns.example.net alpn=dot port=853"}},
	{name: "uri", typ: "URI", contents: []string{`10 1 "https://example.net/a b"`, "20 1 ftp://example.net/", "30 1 https://example.net/" + strings.Repeat("u", 300)}},
	{name: "caa-long", typ: "CAA", contents: []string{"0 issue ca.example.net; account=" + strings.Repeat("9", 300)}},
	{name: "hinfo", typ: "HINFO", contents: []string{`"PC" Linux`}},
	{name: "rp", typ: "RP", contents: []string{"admin.example.net txt.example.net."}},
	{name: "*.wild", typ: "A", contents: []string{"192.0.2.3"}},
	{name: "_acme-challenge.WWW", typ: "TXT", contents: []string{"gfj9Xq...Rg85nM"}},
	{name: "xn--bcher-kva", typ: "A", contents: []string{"192.0.2.4"}},
	{name: "bücher-2", typ: "A", contents: []string{"192.0.2.5"}},
	{name: "a/b", typ: "A", contents: []string{"192.0.2.6"}},
	{name: `\101scaped`, typ: "A", contents: []string{"192.0.2.7"}},
	{name: "cname-specials", typ: "CNAME", contents: []string{"a@b!$%&'+,:<=>?[]^`{|}~*.example.net"}},
	{name: "cname-octets", typ: "CNAME", contents: []string{`a\009\127\195b.example.net`}},
	{name: "ptr-underscore-slash", typ: "PTR", contents: []string{"_a/b.example.net"}},
	{name: "rp-at", typ: "RP", contents: []string{"admin@example.net. txt.example.net."}},
	{name: "mx-hosts", typ: "MX", contents: []string{"10 1.example.net", "20 a--b.example.net"}},
	{name: "generic", typ: "type65420", contents: []string{`\# 2 4142`, `\# 3 00 FF 01`}},
	{name: "generic-private", typ: "TYPE65534", contents: []string{`\# 1 00`}},
}

// TestIntegrationRoundTrip writes every content form New produces to each
// PowerDNS version and backend, reads the zone back, and requires that what
// comes back is equal to what was written: once canonicalised as live data,
// and also accepted as desired data by New, so that a second Diff is empty.
func TestIntegrationRoundTrip(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)

		desired, err := rrset.NewSet(zone)
		require.NoError(t, err)
		for _, rt := range roundTrips {
			rr, err := rrset.New(zone, rt.name, rt.typ, 300, rt.contents...)
			require.NoError(t, err, "%s %s", rt.name, rt.typ)
			if rt.fixedIn515 && srv.AtLeast(5, 1) && !atLeast(srv.Version, "5.1.5") {
				t.Logf("%s: skipped on PowerDNS %s, which refuses it", rr.Key(), srv.Version)
				continue
			}
			require.NoError(t, desired.Add(rr))
			// One PATCH per RRset, so that a refusal names its RRset.
			err = srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{toPowerDNS(rr)}})
			require.NoError(t, err, "PowerDNS %s refused %s:\n%s", srv.Version, rr.Key(), rr)
		}
		// Apex RRsets, DNSKEY being apex-only. The SOA is left out: PowerDNS
		// rewrites its serial on every change (SOA-EDIT-API).
		apex := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "@", "NS", 3600, "ns1.pdnstest.invalid", "ns2.pdnstest.invalid."),
			pdnstest.MustRRset(t, zone, "@", "DNSKEY", 3600, "257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="),
		}
		for _, rr := range apex {
			require.NoError(t, srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{toPowerDNS(rr)}}), "%s", rr.Key())
			desired.Delete(rr.Key())
			require.NoError(t, desired.Add(rr))
		}

		live := readZone(t, srv, zone)
		for want := range desired.All() {
			got, ok := live.Get(want.Key())
			if !assert.True(t, ok, "%s missing after the write", want.Key()) {
				continue
			}
			assert.Equal(t, want.Records, got.Records, "%s read back differently", want.Key())
			assert.Equal(t, want.TTL, got.TTL, "%s TTL", want.Key())
			// What PowerDNS prints is itself valid desired data.
			again, err := rrset.New(zone, got.Name, got.Type, got.TTL, got.Records...)
			if assert.NoError(t, err, "New refuses what PowerDNS printed for %s", want.Key()) {
				assert.True(t, again.EqualData(want), "%s: New(read back) = %q, want %q", want.Key(), again.Records, want.Records)
			}
		}
		plan := rrset.Diff(desired, live, "")
		assert.True(t, plan.Empty(), "second diff is not empty:\n%s", plan)

		// What PowerDNS prints for the SOA is valid desired data too.
		soa, ok := live.Get(rrset.Key{Name: zone, Type: "SOA"})
		if assert.True(t, ok, "the zone has an SOA") {
			again, err := rrset.New(zone, soa.Name, soa.Type, soa.TTL, soa.Records...)
			if assert.NoError(t, err) {
				assert.True(t, again.EqualData(soa), "SOA %q read as %q", soa.Records, again.Records)
			}
		}
	})
}

// unsupported lists valid DNS data that New refuses with ReasonUnsupported.
// TestIntegrationUnsupported proves, server by server, why: each is refused
// by PowerDNS or read back altered on the versions failsOn names.
var unsupported = []struct {
	name, typ, content string
	failsOn            string // "all", "4.x" (before 5.1) or "5.1" (and later)
}{
	{name: `a\.b`, typ: "A", content: "192.0.2.1", failsOn: "all"},
	{name: "a@b", typ: "A", content: "192.0.2.1", failsOn: "all"},
	{name: "cname-escaped-dot", typ: "CNAME", content: `a\.b.example.net.`, failsOn: "5.1"},
	{name: "cname-quote", typ: "CNAME", content: `a"b.example.net.`, failsOn: "5.1"},
	{name: "cname-paren", typ: "CNAME", content: `a(b).example.net.`, failsOn: "5.1"},
	{name: "cname-space", typ: "CNAME", content: `a\032b.example.net.`, failsOn: "5.1"},
	{name: "txt-quote", typ: "TXT", content: `"say \"hi\""`, failsOn: "5.1"},
	{name: "txt-backslash", typ: "TXT", content: `"back\\slash"`, failsOn: "5.1"},
	{name: "caa-quote", typ: "CAA", content: `0 issue "a\"b"`, failsOn: "5.1"},
	{name: "naptr-backreference", typ: "NAPTR", content: `100 10 "u" "E2U+sip" "!^(.*)$!sip:\\1@example.net!" .`, failsOn: "5.1"},
	{name: "svcb-dohpath", typ: "SVCB", content: `1 dns.example.net. alpn=h2 dohpath="/dns-query{?dns}"`, failsOn: "4.x"},
	{name: "svcb-key7", typ: "SVCB", content: `1 dns.example.net. alpn=h2 key7="/dns-query{?dns}"`, failsOn: "5.1"},
	{name: "svcb-alpn-semicolon", typ: "SVCB", content: `1 dns.example.net. alpn="h2;x"`, failsOn: "all"},
	{name: "svcb-alpn-paren", typ: "SVCB", content: `1 dns.example.net. alpn="h2(x)"`, failsOn: "all"},
	{name: "svcb-escaped-alpn", typ: "SVCB", content: `1 dns.example.net. alpn=h2\,h3`, failsOn: "all"},
	{name: "cname-close-paren", typ: "CNAME", content: `a)b.example.net.`, failsOn: "5.1"},
	{name: "cname-semicolon", typ: "CNAME", content: `a;b.example.net.`, failsOn: "5.1"},
	{name: "cname-backslash", typ: "CNAME", content: `a\\b.example.net.`, failsOn: "5.1"},
	{name: "@", typ: "SOA", content: `ns1.example.net. a\032b.example.net. 1 10800 3600 604800 3600`, failsOn: "5.1"},
	{name: "mx-underscore", typ: "MX", content: "10 _mail.example.net.", failsOn: "all"},
	{name: "mx-star", typ: "MX", content: "10 *.example.net.", failsOn: "all"},
	{name: "mx-leading-hyphen", typ: "MX", content: "10 -a.example.net.", failsOn: "all"},
	{name: "srv-trailing-hyphen", typ: "SRV", content: "1 2 3 a-.example.net.", failsOn: "all"},
	{name: "srv-slash", typ: "SRV", content: "1 2 3 a/b.example.net.", failsOn: "all"},
	{name: "ns-underscore", typ: "NS", content: "_ns.example.net.", failsOn: "all"},
	{name: "ns-root", typ: "NS", content: ".", failsOn: "all"},
}

func TestIntegrationUnsupported(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)
		for _, u := range unsupported {
			t.Run(u.name, func(t *testing.T) {
				_, err := rrset.New(zone, u.name, u.typ, 300, u.content)
				var ne *rrset.NameError
				var re *rrset.RecordError
				switch {
				case errors.As(err, &ne):
					assert.Equal(t, rrset.ReasonUnsupported, ne.Reason, "%v", err)
				case errors.As(err, &re):
					assert.Equal(t, rrset.ReasonUnsupported, re.Reason, "%v", err)
				default:
					t.Fatalf("New accepts %s %s %q", u.name, u.typ, u.content)
				}
				// Written anyway, in the canonical form NewLive gives it.
				rr, err := rrset.NewLive(zone, u.name, u.typ, 300, u.content)
				require.NoError(t, err)
				outcome := "kept"
				if err := srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{toPowerDNS(rr)}}); err != nil {
					outcome = "refused: " + err.Error()
				} else {
					live := readZone(t, srv, zone)
					if got, ok := live.Get(rr.Key()); !ok || !got.EqualData(rr) {
						outcome = fmt.Sprintf("altered: %q", got.Records)
					}
				}
				t.Logf("PowerDNS %s: %s %s %q %s", srv.Version, rr.Name, rr.Type, rr.Records, outcome)
				if u.failsOn == "all" || (u.failsOn == "5.1") == srv.AtLeast(5, 1) {
					assert.NotEqual(t, "kept", outcome, "PowerDNS %s stores it unchanged: New could accept it", srv.Version)
				}
			})
		}
	})
}

// TestIntegrationLargeZone writes a 10,000-RRset zone and reads it back:
// canonicalised, what PowerDNS serves is what was desired, and Diff is empty.
func TestIntegrationLargeZone(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10,000-RRset zone")
	}
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		zone, _, desired, served := largeZone(t, srv, 10000)
		live, err := liveSet(zone, served)
		require.NoError(t, err)
		plan := rrset.Diff(desired, live, "")
		require.True(t, plan.Empty(), "%d changes", len(plan.Changes))
	})
}

// BenchmarkIntegrationDiffCost sets the time this package takes on a
// 10,000-RRset zone beside the time the same PowerDNS takes to serve that
// zone's GET, measured in the same run (get-ns, the fastest of ten), and
// reports the ratio (canon-%-of-get):
//
//   - live: canonicalise the zone as PowerDNS serves it into a Set and diff
//     it against the desired Set, built beforehand: what a Sync does once
//     the GET has answered (it canonicalises the desired RRsets while the
//     GET is in flight);
//   - desired+live: the same, and also canonicalise the desired RRsets from
//     what a controller hands over (names relative to the zone): all the
//     package's work for one sync.
//
// Run it with: go test -run '^$' -bench IntegrationDiffCost -count 3 ./rrset
func BenchmarkIntegrationDiffCost(b *testing.B) {
	for _, srv := range pdnstest.Servers(b) {
		b.Run(srv.Name(), func(b *testing.B) {
			zone, specs, desired, served := largeZone(b, srv, 10000)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var get time.Duration
			for range 10 {
				if g := rawGet(ctx, b, srv, zone); get == 0 || g < get {
					get = g
				}
			}
			// diff returns an error rather than taking b: testing.B.Helper
			// in the timed loop would be timed too.
			diff := func(want *rrset.Set) error {
				live, err := liveSet(zone, served)
				if err != nil {
					return err
				}
				if plan := rrset.Diff(want, live, ""); !plan.Empty() {
					return fmt.Errorf("%d changes", len(plan.Changes))
				}
				return nil
			}
			report := func(b *testing.B) {
				b.Helper()
				perOp := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(get.Nanoseconds()), "get-ns")
				b.ReportMetric(100*float64(perOp)/float64(get), "canon-%-of-get")
			}
			b.Run("live", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := diff(desired); err != nil {
						b.Fatal(err)
					}
				}
				report(b)
			})
			b.Run("desired+live", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					want, err := desiredFrom(zone, specs)
					if err == nil {
						err = diff(want)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				report(b)
			})
		})
	}
}

// largeZone writes a synthetic zone of n RRsets to srv and returns the zone,
// the RRsets as a controller hands them over, the desired Set and the
// RRsets PowerDNS serves back.
func largeZone(tb testing.TB, srv *pdnstest.Server, n int) (string, []rrsetData, *rrset.Set, []powerdns.RRset) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	zone := srv.NewZone(tb)
	specs := syntheticZone(zone, n)
	desired, err := desiredFrom(zone, specs)
	require.NoError(tb, err)
	sets := make([]powerdns.RRset, 0, n)
	for rr := range desired.All() {
		sets = append(sets, toPowerDNS(rr))
	}
	require.NoError(tb, srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: sets}))
	z, err := srv.Client.Zones.Get(ctx, zone)
	require.NoError(tb, err)
	return zone, specs, desired, z.RRsets
}

// rawGet times GET /zones/{zone}: request sent to last byte read.
func rawGet(ctx context.Context, tb testing.TB, srv *pdnstest.Server, zone string) time.Duration {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/servers/localhost/zones/"+zone, nil)
	require.NoError(tb, err)
	req.Header.Set("X-API-Key", srv.APIKey)
	req.Header.Set("Accept", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(tb, err)
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(tb, err)
	d := time.Since(start)
	require.Equal(tb, http.StatusOK, resp.StatusCode)
	return d
}

// syntheticZone is a zone of n RRsets in the proportions of a real one:
// mostly A and AAAA, some CNAME, TXT and MX.
func syntheticZone(zone string, n int) []rrsetData {
	out := make([]rrsetData, n)
	for i := range out {
		name := fmt.Sprintf("host-%d", i)
		switch i % 10 {
		case 0, 1, 2, 3:
			out[i] = rrsetData{name: name, typ: "A", content: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), ttl: 300}
		case 4, 5:
			out[i] = rrsetData{name: name, typ: "AAAA", content: fmt.Sprintf("2001:db8::%x:%x", i>>16, i&0xffff), ttl: 300}
		case 6, 7:
			out[i] = rrsetData{name: name, typ: "CNAME", content: fmt.Sprintf("host-%d.%s", i-1, zone), ttl: 300}
		case 8:
			out[i] = rrsetData{name: name, typ: "TXT", content: fmt.Sprintf("v=spf1 ip4:10.0.%d.0/24 -all", i&255), ttl: 300}
		default:
			out[i] = rrsetData{name: name, typ: "MX", content: fmt.Sprintf("10 mx-%d.%s", i, zone), ttl: 300}
		}
	}
	return out
}

// desiredFrom canonicalises specs into the desired Set.
func desiredFrom(zone string, specs []rrsetData) (*rrset.Set, error) {
	s, err := rrset.NewSet(zone)
	if err != nil {
		return nil, err
	}
	s.Grow(len(specs))
	for _, sp := range specs {
		rr, err := rrset.New(zone, sp.name, sp.typ, sp.ttl, sp.content)
		if err != nil {
			return nil, err
		}
		if err := s.Add(rr); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func toPowerDNS(rr rrset.RRset) powerdns.RRset {
	records := make([]powerdns.Record, 0, len(rr.Records))
	for _, c := range rr.Records {
		records = append(records, powerdns.Record{Content: powerdns.String(c), Disabled: powerdns.Bool(false)})
	}
	return powerdns.RRset{
		Name:       powerdns.String(rr.Name),
		Type:       powerdns.RRTypePtr(powerdns.RRType(rr.Type)),
		TTL:        powerdns.Uint32(rr.TTL),
		ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
		Records:    records,
	}
}

func readZone(tb testing.TB, srv *pdnstest.Server, zone string) *rrset.Set {
	tb.Helper()
	z := srv.ReadZone(tb, zone)
	live, err := liveSet(zone, z.RRsets)
	require.NoError(tb, err)
	return live
}

// liveSet converts a zone as go-powerdns returns it, dropping disabled
// records as a reader of live data does.
func liveSet(zone string, sets []powerdns.RRset) (*rrset.Set, error) {
	live, err := rrset.NewSet(zone)
	if err != nil {
		return nil, err
	}
	live.Grow(len(sets))
	var contents []string // reused: NewLive copies what it keeps
	for _, s := range sets {
		contents = contents[:0]
		for _, r := range s.Records {
			if r.Content != nil && (r.Disabled == nil || !*r.Disabled) {
				contents = append(contents, *r.Content)
			}
		}
		if len(contents) == 0 {
			continue
		}
		rr, err := rrset.NewLive(zone, deref(s.Name), string(derefType(s.Type)), derefTTL(s.TTL), contents...)
		if err != nil {
			return nil, err
		}
		if err := live.Add(rr); err != nil {
			return nil, err
		}
	}
	return live, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefType(t *powerdns.RRType) powerdns.RRType {
	if t == nil {
		return ""
	}
	return *t
}

func derefTTL(t *uint32) uint32 {
	if t == nil {
		return 0
	}
	return *t
}

// atLeast compares dotted versions numerically: atLeast("5.1.4", "5.1.5")
// is false.
func atLeast(version, least string) bool {
	v, l := strings.Split(version, "."), strings.Split(least, ".")
	for i := range l {
		var a int
		if i < len(v) {
			a, _ = strconv.Atoi(v[i])
		}
		b, _ := strconv.Atoi(l[i])
		if a != b {
			return a > b
		}
	}
	return true
}
