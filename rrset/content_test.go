package rrset_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

const zone = "example.com."

var (
	ech     = "AEX+DQBBAQAgACBsDfj36D0SDOEuwDhohBHNKzONoH6dwiyXt1d8FCzT2wAEAAEAAQASY2xvdWRmbGFyZS1lY2guY29tAAA="
	key     = "mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="
	sha256  = "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
	long300 = strings.Repeat("x", 300)
)

// TestNewContents gives, per type, contents in every spelling the package
// accepts and the one canonical form each must take: the form PowerDNS
// stores and prints back.
func TestNewContents(t *testing.T) {
	tests := []struct {
		name, typ string
		in        []string
		want      []string
	}{
		{"A", "A", []string{"192.0.2.1", " 192.0.2.1 ", "192.0.2.2"}, []string{"192.0.2.1", "192.0.2.2"}},
		{"A bounds", "A", []string{"0.0.0.0", "255.255.255.255", "10.0.0.10"}, []string{"0.0.0.0", "10.0.0.10", "255.255.255.255"}},
		{"AAAA compressed lower case", "AAAA", []string{"2001:DB8:0:0:1:0:0:1", "2001:db8::0:1", "2001:0db8:0000::0001"}, []string{"2001:db8::1", "2001:db8::1:0:0:1"}},
		{"AAAA unspecified and loopback", "AAAA", []string{"::", "0:0:0:0:0:0:0:1"}, []string{"::", "::1"}},
		{"AAAA single zero group not compressed", "AAAA", []string{"2001:db8:0:1:1:1:1:1"}, []string{"2001:db8:0:1:1:1:1:1"}},
		{"AAAA first longest run", "AAAA", []string{"2001:0:0:1:0:0:0:1"}, []string{"2001:0:0:1::1"}},
		{"AAAA IPv4-mapped in hexadecimal", "AAAA", []string{"::ffff:192.0.2.1", "::FFFF:C000:0201"}, []string{"::ffff:c000:201"}},
		{"AAAA IPv4-mapped zero", "AAAA", []string{"::ffff:0.0.0.0"}, []string{"::ffff:0:0"}},
		{"AAAA IPv4-compatible in hexadecimal", "AAAA", []string{"::192.0.2.1"}, []string{"::c000:201"}},
		{"CNAME absolute lower case", "CNAME", []string{"Target.Example.NET"}, []string{"target.example.net."}},
		{"CNAME with dot", "CNAME", []string{"target.example.net."}, []string{"target.example.net."}},
		{"CNAME to the apex", "CNAME", []string{"@"}, []string{"example.com."}},
		{"CNAME idn", "CNAME", []string{"bücher.example"}, []string{"xn--bcher-kva.example."}},
		{"CNAME wildcard", "CNAME", []string{"*.example.net"}, []string{"*.example.net."}},
		{"CNAME root", "CNAME", []string{"."}, []string{"."}},
		{"ALIAS", "alias", []string{"lb.example.net"}, []string{"lb.example.net."}},
		{"DNAME", "DNAME", []string{"other.example.net"}, []string{"other.example.net."}},
		{"NS", "NS", []string{"NS1.example.net", "ns1.example.net."}, []string{"ns1.example.net."}},
		{"PTR", "PTR", []string{"host.example.net"}, []string{"host.example.net."}},
		{"MX", "MX", []string{"10 Mail.Example.net", "010  mail.example.net.", "0 ."}, []string{"0 .", "10 mail.example.net."}},
		{"MX to the apex", "MX", []string{"10 @"}, []string{"10 example.com."}},
		{"SRV", "SRV", []string{"10 5 443 Target.example.net", "0\t0\t0\t."}, []string{"0 0 0 .", "10 5 443 target.example.net."}},
		{"TXT raw", "TXT", []string{"v=spf1 include:_spf.example.net ~all"}, []string{`"v=spf1 include:_spf.example.net ~all"`}},
		{"TXT quoted", "TXT", []string{`"v=spf1 -all"`, `  "v=spf1 -all"  `}, []string{`"v=spf1 -all"`}},
		{"TXT raw and quoted equal", "TXT", []string{"hello", `"hello"`, `hello`}, []string{`"hello"`}},
		{"TXT several strings", "TXT", []string{`"a"  "b"`, `"a" "b"`, `"a""b"`, "\"a\"\t\"b\""}, []string{`"a" "b"`}},
		{"TXT bare words", "TXT", []string{`"a" b c`}, []string{`"a" "b" "c"`}},
		{"TXT escapes of printable octets decoded", "TXT", []string{`"x\065y"`, `"x\Ay"`}, []string{`"xAy"`}},
		{"TXT control and high octets escaped", "TXT", []string{"\"tab\tnl\\010del\\127\""}, []string{`"tab\009nl\010del\127"`}},
		{"TXT utf-8 escaped", "TXT", []string{"héllo", `"h\195\169llo"`}, []string{`"h\195\169llo"`}},
		{"TXT zone-file specials quoted", "TXT", []string{`"semi;colon (paren)"`, "semi;colon (paren)"}, []string{`"semi;colon (paren)"`}},
		{"TXT empty string", "TXT", []string{`""`}, []string{`""`}},
		{"TXT empty content is the empty string", "TXT", []string{"", " ", `""`, "\t"}, []string{`""`}},
		{"SPF empty content is the empty string", "SPF", []string{""}, []string{`""`}},
		{"TXT empty beside text", "TXT", []string{"", "v=spf1 -all"}, []string{`""`, `"v=spf1 -all"`}},
		{"TXT long string split", "TXT", []string{long300, `"` + long300[:255] + `" "` + long300[255:] + `"`}, []string{`"` + long300[:255] + `" "` + long300[255:] + `"`}},
		{"TXT split keeps boundaries", "TXT", []string{`"` + long300[:200] + `" "` + long300[200:] + `"`}, []string{`"` + long300[:200] + `" "` + long300[200:] + `"`}},
		{"TXT exactly 255", "TXT", []string{long300[:255]}, []string{`"` + long300[:255] + `"`}},
		{"SPF", "spf", []string{"v=spf1 -all"}, []string{`"v=spf1 -all"`}},
		{"CAA", "CAA", []string{`0 issue "letsencrypt.org"`, "0 ISSUE letsencrypt.org", `0 issue "letsencrypt" ".org"`}, []string{`0 issue "letsencrypt.org"`}},
		{"CAA raw value with spaces", "CAA", []string{"0 issue ca.example.net; account=42"}, []string{`0 issue "ca.example.net; account=42"`}},
		{"CAA critical flag and empty value", "CAA", []string{`128 issuewild ""`, `0 iodef "mailto:security@example.net"`}, []string{`0 iodef "mailto:security@example.net"`, `128 issuewild ""`}},
		{"CAA long value not split", "CAA", []string{"0 issue " + long300}, []string{`0 issue "` + long300 + `"`}},
		{"TLSA", "TLSA", []string{"3 1 1 " + strings.ToUpper(sha256), "3 1 1 " + sha256[:32] + " " + sha256[32:]}, []string{"3 1 1 " + sha256}},
		{"SMIMEA", "SMIMEA", []string{"3 0 1 " + sha256}, []string{"3 0 1 " + sha256}},
		{"SSHFP", "SSHFP", []string{"4 2 " + strings.ToUpper(sha256)}, []string{"4 2 " + sha256}},
		{"DS", "DS", []string{"12345 13 2 " + sha256[:32] + " " + strings.ToUpper(sha256[32:])}, []string{"12345 13 2 " + sha256}},
		{"CDS", "CDS", []string{"012345 013 002 " + sha256}, []string{"12345 13 2 " + sha256}},
		{"CDNSKEY", "CDNSKEY", []string{"257 3 13 " + key[:40] + " " + key[40:]}, []string{"257 3 13 " + key}},
		{"NAPTR", "NAPTR", []string{`100 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .`}, []string{`100 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .`}},
		{"NAPTR bare words", "NAPTR", []string{`100 20 S SIP+D2U "" _sip._udp.Example.net`}, []string{`100 20 "S" "SIP+D2U" "" _sip._udp.example.net.`}},
		{"HTTPS key order", "HTTPS", []string{"1 . port=443 alpn=h3,h2 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:DB8::1"}, []string{"1 . alpn=h3,h2 port=443 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1"}},
		{"HTTPS quoted values", "HTTPS", []string{`1 . alpn="h2,h3" port="443"`}, []string{"1 . alpn=h2,h3 port=443"}},
		{"HTTPS mandatory", "HTTPS", []string{"2 svc.example.net mandatory=port,alpn alpn=h2 port=8443 no-default-alpn"}, []string{"2 svc.example.net. mandatory=alpn,port alpn=h2 no-default-alpn port=8443"}},
		{"HTTPS keyN names", "HTTPS", []string{"1 . key1=h2 key3=443"}, []string{"1 . alpn=h2 port=443"}},
		{"HTTPS ech quoted", "HTTPS", []string{"3 . ech=" + ech, `3 . ech="` + ech + `"`}, []string{`3 . ech="` + ech + `"`}},
		{"HTTPS ipv6hint dotted as glibc prints it", "HTTPS", []string{"4 . ipv6hint=::ffff:c000:209,::c000:201,::1"}, []string{"4 . ipv6hint=::ffff:192.0.2.9,::192.0.2.1,::1"}},
		{"HTTPS alias form", "HTTPS", []string{"0 Pool.Example.net"}, []string{"0 pool.example.net."}},
		{"SVCB", "svcb", []string{"1 dns.example.net alpn=dot port=853"}, []string{"1 dns.example.net. alpn=dot port=853"}},
		{"URI", "URI", []string{`10 1 "https://example.net/a b"`, "20 1 ftp://example.net/"}, []string{`10 1 "https://example.net/a b"`, `20 1 "ftp://example.net/"`}},
		{"URI long target not split", "URI", []string{"1 1 https://example.net/" + long300}, []string{`1 1 "https://example.net/` + long300 + `"`}},
		{"HINFO", "HINFO", []string{`"PC" Linux`}, []string{`"PC" "Linux"`}},
		{"RP", "RP", []string{"Admin.example.net txt.example.net."}, []string{"admin.example.net. txt.example.net."}},
		{"generic type number", "TYPE1", []string{"192.0.2.1"}, []string{"192.0.2.1"}},
		{"CNAME star inside a label", "CNAME", []string{"a*.example.net"}, []string{"a*.example.net."}},
		{"CNAME specials 5.1 keeps", "CNAME", []string{"a@b!$%&'+,:<=>?[]^`{|}~.example.net"}, []string{"a@b!$%&'+,:<=>?[]^`{|}~.example.net."}},
		{"CNAME escaped octets", "CNAME", []string{`a\009\127\195b.example.net`}, []string{`a\009\127\195b.example.net.`}},
		{"PTR underscore and slash", "PTR", []string{"_a/b.example.net"}, []string{"_a/b.example.net."}},
		{"MX host names", "MX", []string{"10 1.example.net", "20 a--b.example.net", "30 xn--bcher-kva.example"}, []string{"10 1.example.net.", "20 a--b.example.net.", "30 xn--bcher-kva.example."}},
		{"RFC 3597 data", "TYPE65420", []string{`\# 2 4142`, `\# 02 41 42`, `\# 2 4A42`}, []string{`\# 2 4142`, `\# 2 4a42`}},
		{"RFC 3597 type spelling", "type065420", []string{`\# 1 ff`}, []string{`\# 1 ff`}},
		{"RFC 3597 empty data", "TYPE65534", []string{`\# 0`, `\#  00`}, []string{`\# 0`}},
		{"RFC 3597 of a type only miekg/dns names", "TYPE260", []string{`\# 1 00`}, []string{`\# 1 00`}},
		{"TXT as large as a record can be stored", "TXT", []string{txtData(maxStorableTXT("www." + zone))}, []string{txtQuoted(maxStorableTXT("www." + zone))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr, err := rrset.New(zone, "www", tt.typ, 300, tt.in...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rr.Records)
			assertCanonicalRRset(t, rr)
		})
	}
}

