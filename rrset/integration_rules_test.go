package rrset_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Each rule by which New refuses valid DNS data, or accepts data some
// other library would refuse, is held here to what every PowerDNS of the
// matrix does with that data.

// writeRaw writes rr as it is, one PATCH, and returns PowerDNS's refusal.
func writeRaw(ctx context.Context, srv *pdnstest.Server, zone string, rr rrset.RRset) error {
	return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{toPowerDNS(rr)}})
}

// readRaw reads one RRset back as PowerDNS prints it; ok is false when
// there is none.
func readRaw(ctx context.Context, t *testing.T, srv *pdnstest.Server, zone string, key rrset.Key) (typ string, contents []string, ok bool) {
	t.Helper()
	sets, err := srv.Client.Records.Get(ctx, zone, key.Name, nil)
	require.NoError(t, err)
	for _, s := range sets {
		if !strings.EqualFold(string(derefType(s.Type)), key.Type) {
			continue
		}
		for _, r := range s.Records {
			contents = append(contents, deref(r.Content))
		}
		return string(derefType(s.Type)), contents, true
	}
	return "", nil, false
}

// keptAll writes rrs in one PATCH and reports, per key, whether PowerDNS
// prints it back unchanged. A refused PATCH is retried RRset by RRset, so
// that the refusal names its RRset.
func keptAll(ctx context.Context, t *testing.T, srv *pdnstest.Server, zone string, rrs []rrset.RRset) map[rrset.Key]string {
	t.Helper()
	sets := make([]powerdns.RRset, 0, len(rrs))
	for _, rr := range rrs {
		sets = append(sets, toPowerDNS(rr))
	}
	out := make(map[rrset.Key]string, len(rrs))
	if err := srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: sets}); err != nil {
		for _, rr := range rrs {
			if ok, why := kept(ctx, t, srv, zone, rr); !ok {
				out[rr.Key()] = why
			}
		}
		return out
	}
	z, err := srv.Client.Zones.Get(ctx, zone)
	require.NoError(t, err)
	got := make(map[rrset.Key][]string)
	for _, s := range z.RRsets {
		k := rrset.Key{Name: deref(s.Name), Type: string(derefType(s.Type))}
		for _, r := range s.Records {
			got[k] = append(got[k], deref(r.Content))
		}
	}
	for _, rr := range rrs {
		if g := got[rr.Key()]; strings.Join(g, "\n") != strings.Join(rr.Records, "\n") {
			out[rr.Key()] = fmt.Sprintf("read back as %q", g)
		}
	}
	return out
}

// kept writes rr and reports whether PowerDNS stored it and prints it back
// unchanged, with why not.
func kept(ctx context.Context, t *testing.T, srv *pdnstest.Server, zone string, rr rrset.RRset) (bool, string) {
	t.Helper()
	if err := writeRaw(ctx, srv, zone, rr); err != nil {
		return false, "refused: " + err.Error()
	}
	typ, got, ok := readRaw(ctx, t, srv, zone, rr.Key())
	if !ok {
		return false, "not read back"
	}
	if typ != rr.Type || strings.Join(got, "\n") != strings.Join(rr.Records, "\n") {
		return false, fmt.Sprintf("read back as %s %q", typ, got)
	}
	return true, ""
}

