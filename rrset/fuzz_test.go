package rrset_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/pdnskit/reconcile/rrset"
)

// Run each for a while with: go test ./rrset -run '^$' -fuzz FuzzX -fuzztime 30s
// A crasher is kept under testdata/fuzz and replayed by every go test.

var fuzzNames = []string{
	"", "@", ".", "api", "API.example.com", "api.example.com.", "notexample.com", "a..b", ".a", "a.", `a\.b`,
	`a\\b`, `\065`, `\256`, `a\`, "bücher", "BÜCHER", "a\u200db", "a。b", "*.x", "_443._tcp", "a b", "a\tb",
	strings.Repeat("a", 64), strings.Repeat("a.", 130), "xn--bcher-kva", "@.example.com.", `\@`, "ß",
	"api.example.com.example.com", "\xff", `\195\188`,
}

var fuzzZones = []string{"example.com", "Example.COM.", ".", "com", "bücher.example", `a\.b.example`, "a..b", ""}

func FuzzCanonicalName(f *testing.F) {
	for _, z := range fuzzZones {
		for _, n := range fuzzNames {
			f.Add(z, n)
		}
	}
	f.Fuzz(func(t *testing.T, zone, name string) {
		z, zerr := rrset.CanonicalZone(zone)
		c, err := rrset.CanonicalName(zone, name)
		if err != nil {
			var ne *rrset.NameError
			if !errors.As(err, &ne) || ne.Reason == "" || ne.Name != name || ne.Zone != zone {
				t.Fatalf("CanonicalName(%q, %q): error %#v is not a complete *NameError", zone, name, err)
			}
			if (zerr != nil) != (ne.Reason == rrset.ReasonInvalidZone) {
				t.Fatalf("CanonicalName(%q, %q): reason %s, zone error %v", zone, name, ne.Reason, zerr)
			}
			if _, err := rrset.RelativeName(zone, name); err == nil {
				t.Fatalf("RelativeName(%q, %q) accepts what CanonicalName refuses", zone, name)
			}
			return
		}
		if zerr != nil {
			t.Fatalf("CanonicalName(%q, %q) = %q with an invalid zone: %v", zone, name, c, zerr)
		}
		if again, err := rrset.CanonicalName(zone, c); err != nil || again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", name, c, again, err)
		}
		if other, err := rrset.CanonicalName(z, name); err != nil || other != c {
			t.Fatalf("zone spelling matters: %q in %q -> %q, in %q -> %q, %v", name, zone, c, z, other, err)
		}
		if c != strings.ToLower(c) && strings.ContainsAny(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Fatalf("%q is not lower case", c)
		}
		if !dns.IsFqdn(c) || (z != "." && c != z && !strings.HasSuffix(c, "."+z)) {
			t.Fatalf("%q is not an absolute name in %q", c, z)
		}
		if _, ok := dns.IsDomainName(c); !ok {
			t.Fatalf("miekg/dns does not read %q as a name", c)
		}
		buf := make([]byte, 512)
		if n, err := dns.PackDomainName(c, buf, 0, nil, false); err != nil || n > 255 {
			t.Fatalf("miekg/dns packs %q into %d octets: %v", c, n, err)
		}
		r, err := rrset.RelativeName(zone, name)
		if err != nil {
			t.Fatalf("RelativeName(%q, %q): %v", zone, name, err)
		}
		if back, err := rrset.CanonicalName(zone, r); err != nil || back != c {
			t.Fatalf("no round trip: %q -> relative %q -> %q, want %q, %v", name, r, back, c, err)
		}
		if again, err := rrset.RelativeName(zone, r); err != nil || again != r {
			t.Fatalf("RelativeName not idempotent: %q -> %q -> %q, %v", name, r, again, err)
		}
	})
}

var fuzzContents = []struct{ typ, content string }{
	{"A", "192.0.2.1"}, {"A", "192.0.2.01"}, {"A", "::1"},
	{"AAAA", "2001:DB8::0:1"}, {"AAAA", "::ffff:192.0.2.1"}, {"AAAA", "::192.0.2.1"}, {"AAAA", "fe80::1%eth0"},
	{"CNAME", "Target.Example.NET"}, {"CNAME", "@"}, {"CNAME", "."}, {"CNAME", `a\.b`}, {"CNAME", "bücher"},
	{"ALIAS", "lb.example.net"}, {"DNAME", "x."}, {"NS", "ns1"}, {"PTR", "h.example.net."},
	{"MX", "10 mail"}, {"MX", "0 ."}, {"MX", "010  mail.example.com."}, {"MX", "65536 x."},
	{"SRV", "10 5 443 t"}, {"SRV", "0 0 0 ."},
	{"TXT", "v=spf1 -all"}, {"TXT", `"a" "b"`}, {"TXT", `"a""b"`}, {"TXT", `"x\065y"`}, {"TXT", `"say \"hi\""`},
	{"TXT", "héllo"}, {"TXT", `""`}, {"TXT", `"abc`}, {"TXT", strings.Repeat("x", 300)}, {"TXT", `"a" b;c`},
	{"SPF", "v=spf1 -all"},
	{"CAA", `0 issue "letsencrypt.org"`}, {"CAA", "0 ISSUE letsencrypt.org"}, {"CAA", `128 iodef "mailto:a@b"`}, {"CAA", `0 issue "a" "b"`},
	{"TLSA", "3 1 1 ABCDEF01"}, {"TLSA", "3 1 1 abc"}, {"SMIMEA", "3 0 1 00ff"},
	{"SSHFP", "4 2 " + sha256}, {"DS", "12345 13 2 AB CD"}, {"CDS", "1 2 3 00"},
	{"CDNSKEY", "257 3 13 " + key}, {"DNSKEY", "257 3 13 " + key},
	{"NAPTR", `100 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .`}, {"NAPTR", `1 2 S SIP+D2U "" _sip._udp`},
	{"HTTPS", "1 . alpn=h2,h3 port=443"}, {"HTTPS", "0 pool"}, {"HTTPS", `1 . ech="` + ech + `"`},
	{"HTTPS", "1 . mandatory=alpn alpn=h2 no-default-alpn"}, {"HTTPS", "4 . ipv6hint=::ffff:192.0.2.9"},
	{"SVCB", "1 dns alpn=dot port=853 ipv4hint=192.0.2.1"}, {"SVCB", "1 . key65000=x"},
	{"SOA", "ns1 hostmaster 1 2 3 4 5"}, {"URI", `10 1 "https://x/"`}, {"URI", "10 1 ftp://x/"},
	{"HINFO", `"PC" Linux`}, {"RP", "admin txt"},
	{"AFSDB", "1 afsdb"}, {"KX", "10 KX.example.net"}, {"LP", "10 l64"}, {"MINFO", "owner errors"},
	{"CERT", "PKIX 1 8 " + key}, {"OPENPGPKEY", key}, {"DHCID", key}, {"RKEY", "0 3 5 " + key},
	{"ZONEMD", "1 1 1 ABCD"}, {"IPSECKEY", "10 0 2 . " + key}, {"IPSECKEY", "10 2 2 ::ffff:c000:201 " + key},
	{"EUI48", "00-00-5E-00-53-2A"}, {"EUI64", "0-0-5e-ef-10-0-0-2a"},
	{"NID", "10 14:4fff:ff20:ee64"}, {"L64", "10 2001:db8:1140:1000"}, {"L32", "10 10.1.2.3"},
	{"APL", "1:192.0.2.0/24 !2:2001:DB8::/32"}, {"CSYNC", "66 3 aaaa a NS"},
	{"LUA", `a  "ifportup(443, {'192.0.2.1'})"`},
	{"LOC", "51 56 0.123 N 5 54 0 E 4m 1m 10000 10"}, {"LOC", "0 S 0 W -100000"},
}