// TestNewApexTypes covers the types PowerDNS takes only at the apex.
func TestNewApexTypes(t *testing.T) {
	soa, err := rrset.New(zone, "@", "SOA", 3600, "NS1.example.com hostmaster.example.com. 2024010101 10800 3600 604800 0300")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1.example.com. hostmaster.example.com. 2024010101 10800 3600 604800 300"}, soa.Records)
	assertCanonicalRRset(t, soa)

	dnskey, err := rrset.New(zone, "example.com.", "DNSKEY", 3600, "257 3 13 "+key)
	require.NoError(t, err)
	assertCanonicalRRset(t, dnskey)

	for _, typ := range []string{"SOA", "DNSKEY"} {
		_, err := rrset.New(zone, "www", typ, 3600, soa.Records[0])
		var re *rrset.RecordError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, rrset.ReasonApexOnly, re.Reason)
	}
}

// assertCanonicalRRset checks what holds for every RRset New returns: New
// and NewLive leave it as it is, and miekg/dns parses every content to data
// that New brings back to the same content.
func assertCanonicalRRset(t *testing.T, rr rrset.RRset) {
	t.Helper()
	again, err := rrset.New(zone, rr.Name, rr.Type, rr.TTL, rr.Records...)
	require.NoError(t, err)
	assert.Equal(t, rr, again, "New is idempotent")
	live, err := rrset.NewLive(zone, rr.Name, rr.Type, rr.TTL, rr.Records...)
	require.NoError(t, err)
	assert.Equal(t, rr, live, "NewLive agrees with New")
	for _, c := range rr.Records {
		assertMiekgAgrees(t, rr.Name, rr.Type, c)
	}
}