// TestIntegrationNamesInContents writes a CNAME target holding each octet
// from 0 to 255 in its first label, in canonical form. What New accepts,
// every version stores unchanged; what it refuses, 5.1 refuses or alters
// (4.x store everything).
func TestIntegrationNamesInContents(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)
		var accepted []rrset.RRset
		var refusedByNew []string
		for b := 0; b < 256; b++ {
			target := fmt.Sprintf(`a\%03db.example.net.`, b)
			want, err := rrset.NewLive(zone, fmt.Sprintf("octet-%d", b), "CNAME", 300, target)
			require.NoError(t, err)
			_, err = rrset.New(zone, want.Name, want.Type, want.TTL, want.Records...)
			if err == nil {
				accepted = append(accepted, want)
				continue
			}
			var re *rrset.RecordError
			require.ErrorAs(t, err, &re)
			require.Equal(t, rrset.ReasonUnsupported, re.Reason, "%v", err)
			refusedByNew = append(refusedByNew, want.Records[0])
			if ok, _ := kept(ctx, t, srv, zone, want); srv.AtLeast(5, 1) {
				assert.False(t, ok, "New refuses %q, which PowerDNS %s keeps", want.Records[0], srv.Version)
			}
		}
		for k, why := range keptAll(ctx, t, srv, zone, accepted) {
			t.Errorf("New accepts %s, PowerDNS %s %s", k, srv.Version, why)
		}
		t.Logf("New refuses %q", refusedByNew)
		assert.Len(t, refusedByNew, 7, "a blank, '\"', '(', ')', '.', ';' and '\\'")

		// Names with '@' (an SOA or RP mailbox) are kept everywhere.
		rr := pdnstest.MustRRset(t, zone, "@", "SOA", 3600, "ns1.example.net. testmaster@example.net. 1 10800 3600 604800 3600")
		require.NoError(t, writeRaw(ctx, srv, zone, rr))
		_, got, ok := readRaw(ctx, t, srv, zone, rr.Key())
		require.True(t, ok)
		require.Len(t, got, 1)
		assert.Equal(t, "testmaster@example.net.", strings.Fields(got[0])[1], "the mailbox is stored as written")
	})
}

// TestIntegrationGenericTypes writes RFC 3597 data, "\# 2 4142", as every
// type from 0 to 300 and a sample above: New accepts exactly the types
// every version stores it for and prints back as written (TYPEnnn), and
// "\# 0" where CheckVersion says the server takes it.
func TestIntegrationGenericTypes(t *testing.T) {
	types := make([]int, 0, 320)
	for n := 0; n <= 300; n++ {
		types = append(types, n)
	}
	types = append(types, 32768, 32769, 65280, 65399, 65400, 65401, 65402, 65403, 65420, 65534, 65535)
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)
		// The types 5.1 names (and parses), which 4.x stores as TYPEnnn:
		// New refuses them, since no spelling reads back equal from both.
		namedBy51 := map[int]bool{67: true, 68: true, 261: true, 262: true}
		var accepted []rrset.RRset
		for _, n := range types {
			typ := fmt.Sprintf("TYPE%d", n)
			name := fmt.Sprintf("g%d.%s", n, zone)
			_, err := rrset.New(zone, name, typ, 300, `\# 2 4142`)
			raw := rrset.RRset{Name: name, Type: typ, TTL: 300, Records: []string{`\# 2 4142`}}
			if err == nil {
				accepted = append(accepted, raw)
				continue
			}
			ok, why := kept(ctx, t, srv, zone, raw)
			if namedBy51[n] {
				assert.Equal(t, !srv.AtLeast(5, 1), ok, "%s on PowerDNS %s: %s", typ, srv.Version, why)
			} else {
				assert.False(t, ok, "New refuses %s (%v), which PowerDNS %s keeps", typ, err, srv.Version)
			}
		}
		for k, why := range keptAll(ctx, t, srv, zone, accepted) {
			t.Errorf("New accepts %s, PowerDNS %s %s", k, srv.Version, why)
		}
		t.Logf("PowerDNS %s: New accepts RFC 3597 data for %d of %d types", srv.Version, len(accepted), len(types))

		empty := pdnstest.MustRRset(t, zone, "empty", "TYPE65420", 300, `\# 0`)
		ok, why := kept(ctx, t, srv, zone, empty)
		err := rrset.CheckVersion(empty, srv.Version)
		var ve *rrset.VersionError
		if ok {
			assert.NoError(t, err, "PowerDNS %s keeps %q", srv.Version, empty.Records)
		} else {
			assert.True(t, errors.As(err, &ve), "PowerDNS %s %s, CheckVersion says %v", srv.Version, why, err)
		}
		t.Logf("PowerDNS %s, %q: kept %t %s; CheckVersion: %v", srv.Version, empty.Records, ok, why, err)
	})
}

