package rrset_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

// TestNewStoredTypes holds the less common types PowerDNS stores to the
// forms PowerDNS 4.7, 4.9 and 5.1 print back (the integration test of the
// module root writes each to every server).
func TestNewStoredTypes(t *testing.T) {
	const k = "AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=="
	tests := []struct {
		name, typ, in, want string
		reason              rrset.Reason
	}{
		{name: "AFSDB", typ: "AFSDB", in: "1 afsdb.example.net.", want: "1 afsdb.example.net."},
		{name: "AFSDB spelling", typ: "afsdb", in: " 01  AFSDB.Example.NET ", want: "1 afsdb.example.net."},
		{name: "AFSDB apex target", typ: "AFSDB", in: "2 @", want: "2 example.com."},
		{name: "AFSDB no host", typ: "AFSDB", in: "1", reason: rrset.ReasonInvalidContent},
		{name: "AFSDB subtype too large", typ: "AFSDB", in: "65536 a.", reason: rrset.ReasonInvalidContent},
		{name: "AFSDB bad name", typ: "AFSDB", in: "1 a..b", reason: rrset.ReasonInvalidTarget},
		{name: "KX", typ: "KX", in: "10 KX.Example.NET", want: "10 kx.example.net."},
		{name: "KX extra field", typ: "KX", in: "10 kx. x", reason: rrset.ReasonInvalidContent},
		{name: "LP", typ: "LP", in: "10 L64-Subnet.Example.NET", want: "10 l64-subnet.example.net."},
		{name: "LP no preference", typ: "LP", in: "x.example.net.", reason: rrset.ReasonInvalidContent},
		{name: "MINFO", typ: "MINFO", in: "Owner.Example.NET errors.example.net", want: "owner.example.net. errors.example.net."},
		{name: "MINFO one name", typ: "MINFO", in: "owner.example.net.", reason: rrset.ReasonInvalidContent},

		{name: "CERT", typ: "CERT", in: "1 12345 8 " + k, want: "1 12345 8 " + k},
		{name: "CERT mnemonic and pieces", typ: "CERT", in: "pkix 12345 8 " + k[:20] + " " + k[20:], want: "1 12345 8 " + k},
		{name: "CERT URI mnemonic", typ: "CERT", in: "URI 0 0 " + k, want: "253 0 0 " + k},
		{name: "CERT algorithm mnemonic", typ: "CERT", in: "PGP 1 rsasha256 " + k, want: "3 1 8 " + k},
		{name: "CERT unknown algorithm", typ: "CERT", in: "PGP 1 RSA " + k, reason: rrset.ReasonInvalidContent},
		{name: "CERT type 0", typ: "CERT", in: "0 1 8 " + k, reason: rrset.ReasonInvalidContent},
		{name: "CERT unknown mnemonic", typ: "CERT", in: "X509 1 8 " + k, reason: rrset.ReasonInvalidContent},
		{name: "CERT no certificate", typ: "CERT", in: "1 1 8", reason: rrset.ReasonInvalidContent},
		{name: "CERT not base64", typ: "CERT", in: "1 1 8 ***", reason: rrset.ReasonInvalidContent},
		{name: "OPENPGPKEY", typ: "OPENPGPKEY", in: k[:10] + "\t" + k[10:], want: k},
		{name: "OPENPGPKEY not base64", typ: "OPENPGPKEY", in: "abc", reason: rrset.ReasonInvalidContent},
		{name: "DHCID", typ: "DHCID", in: k, want: k},
		{name: "RKEY", typ: "RKEY", in: "0 3 5 " + k[:8] + " " + k[8:], want: "0 3 5 " + k},
		{name: "RKEY protocol too large", typ: "RKEY", in: "0 256 5 " + k, reason: rrset.ReasonInvalidContent},
		{name: "ZONEMD", typ: "ZONEMD", in: "2018031500 1 1 FEBE3D4C E2EC2FFA", want: "2018031500 1 1 febe3d4ce2ec2ffa"},
		{name: "ZONEMD odd digest", typ: "ZONEMD", in: "1 1 1 abc", reason: rrset.ReasonInvalidContent},
		{name: "ZONEMD no digest", typ: "ZONEMD", in: "1 1 1", reason: rrset.ReasonInvalidContent},
		{name: "ZONEMD serial too large", typ: "ZONEMD", in: "4294967296 1 1 ab", reason: rrset.ReasonInvalidContent},

		{name: "IPSECKEY IPv4", typ: "IPSECKEY", in: "10 1 2 192.0.2.38 " + k, want: "10 1 2 192.0.2.38 " + k},
		{name: "IPSECKEY no gateway, RFC form", typ: "IPSECKEY", in: "10 0 2 . " + k, want: "10 0 2 " + k},
		{name: "IPSECKEY no gateway", typ: "IPSECKEY", in: "10 0 2 " + k, want: "10 0 2 " + k},
		{name: "IPSECKEY nothing", typ: "IPSECKEY", in: "20 0 0 .", want: "20 0 0"},
		{name: "IPSECKEY IPv6", typ: "IPSECKEY", in: "10 2 2 2001:0DB8:0:8002::2000:1 " + k, want: "10 2 2 2001:db8:0:8002::2000:1 " + k},
		{name: "IPSECKEY IPv4-mapped", typ: "IPSECKEY", in: "10 2 2 ::ffff:c000:201 " + k, want: "10 2 2 ::ffff:192.0.2.1 " + k},
		{name: "IPSECKEY name", typ: "IPSECKEY", in: "010 3 1 GW.Example.NET " + k[:4] + " " + k[4:], want: "10 3 1 gw.example.net. " + k},
		{name: "IPSECKEY name without key", typ: "IPSECKEY", in: "10 3 0 gw.example.net.", want: "10 3 0 gw.example.net."},
		{name: "IPSECKEY key with algorithm 0", typ: "IPSECKEY", in: "10 1 0 192.0.2.1 " + k, reason: rrset.ReasonInvalidContent},
		{name: "IPSECKEY no key", typ: "IPSECKEY", in: "10 1 2 192.0.2.1", reason: rrset.ReasonInvalidContent},
		{name: "IPSECKEY IPv6 as IPv4", typ: "IPSECKEY", in: "10 1 2 2001:db8::1 " + k, reason: rrset.ReasonInvalidContent},
		{name: "IPSECKEY IPv4 as IPv6", typ: "IPSECKEY", in: "10 2 2 192.0.2.1 " + k, reason: rrset.ReasonInvalidContent},
		{name: "IPSECKEY gateway type 4", typ: "IPSECKEY", in: "10 4 2 x " + k, reason: rrset.ReasonInvalidContent},
		{name: "IPSECKEY ECDSA key", typ: "IPSECKEY", in: "10 1 3 192.0.2.1 " + k, reason: rrset.ReasonUnsupported},

		{name: "EUI48", typ: "EUI48", in: "00-00-5E-00-53-2A", want: "00-00-5e-00-53-2a"},
		{name: "EUI48 one digit", typ: "EUI48", in: "0-0-5e-0-53-2a", want: "00-00-5e-00-53-2a"},
		{name: "EUI48 colons", typ: "EUI48", in: "00:00:5e:00:53:2a", reason: rrset.ReasonInvalidContent},
		{name: "EUI48 too short", typ: "EUI48", in: "00-00-5e-00-53", reason: rrset.ReasonInvalidContent},
		{name: "EUI48 too long", typ: "EUI48", in: "00-00-5e-00-53-2a-01", reason: rrset.ReasonInvalidContent},
		{name: "EUI48 not hex", typ: "EUI48", in: "00-00-5g-00-53-2a", reason: rrset.ReasonInvalidContent},
		{name: "EUI64", typ: "EUI64", in: "00-00-5E-EF-10-00-00-2A", want: "00-00-5e-ef-10-00-00-2a"},
		{name: "EUI64 as EUI48", typ: "EUI64", in: "00-00-5e-00-53-2a", reason: rrset.ReasonInvalidContent},
		{name: "EUI64 three digits", typ: "EUI64", in: "000-00-5e-ef-10-00-00-2a", reason: rrset.ReasonInvalidContent},

		{name: "NID", typ: "NID", in: "10 0014:4FFF:FF20:EE64", want: "10 0014:4FFF:FF20:EE64"},
		{name: "NID short groups lower case", typ: "NID", in: "10 14:4fff:ff20:ee64", want: "10 0014:4FFF:FF20:EE64"},
		{name: "NID three groups", typ: "NID", in: "10 14:4fff:ff20", reason: rrset.ReasonInvalidContent},
		{name: "NID five groups", typ: "NID", in: "10 14:4fff:ff20:ee64:1", reason: rrset.ReasonInvalidContent},
		{name: "NID compressed", typ: "NID", in: "10 14::1", reason: rrset.ReasonInvalidContent},
		{name: "NID long group", typ: "NID", in: "10 00014:4fff:ff20:ee64", reason: rrset.ReasonInvalidContent},
		{name: "L64", typ: "L64", in: "10 2001:db8:1140:1000", want: "10 2001:0DB8:1140:1000"},
		{name: "L32", typ: "L32", in: "010 10.1.2.3", want: "10 10.1.2.3"},
		{name: "L32 IPv6", typ: "L32", in: "10 2001:db8::1", reason: rrset.ReasonInvalidContent},
		{name: "L32 no locator", typ: "L32", in: "10", reason: rrset.ReasonInvalidContent},

		{name: "APL", typ: "APL", in: "1:192.0.2.0/24", want: "1:192.0.2.0/24"},
		{name: "APL several, order kept", typ: "APL", in: "1:192.0.2.0/24  !2:2001:DB8::/32 1:0.0.0.0/0", want: "1:192.0.2.0/24 !2:2001:db8::/32 1:0.0.0.0/0"},
		{name: "APL IPv4-mapped", typ: "APL", in: "2:::ffff:c000:200/120", want: "2:::ffff:192.0.2.0/120"},
		{name: "APL host bits", typ: "APL", in: "1:192.0.2.1/24", reason: rrset.ReasonUnsupported},
		{name: "APL no prefix", typ: "APL", in: "1:192.0.2.0", reason: rrset.ReasonInvalidContent},
		{name: "APL no family", typ: "APL", in: "192.0.2.0/24", reason: rrset.ReasonInvalidContent},
		{name: "APL family 3", typ: "APL", in: "3:192.0.2.0/24", reason: rrset.ReasonInvalidContent},
		{name: "APL IPv6 in family 1", typ: "APL", in: "1:2001:db8::/32", reason: rrset.ReasonInvalidContent},
		{name: "APL prefix too long", typ: "APL", in: "1:192.0.2.0/33", reason: rrset.ReasonInvalidContent},

		{name: "CSYNC", typ: "CSYNC", in: "66 3 A NS AAAA", want: "66 3 A NS AAAA"},
		{name: "CSYNC order, case, repeats", typ: "CSYNC", in: "66 3 aaaa a NS a", want: "66 3 A NS AAAA"},
		{name: "CSYNC generic types", typ: "CSYNC", in: "1 0 TYPE1 type65280", want: "1 0 A TYPE65280"},
		{name: "CSYNC no types", typ: "CSYNC", in: "1 0", want: "1 0"},
		{name: "CSYNC type only 5.1 names", typ: "CSYNC", in: "1 0 A HHIT", reason: rrset.ReasonUnsupported},
		{name: "CSYNC type PowerDNS does not name", typ: "CSYNC", in: "1 0 MD", reason: rrset.ReasonInvalidContent},
		{name: "CSYNC flags too large", typ: "CSYNC", in: "1 65536 A", reason: rrset.ReasonInvalidContent},

		{name: "LUA", typ: "LUA", in: `A "ifportup(443, {'192.0.2.1'})"`, want: `A "ifportup(443, {'192.0.2.1'})"`},
		{name: "LUA type case and blanks", typ: "lua", in: `a   "ifportup(443, {'192.0.2.1'})"`, want: `A "ifportup(443, {'192.0.2.1'})"`},
		{name: "LUA snippet kept as written", typ: "LUA", in: `TXT "a  \"b\"\065" "c"`, want: `TXT "a  \"b\"\065" "c"`},
		{name: "LUA bare word quoted", typ: "LUA", in: `TXT abc"d"`, want: `TXT "abc" "d"`},
		{name: "LUA generic type", typ: "LUA", in: `TYPE28 "x"`, want: `AAAA "x"`},
		{name: "LUA no snippet", typ: "LUA", in: "A", reason: rrset.ReasonInvalidContent},
		{name: "LUA unknown type", typ: "LUA", in: `BOGUS "x"`, reason: rrset.ReasonInvalidContent},
		{name: "LUA unterminated", typ: "LUA", in: `A "x`, reason: rrset.ReasonInvalidContent},
		{name: "LUA bad escape", typ: "LUA", in: `A "\999"`, reason: rrset.ReasonInvalidContent},
		{name: "LUA control character", typ: "LUA", in: "A \"a\nb\"", reason: rrset.ReasonInvalidContent},

		{name: "LOC", typ: "LOC", in: "51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m", want: "51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC defaults and case", typ: "LOC", in: "51 56 0.123 n 5 54 0 e 4", want: "51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC degrees only", typ: "LOC", in: "52 S 4 W -2.5m 20m", want: "52 0 0.000 S 4 0 0.000 W -2.50m 20.00m 10000.00m 10.00m"},
		{name: "LOC small precisions", typ: "LOC", in: "1 2 3.4 N 5 6 7.89 E 0.01 0 0.05m 90000000m", want: "1 2 3.400 N 5 6 7.890 E 0.01m 0.00m 0.05m 90000000.00m"},
		{name: "LOC poles", typ: "LOC", in: "90 N 180 W 0", want: "90 0 0.000 N 180 0 0.000 W 0.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC equator", typ: "LOC", in: "0 S 10 E 0", want: "0 0 0.000 N 10 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC prime meridian", typ: "LOC", in: "10 N 0 0 0.000 W 0", want: "10 0 0.000 N 0 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{name: "LOC 60 seconds", typ: "LOC", in: "1 0 60.000 N 1 E 0", reason: rrset.ReasonInvalidContent},
		{name: "LOC size not one digit", typ: "LOC", in: "51 N 5 E 4m 1.5m", reason: rrset.ReasonInvalidContent},
		{name: "LOC size too large", typ: "LOC", in: "51 N 5 E 4m 100000000m", reason: rrset.ReasonInvalidContent},
		{name: "LOC latitude over 90", typ: "LOC", in: "90 0 0.001 N 5 E 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC minutes over 59", typ: "LOC", in: "51 60 N 5 E 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC seconds to the ten-thousandth", typ: "LOC", in: "51 56 0.1234 N 5 E 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC decimal minutes", typ: "LOC", in: "51 56.5 N 5 E 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC no hemisphere", typ: "LOC", in: "51 56 0 5 54 0 E 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC longitude first", typ: "LOC", in: "5 E 51 N 4", reason: rrset.ReasonInvalidContent},
		{name: "LOC no altitude", typ: "LOC", in: "51 N 5 E", reason: rrset.ReasonInvalidContent},
		{name: "LOC altitude below -100000m", typ: "LOC", in: "51 N 5 E -100000.01", reason: rrset.ReasonInvalidContent},
		{name: "LOC altitude PowerDNS prints wrong", typ: "LOC", in: "51 N 5 E 21374836.48", reason: rrset.ReasonUnsupported},
		{name: "LOC highest altitude", typ: "LOC", in: "51 N 5 E 21374836.47", want: "51 0 0.000 N 5 0 0.000 E 21374836.47m 1.00m 10000.00m 10.00m"},
		{name: "LOC trailing field", typ: "LOC", in: "51 N 5 E 4 1 1 1 1", reason: rrset.ReasonInvalidContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr, err := rrset.New(zone, "www", tt.typ, 300, tt.in)
			if tt.reason != "" {
				var re *rrset.RecordError
				require.True(t, errors.As(err, &re), "New(%s %q) = %q, %v", tt.typ, tt.in, rr.Records, err)
				assert.Equal(t, tt.reason, re.Reason, "%v", err)
				assert.Equal(t, tt.in, re.Content)
				live, err := rrset.NewLive(zone, "www", tt.typ, 300, tt.in)
				require.NoError(t, err, "NewLive keeps what it cannot store")
				require.Len(t, live.Records, 1)
				return
			}
			require.NoError(t, err)
			require.Equal(t, []string{tt.want}, rr.Records)
			again, err := rrset.New(zone, "www", rr.Type, 300, rr.Records...)
			require.NoError(t, err)
			assert.Equal(t, rr, again, "idempotent")
			live, err := rrset.NewLive(zone, "www", tt.typ, 300, tt.in)
			require.NoError(t, err)
			assert.True(t, live.Equal(rr), "NewLive reads it as New does: %q", live.Records)
		})
	}
}

// TestNewLiveStoredTypes: data read from a server that New would refuse is
// still brought into the form PowerDNS prints, where it has one.
func TestNewLiveStoredTypes(t *testing.T) {
	tests := []struct{ typ, in, want string }{
		{"APL", "1:192.0.2.1/24", "1:192.0.2.0/24"},
		{"LOC", "0 0 0.000 N 0 0 0.000 E 0.00m 1.00m 10000.00m 10.00m", "0 0 0.000 N 0 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{"LOC", "0 0 0.000 S 0 0 0.000 W 0.00m 1.00m 10000.00m 10.00m", "0 0 0.000 N 0 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{"LOC", "1 0 60.000 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m", "1 1 0.000 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{"LOC", "1 0 60.001 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m", "1 0 60.001 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"},
		{"LOC", "51 56 0.123 n 5 54 0 e 4", "51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m"},
		{"LUA", `a "x"`, `A "x"`},
		{"LOC", "not a position", "not a position"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			rr, err := rrset.NewLive(zone, "www", tt.typ, 300, tt.in)
			require.NoError(t, err)
			assert.Equal(t, []string{tt.want}, rr.Records)
		})
	}
}