// assertMiekgAgrees parses a canonical content with miekg/dns, prints it
// back in miekg's own spelling and requires New to turn that spelling into
// the same canonical content: both read the same data.
func assertMiekgAgrees(t *testing.T, name, typ, content string) {
	t.Helper()
	if n, ok := strings.CutPrefix(typ, "TYPE"); ok {
		if v, err := strconv.ParseUint(n, 10, 16); err == nil && dns.TypeToString[uint16(v)] != "" {
			return // miekg/dns reads RFC 3597 data of a type it names into that type
		}
	}
	switch {
	case typ == "ALIAS":
		return // PowerDNS's own type
	case typ == "HTTPS" && strings.Contains(content, "ipv6hint=::") && strings.Contains(content, "."):
		return // miekg/dns refuses the dotted ipv6hint values PowerDNS prints
	case (typ == "CAA" || typ == "URI") && len(content) > 255:
		return // miekg/dns reads these as one character-string of at most 255 octets
	}
	rr, err := dns.NewRR(". 300 IN " + typ + " " + content)
	require.NoError(t, err, "miekg/dns refuses %s %q", typ, content)
	require.NotNil(t, rr, "miekg/dns reads no record from %s %q", typ, content)
	_, theirs, _ := strings.Cut(rr.String(), "\t"+typ+"\t")
	back, err := rrset.New(zone, name, typ, 300, theirs)
	require.NoError(t, err, "New refuses miekg/dns's %q", theirs)
	assert.Equal(t, []string{content}, back.Records, "miekg/dns printed %q", theirs)
}