// TestIntegrationTXTSize writes TXT RRsets at the size New allows and one
// octet over, and asks the server for them over TCP with EDNS: what New
// accepts is served whole, what it refuses is not served at all.
func TestIntegrationTXTSize(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)
		for _, owner := range []string{"t", strings.Repeat("l", 60)} {
			name := owner + "." + zone
			limit := maxStorableTXT(name)
			wireLimit := maxTXTData(name)
			// Two records: the second as long as fits beside the first,
			// then as short as does not.
			first := txtData(30000)
			second := 0
			for twoRecords(name, 30000, second+1) <= 65508 {
				second++
			}
			// The SQL backends' content columns refuse the longest text:
			// PostgreSQL's VARCHAR(65535), gmysql's VARCHAR(64000).
			sqlText := srv.Backend == pdnstest.GPGSQL || srv.Backend == pdnstest.GMySQL
			cases := []struct {
				name     string
				contents []string
				fits     bool
				// stored: the server keeps it; served: it answers it over
				// TCP (checked only where it is stored).
				stored, served bool
			}{
				{"one record at the limit", []string{txtData(limit)}, true, true, true},
				// PostgreSQL's VARCHAR(65535) refuses the canonical text;
				// the other backends keep it, and serve it.
				{"one record one octet over what PostgreSQL stores", []string{txtData(limit + 1)}, false, !sqlText, true},
				// No DNS response carries it: stored where the text fits,
				// never served.
				{"one record one octet over what a DNS response carries", []string{txtData(wireLimit + 1)}, false, !sqlText, false},
				{"two records at the limit", []string{first, strings.Repeat("u", second)}, true, true, true},
				{"two records over", []string{first, strings.Repeat("u", second+1)}, false, true, false},
			}
			for _, c := range cases {
				t.Run(fmt.Sprintf("owner of %d octets, %s", len(name)+1, c.name), func(t *testing.T) {
					stored := c.stored
					if srv.Backend == pdnstest.GMySQL {
						// gmysql's records.content holds fewer octets than
						// New accepts: a raw write of more is refused there
						// (the Reconciler refuses it before sending, as a
						// *reconcile.StorageError).
						for _, text := range c.contents {
							if len(txtQuoted(len(text))) > gmysqlContentMax {
								stored = false
							}
						}
					}
					rr, err := rrset.New(zone, name, "TXT", 300, c.contents...)
					if c.fits {
						require.NoError(t, err)
					} else {
						var re *rrset.RecordError
						require.ErrorAs(t, err, &re)
						assert.Equal(t, rrset.ReasonTooLarge, re.Reason)
						rr, err = rrset.NewLive(zone, name, "TXT", 300, c.contents...)
						require.NoError(t, err)
					}
					err = writeRaw(ctx, srv, zone, rr)
					if !stored {
						assert.Error(t, err, "PowerDNS %s (%s) stored an RRset New refuses as too large", srv.Version, srv.Backend)
						return
					}
					require.NoError(t, err, "PowerDNS %s stores it", srv.Version)
					m := new(dns.Msg).SetQuestion(name, dns.TypeTXT)
					m.SetEdns0(dns.MaxMsgSize, false)
					answer, _, err := (&dns.Client{Net: "tcp", Timeout: 10 * time.Second}).ExchangeContext(ctx, m, srv.DNSAddr)
					if c.served {
						require.NoError(t, err, "served over TCP")
						assert.Len(t, answer.Answer, len(rr.Records))
					} else {
						assert.Error(t, err, "PowerDNS %s served an RRset New refuses as too large", srv.Version)
					}
				})
			}
		}
	})
}