func FuzzNew(f *testing.F) {
	types := rrset.SupportedTypes()
	index := map[string]int{}
	for i, typ := range types {
		index[typ] = i
	}
	for _, c := range fuzzContents {
		f.Add(uint8(index[c.typ]), c.content)
	}
	f.Fuzz(func(t *testing.T, i uint8, content string) {
		typ := types[int(i)%len(types)]
		name := "www"
		if typ == "SOA" || typ == "DNSKEY" {
			name = "@"
		}
		rr, err := rrset.New(zone, name, typ, 300, content)
		live, liveErr := rrset.NewLive(zone, name, typ, 300, content)
		if err != nil {
			var re *rrset.RecordError
			if !errors.As(err, &re) || re.Reason == "" || re.Content != content || re.Type != typ {
				t.Fatalf("New(%s %q): error %#v is not a complete *RecordError", typ, content, err)
			}
			if liveErr != nil && re.Reason != rrset.ReasonEmptyContent {
				t.Fatalf("NewLive(%s %q) refuses a content: %v", typ, content, liveErr)
			}
			return
		}
		if liveErr != nil || !live.Equal(rr) {
			t.Fatalf("NewLive(%s %q) = %q, %v; New = %q", typ, content, live.Records, liveErr, rr.Records)
		}
		again, err := rrset.New(zone, rr.Name, rr.Type, rr.TTL, rr.Records...)
		if err != nil || !again.Equal(rr) {
			t.Fatalf("not idempotent: %s %q -> %q -> %q, %v", typ, content, rr.Records, again.Records, err)
		}
		for _, c := range rr.Records {
			checkMiekg(t, name, typ, c)
		}
	})
}