func TestNewContentErrors(t *testing.T) {
	tests := []struct {
		name, typ, content string
		reason             rrset.Reason
	}{
		{"A garbage", "A", "192.0.2", rrset.ReasonInvalidContent},
		{"A leading zero", "A", "192.0.2.01", rrset.ReasonInvalidContent},
		{"A octet too large", "A", "256.0.2.1", rrset.ReasonInvalidContent},
		{"A three octets", "A", "192.0.2", rrset.ReasonInvalidContent},
		{"A empty octet", "A", "192..2.1", rrset.ReasonInvalidContent},
		{"A five octets", "A", "192.0.2.1.5", rrset.ReasonInvalidContent},
		{"A with IPv6", "A", "2001:db8::1", rrset.ReasonInvalidContent},
		{"A two addresses", "A", "192.0.2.1 192.0.2.2", rrset.ReasonInvalidContent},
		{"AAAA with IPv4", "AAAA", "192.0.2.1", rrset.ReasonInvalidContent},
		{"AAAA zone index", "AAAA", "fe80::1%eth0", rrset.ReasonInvalidContent},
		{"AAAA garbage", "AAAA", "2001:db8:::1", rrset.ReasonInvalidContent},
		{"CNAME two names", "CNAME", "a.example.net b.example.net", rrset.ReasonInvalidContent},
		{"CNAME empty label", "CNAME", "a..example.net", rrset.ReasonInvalidTarget},
		{"CNAME label too long", "CNAME", label(64) + ".net", rrset.ReasonInvalidTarget},
		{"CNAME escaped dot", "CNAME", `a\.b.example.net`, rrset.ReasonUnsupported},
		{"CNAME quote", "CNAME", `a"b.example.net`, rrset.ReasonUnsupported},
		{"CNAME parenthesis", "CNAME", `a)b.example.net`, rrset.ReasonUnsupported},
		{"CNAME semicolon", "CNAME", `a;b.example.net`, rrset.ReasonUnsupported},
		{"CNAME escaped space", "CNAME", `a\032b.example.net`, rrset.ReasonUnsupported},
		{"CNAME escaped backslash", "CNAME", `a\\b.example.net`, rrset.ReasonUnsupported},
		{"SOA mailbox with a blank", "SOA", `ns1.example.net. a\032b.example.net. 1 2 3 4 5`, rrset.ReasonUnsupported},
		{"MX underscore", "MX", "10 _mail.example.net", rrset.ReasonUnsupported},
		{"MX star", "MX", "10 *.example.net", rrset.ReasonUnsupported},
		{"MX leading hyphen", "MX", "10 -a.example.net", rrset.ReasonUnsupported},
		{"SRV trailing hyphen", "SRV", "1 2 3 a-.example.net", rrset.ReasonUnsupported},
		{"NS underscore", "NS", "_ns.example.net", rrset.ReasonUnsupported},
		{"NS root", "NS", ".", rrset.ReasonUnsupported},
		{"RFC 3597 length mismatch", "TYPE65420", `\# 3 4142`, rrset.ReasonInvalidContent},
		{"RFC 3597 without marker", "TYPE65420", `2 4142`, rrset.ReasonInvalidContent},
		{"RFC 3597 data after length 0", "TYPE65420", `\# 0 41`, rrset.ReasonInvalidContent},
		{"RFC 3597 odd hex", "TYPE65420", `\# 2 414`, rrset.ReasonInvalidContent},
		{"RFC 3597 length over 65535", "TYPE65420", `\# 65536 41`, rrset.ReasonInvalidContent},
		{"RFC 3597 for a type PowerDNS parses", "A", `\# 4 c0000201`, rrset.ReasonInvalidContent},
		{"TXT one octet more than a DNS response carries", "TXT", txtData(maxTXTData("www."+zone) + 1), rrset.ReasonTooLarge},
		{"TXT one octet more than PostgreSQL stores in one record", "TXT", txtData(maxStorableTXT("www."+zone) + 1), rrset.ReasonTooLarge},
		{"TXT of 70,000 characters", "TXT", strings.Repeat("x", 70000), rrset.ReasonTooLarge},
		{"TXT C1 control in a bare word", "TXT", "\"a\" b\u0085c", rrset.ReasonInvalidContent},
		{"MX no exchange", "MX", "10", rrset.ReasonInvalidContent},
		{"MX preference too large", "MX", "65536 mail.example.net.", rrset.ReasonInvalidContent},
		{"MX negative", "MX", "-1 mail.example.net.", rrset.ReasonInvalidContent},
		{"MX trailing field", "MX", "10 mail.example.net. extra", rrset.ReasonInvalidContent},
		{"SRV missing port", "SRV", "10 5 target.example.net.", rrset.ReasonInvalidContent},
		{"TXT escaped quote", "TXT", `"say \"hi\""`, rrset.ReasonUnsupported},
		{"TXT escaped backslash", "TXT", `"back\\slash"`, rrset.ReasonUnsupported},
		{"TXT raw backslash", "TXT", `a\b`, rrset.ReasonUnsupported},
		{"TXT unterminated", "TXT", `"abc`, rrset.ReasonInvalidContent},
		{"TXT escaped closing quote", "TXT", `"a\"`, rrset.ReasonInvalidContent},
		{"TXT lone quote", "TXT", `"`, rrset.ReasonInvalidContent},
		{"TXT text after quote", "TXT", `"abc"def`, rrset.ReasonInvalidContent},
		{"TXT quote in bare word", "TXT", `"a" b"c`, rrset.ReasonInvalidContent},
		{"TXT semicolon in bare word", "TXT", `"a" b;c`, rrset.ReasonInvalidContent},
		{"TXT bad escape", "TXT", `"a\2"`, rrset.ReasonInvalidContent},
		{"CAA no value", "CAA", "0 issue", rrset.ReasonInvalidContent},
		{"CAA flags too large", "CAA", `256 issue "x"`, rrset.ReasonInvalidContent},
		{"CAA bad tag", "CAA", `0 is-sue "x"`, rrset.ReasonInvalidContent},
		{"CAA quote in value", "CAA", `0 issue "a\"b"`, rrset.ReasonUnsupported},
		{"TLSA odd hex", "TLSA", "3 1 1 abc", rrset.ReasonInvalidContent},
		{"TLSA not hex", "TLSA", "3 1 1 xyz0", rrset.ReasonInvalidContent},
		{"TLSA no data", "TLSA", "3 1 1", rrset.ReasonInvalidContent},
		{"SSHFP usage too large", "SSHFP", "256 2 " + sha256, rrset.ReasonInvalidContent},
		{"DS not hex", "DS", "12345 13 2 zz", rrset.ReasonInvalidContent},
		{"DNSKEY not base64", "CDNSKEY", "257 3 13 !!!", rrset.ReasonInvalidContent},
		{"NAPTR missing replacement", "NAPTR", `100 10 "u" "E2U+sip" ""`, rrset.ReasonInvalidContent},
		{"NAPTR backslash in regexp", "NAPTR", `100 10 "u" "E2U+sip" "!^(.*)$!sip:\\1@example.net!" .`, rrset.ReasonUnsupported},
		{"NAPTR string too long", "NAPTR", `100 10 "` + long300 + `" "" "" .`, rrset.ReasonInvalidContent},
		{"HINFO one string", "HINFO", `"PC"`, rrset.ReasonInvalidContent},
		{"HINFO three strings", "HINFO", `"PC" "Linux" "x"`, rrset.ReasonInvalidContent},
		{"HTTPS alias with params", "HTTPS", "0 pool.example.net. alpn=h2", rrset.ReasonInvalidContent},
		{"HTTPS unknown key", "HTTPS", "1 . key65000=abc", rrset.ReasonUnsupported},
		{"HTTPS dohpath", "SVCB", "1 . dohpath=/q{?dns}", rrset.ReasonUnsupported},
		{"HTTPS duplicate key", "HTTPS", "1 . port=1 port=2", rrset.ReasonInvalidContent},
		{"HTTPS no-default-alpn value", "HTTPS", "1 . no-default-alpn=x", rrset.ReasonInvalidContent},
		{"HTTPS port missing value", "HTTPS", "1 . port", rrset.ReasonInvalidContent},
		{"HTTPS mandatory absent key", "HTTPS", "1 . mandatory=alpn port=443", rrset.ReasonInvalidContent},
		{"HTTPS ipv4hint family", "HTTPS", "1 . ipv4hint=2001:db8::1", rrset.ReasonInvalidContent},
		{"HTTPS ipv6hint family", "HTTPS", "1 . ipv6hint=192.0.2.1", rrset.ReasonInvalidContent},
		{"HTTPS auto hint", "HTTPS", "1 . ipv4hint=auto", rrset.ReasonInvalidContent},
		{"HTTPS escaped alpn", "HTTPS", `1 . alpn=h2\,h3`, rrset.ReasonUnsupported},
		{"HTTPS alpn with a zone-file special", "HTTPS", `1 . alpn="h2;x"`, rrset.ReasonUnsupported},
		{"HTTPS ech not base64", "HTTPS", "1 . ech=!!", rrset.ReasonInvalidContent},
		{"HTTPS unterminated quote", "HTTPS", `1 . alpn="h2`, rrset.ReasonInvalidContent},
		{"SOA missing minimum", "SOA", "ns1. host. 1 2 3 4", rrset.ReasonInvalidContent},
		{"URI no target", "URI", "10 1", rrset.ReasonInvalidContent},
		{"RP one name", "RP", "admin.example.net.", rrset.ReasonInvalidContent},
		{"whitespace only", "A", " \t\n", rrset.ReasonEmptyContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "www"
			if tt.typ == "SOA" {
				name = "@"
			}
			rr, err := rrset.New(zone, name, tt.typ, 300, tt.content)
			var re *rrset.RecordError
			require.ErrorAs(t, err, &re, "got %q", rr.Records)
			assert.Equal(t, tt.reason, re.Reason, "%v", err)
			if tt.reason != rrset.ReasonTooLarge {
				assert.Equal(t, tt.content, re.Content)
			}
			assert.Equal(t, strings.ToUpper(tt.typ), re.Type)
			assert.Contains(t, err.Error(), strings.ToUpper(tt.typ))
			if tt.reason == rrset.ReasonEmptyContent {
				return
			}
			// Live data is never refused for its contents: it is kept.
			live, err := rrset.NewLive(zone, name, tt.typ, 300, tt.content)
			require.NoError(t, err)
			assert.Len(t, live.Records, 1)
		})
	}
}