// TestIntegrationSOA writes an SOA whose mailbox holds '@' into zones with
// each SOA-EDIT-API setting and reads it back: the mailbox is kept
// everywhere, the serial is rewritten exactly where SOASerialRewritten
// says, and EqualIgnoringSerial holds between what was written and what is
// read.
func TestIntegrationSOA(t *testing.T) {
	settings := []struct{ api, edit string }{
		{"DEFAULT", ""}, {"INCREASE", ""}, {"EPOCH", ""}, {"SOA-EDIT-INCREASE", ""},
		{"SOA-EDIT", "EPOCH"}, {"SOA-EDIT", "NONE"}, {"OFF", ""}, {"", ""},
	}
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for i, s := range settings {
			t.Run(fmt.Sprintf("soa_edit_api %q soa_edit %q", s.api, s.edit), func(t *testing.T) {
				zone := fmt.Sprintf("soa%d-%d.pdnstest.example.", i, time.Now().UnixNano())
				z := powerdns.Zone{Name: powerdns.String(zone), Kind: powerdns.ZoneKindPtr(powerdns.NativeZoneKind),
					SOAEditAPI: powerdns.String(s.api), SOAEdit: powerdns.String(s.edit), Nameservers: []string{"ns1.pdnstest.invalid."}}
				_, err := srv.Client.Zones.Add(ctx, &z)
				require.NoError(t, err)
				if srv.Backend != pdnstest.LMDB {
					t.Cleanup(func() { _ = srv.Client.Zones.Delete(context.Background(), zone) })
				}
				want := pdnstest.MustRRset(t, zone, "@", "SOA", 3600, "ns1.example.net. testmaster@example.net. 5 10800 3600 604800 3600")
				require.NoError(t, writeRaw(ctx, srv, zone, want))
				live, err := srv.Client.Zones.Get(ctx, zone)
				require.NoError(t, err)
				api, edit := deref(live.SOAEditAPI), deref(live.SOAEdit)
				set, err := liveSet(zone, live.RRsets)
				require.NoError(t, err)
				got, ok := set.Get(want.Key())
				require.True(t, ok)
				rewritten := !got.EqualData(want)
				t.Logf("PowerDNS %s soa_edit_api %q soa_edit %q: wrote %q, read %q", srv.Version, api, edit, want.Records, got.Records)
				assert.Equal(t, rrset.SOASerialRewritten(api, edit), rewritten, "serial rewritten")
				assert.True(t, rrset.EqualIgnoringSerial(want, got), "equal but for the serial")
				again, err := rrset.New(zone, got.Name, got.Type, got.TTL, got.Records...)
				require.NoError(t, err, "what PowerDNS prints is desired data")
				assert.True(t, again.EqualData(got))
			})
		}
	})
}

// TestIntegrationZoneNames creates zones with each kind of name through the
// API: CanonicalZone accepts a name exactly when PowerDNS creates the zone,
// and pdnsapi.ZoneID addresses every zone created.
func TestIntegrationZoneNames(t *testing.T) {
	names := []string{
		"0/26.2.0.192.in-addr.arpa.", "_x.pdnstest.example.", "a-b.pdnstest.example.",
		"a%2fb.pdnstest.example.", "a?b.pdnstest.example.", "a#b.pdnstest.example.", "a=2F.pdnstest.example.",
		`a\.b.pdnstest.example.`, "*.w.pdnstest.example.", `a\195b.pdnstest.example.`, "a@b.pdnstest.example.",
	}
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c, err := pdnsapi.New(srv.URL, srv.APIKey, "", nil)
		require.NoError(t, err)
		for i, base := range names {
			// A fresh name per server, for LMDB keeps what it deletes.
			name := fmt.Sprintf("r%d-%d.%s", i, time.Now().UnixNano(), base)
			if strings.HasPrefix(base, "0/26") {
				name = fmt.Sprintf("0/26.%d.%d.10.in-addr.arpa.", i, time.Now().UnixNano()%250)
			}
			_, canonErr := rrset.CanonicalZone(name)
			err := c.CreateZone(ctx, powerdns.Zone{Name: powerdns.String(name), Kind: powerdns.ZoneKindPtr(powerdns.NativeZoneKind),
				Nameservers: []string{"ns1.pdnstest.invalid."}})
			t.Logf("PowerDNS %s, zone %q: CanonicalZone %v; created: %v", srv.Version, name, canonErr, err)
			if canonErr != nil {
				var ne *rrset.NameError
				require.ErrorAs(t, canonErr, &ne)
				assert.Equal(t, rrset.ReasonUnsupported, ne.Reason)
				assert.Error(t, err, "PowerDNS %s creates zone %q, which CanonicalZone refuses", srv.Version, name)
				continue
			}
			require.NoError(t, err, "CanonicalZone accepts %q, PowerDNS %s refuses it", name, srv.Version)
			z, err := c.GetZone(ctx, name, pdnsapi.ZoneQuery{NoRRsets: true})
			require.NoError(t, err)
			assert.Equal(t, name, z.Name)
			require.NoError(t, c.DeleteZone(ctx, name))
		}
	})
}