// checkMiekg is assertMiekgAgrees for fuzzing: miekg/dns must read every
// canonical content, and New must read miekg/dns's printing of it back to
// the same content.
func checkMiekg(t *testing.T, name, typ, content string) {
	t.Helper()
	switch {
	case typ == "ALIAS" || typ == "LUA":
		return // PowerDNS's own types
	case typ == "IPSECKEY" && (strings.Fields(content)[1] == "0" || strings.Contains(content, "::ffff:")):
		// miekg/dns wants a "." for no gateway, which PowerDNS refuses,
		// and refuses IPv4-mapped gateways in the dotted form PowerDNS
		// prints.
		return
	case typ == "HTTPS" || typ == "SVCB":
		if strings.Contains(content, "ipv6hint=::") {
			return // miekg/dns refuses the dotted forms PowerDNS prints
		}
	case (typ == "CAA" || typ == "URI") && len(content) > 255:
		// miekg/dns reads a CAA value or a URI target as one
		// character-string, at most 255 octets; both are the rest of the
		// RDATA (RFC 8659, RFC 7553), and PowerDNS stores longer ones.
		return
	}
	rr, err := dns.NewRR(". 300 IN " + typ + " " + content)
	if err != nil || rr == nil {
		t.Fatalf("miekg/dns refuses %s %q: %v", typ, content, err)
	}
	_, theirs, _ := strings.Cut(rr.String(), "\t"+typ+"\t")
	back, err := rrset.New(zone, name, typ, 300, theirs)
	if err != nil || len(back.Records) != 1 || back.Records[0] != content {
		t.Fatalf("%s %q: miekg/dns prints %q, New reads %q, %v", typ, content, theirs, back.Records, err)
	}
}

// FuzzNewLive feeds live data of any type: NewLive never refuses a content,
// and what it returns it returns unchanged the second time.
func FuzzNewLive(f *testing.F) {
	for _, c := range fuzzContents {
		f.Add(c.typ, c.content, c.content)
	}
	f.Add("LOC", "52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000.00m 10.00m", "x")
	f.Add("type65280", `\# 1 ab`, `\# 1 ab`)
	f.Fuzz(func(t *testing.T, typ, c1, c2 string) {
		rr, err := rrset.NewLive(zone, "www", typ, 300, c1, c2)
		if err != nil {
			var re *rrset.RecordError
			if !errors.As(err, &re) || (re.Reason != rrset.ReasonUnknownType && re.Reason != rrset.ReasonEmptyContent) {
				t.Fatalf("NewLive(%q, %q, %q): %v", typ, c1, c2, err)
			}
			return
		}
		again, err := rrset.NewLive(zone, rr.Name, rr.Type, rr.TTL, rr.Records...)
		if err != nil || !again.Equal(rr) {
			t.Fatalf("not idempotent: %q %q %q -> %q -> %q, %v", typ, c1, c2, rr.Records, again.Records, err)
		}
		for i := 1; i < len(rr.Records); i++ {
			if rr.Records[i-1] >= rr.Records[i] {
				t.Fatalf("records not sorted and unique: %q", rr.Records)
			}
		}
	})
}