// maxTXTData returns the most octets of text one TXT record at owner can
// hold and still be served whole to an EDNS query over TCP: 65,496 octets
// of owner name and record data (measured on every supported PowerDNS).
func maxTXTData(owner string) int {
	wire := len(owner) + 1 // plain names: one length octet per label, one root octet
	rdata := 65496 - wire
	// Text of n octets takes n + ceil(n/255) octets of data.
	n := rdata - (rdata+255)/256
	for n+(n+254)/255 < rdata {
		n++
	}
	for n+(n+254)/255 > rdata {
		n--
	}
	return n
}

// maxStorableTXT returns the most octets of text one TXT record at owner
// can hold and still be stored by every backend: a DNS response carries it
// (maxTXTData), and its canonical text fits the 65,535 characters of
// gpgsql's records.content.
// gmysqlContentMax is the length of gmysql's records.content, VARCHAR(64000)
// in PowerDNS's MySQL schema of 4.7 to 5.1.
const gmysqlContentMax = 64000

func maxStorableTXT(owner string) int {
	n := maxTXTData(owner)
	for len(txtQuoted(n)) > 65535 {
		n--
	}
	return n
}

// txtData is n octets of text, as one literal content.
func txtData(n int) string { return strings.Repeat("t", n) }

// txtQuoted is txtData(n) in canonical form: 255-octet strings.
func txtQuoted(n int) string {
	data := txtData(n)
	var parts []string
	for len(data) > 255 {
		parts = append(parts, `"`+data[:255]+`"`)
		data = data[255:]
	}
	return strings.Join(append(parts, `"`+data+`"`), " ")
}