// twoRecords is the wire size of a TXT RRset at owner holding two strings
// of n1 and n2 octets, as checked against 65,508: owner name, and per
// record 12 octets of header and its data, each 255 octets of text taking
// one length octet more.
func twoRecords(owner string, n1, n2 int) int {
	data := func(n int) int { return n + (n+254)/255 }
	return len(owner) + 1 + 12 + data(n1) + 12 + data(n2)
}

// TestIntegrationEmptyTXT writes a TXT of empty content as New reads it,
// one empty character-string (`""`), and as a client without the library
// sends it, raw. New's form is stored and served as one empty string by
// every version. The raw form is stored by 4.x (printed back as it was,
// or as `""` by LMDB) and served the same, and refused by 5.1; whatever a
// server prints, NewLive reads it as New's form.
func TestIntegrationEmptyTXT(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		zone := srv.NewZone(t)

		want, err := rrset.New(zone, "empty", "TXT", 300, "")
		require.NoError(t, err)
		assert.Equal(t, []string{`""`}, want.Records)
		require.NoError(t, writeRaw(ctx, srv, zone, want), "PowerDNS %s stores New's form", srv.Version)
		_, got, ok := readRaw(ctx, t, srv, zone, want.Key())
		require.True(t, ok)
		assert.Equal(t, want.Records, got, "printed back unchanged")
		assert.Equal(t, [][]string{{""}}, servedTXT(ctx, t, srv, want.Name), "served as one empty string")

		raw := rrset.RRset{Name: "raw." + zone, Type: "TXT", TTL: 300, Records: []string{""}}
		err = writeRaw(ctx, srv, zone, raw)
		if srv.AtLeast(5, 1) {
			require.Error(t, err, "PowerDNS %s refuses an empty TXT content", srv.Version)
			assert.Contains(t, err.Error(), `parsed as '""'`)
			return
		}
		require.NoError(t, err, "PowerDNS %s stores an empty TXT content", srv.Version)
		_, got, ok = readRaw(ctx, t, srv, zone, raw.Key())
		require.True(t, ok)
		live, err := rrset.NewLive(zone, raw.Name, raw.Type, raw.TTL, got...)
		require.NoError(t, err, "read back as %q", got)
		assert.True(t, live.EqualData(rrset.RRset{Name: raw.Name, Type: "TXT", TTL: 300, Records: want.Records}),
			"read back as %q, live %q", got, live.Records)
		assert.Equal(t, [][]string{{""}}, servedTXT(ctx, t, srv, raw.Name), "served as one empty string")
	})
}

// servedTXT asks the server's DNS port for the TXT records at name and
// returns each record's strings.
func servedTXT(ctx context.Context, t *testing.T, srv *pdnstest.Server, name string) [][]string {
	t.Helper()
	m := new(dns.Msg).SetQuestion(name, dns.TypeTXT)
	answer, _, err := (&dns.Client{Timeout: 10 * time.Second}).ExchangeContext(ctx, m, srv.DNSAddr)
	require.NoError(t, err)
	var out [][]string
	for _, rr := range answer.Answer {
		if txt, ok := rr.(*dns.TXT); ok {
			out = append(out, txt.Txt)
		}
	}
	return out
}
