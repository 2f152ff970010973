package reconcile_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Key material from RFC 4025's examples, and digests of no consequence.
const (
	storedKey   = "AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=="
	storedDHCID = "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="
	storedPGP   = "mQINBFit2jsBEADrbl5vjVxYeAE0g0IDYCBpHirv1Sjlqxx5gjtPhb2YhvyDMXjq"
)

// storedTypes are the less common types PowerDNS stores through its API,
// each spelled otherwise than PowerDNS prints it where the type allows,
// with the form New gives and PowerDNS returns.
var storedTypes = []struct {
	typ      string
	contents []string
	want     []string
	name     string // the owner; the type's name in lower case when empty
}{
	{"AFSDB", []string{"1 AFSDB.Example.NET"}, []string{"1 afsdb.example.net."}, ""},
	{"APL", []string{"1:192.0.2.0/24  !2:2001:DB8::/32", "!1:198.51.100.0/28"},
		[]string{"!1:198.51.100.0/28", "1:192.0.2.0/24 !2:2001:db8::/32"}, ""},
	{"CERT", []string{"PKIX 12345 8 " + storedKey[:20] + " " + storedKey[20:]}, []string{"1 12345 8 " + storedKey}, ""},
	{"CSYNC", []string{"66 3 aaaa a NS a"}, []string{"66 3 A NS AAAA"}, ""},
	{"DHCID", []string{storedDHCID[:16] + " " + storedDHCID[16:]}, []string{storedDHCID}, ""},
	{"EUI48", []string{"00-00-5E-00-53-2A"}, []string{"00-00-5e-00-53-2a"}, ""},
	{"EUI64", []string{"00-00-5E-EF-10-00-00-2A"}, []string{"00-00-5e-ef-10-00-00-2a"}, ""},
	{"IPSECKEY", []string{
		"10 1 2 192.0.2.38 " + storedKey,
		"10 0 2 . " + storedKey,
		"010 3 2 GW.Example.NET " + storedKey,
		"10 2 2 2001:0DB8:0:8002::2000:1 " + storedKey[:10] + " " + storedKey[10:],
		"20 0 0 .",
	}, []string{
		"10 0 2 " + storedKey,
		"10 1 2 192.0.2.38 " + storedKey,
		"10 2 2 2001:db8:0:8002::2000:1 " + storedKey,
		"10 3 2 gw.example.net. " + storedKey,
		"20 0 0",
	}, ""},
	{"KX", []string{"10 KX.Example.NET"}, []string{"10 kx.example.net."}, ""},
	{"L32", []string{"10 192.0.2.1"}, []string{"10 192.0.2.1"}, ""},
	{"L64", []string{"10 2001:db8:1140:1000"}, []string{"10 2001:0DB8:1140:1000"}, ""},
	{"LOC", []string{"51 56 0.123 n 5 54 0 e 4m 1m 10000 10", "52 22 23 S 4 53 W -2"}, []string{
		"51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m",
		"52 22 23.000 S 4 53 0.000 W -2.00m 1.00m 10000.00m 10.00m",
	}, ""},
	// 4.x prints this position 1 0 60.000 N and refuses it written so.
	{"LOC", []string{"1 1 0 N 1 0 0 E 0"}, []string{"1 1 0.000 N 1 0 0.000 E 0.00m 1.00m 10000.00m 10.00m"}, "loc-minute"},
	{"LP", []string{"10 L64-Subnet.Example.NET"}, []string{"10 l64-subnet.example.net."}, ""},
	{"LUA", []string{`a   "ifportup(443, {'192.0.2.1', '192.0.2.2'})"`}, []string{`A "ifportup(443, {'192.0.2.1', '192.0.2.2'})"`}, ""},
	{"MINFO", []string{"Owner.Example.NET errors.example.net"}, []string{"owner.example.net. errors.example.net."}, ""},
	{"NID", []string{"10 14:4fff:ff20:ee64"}, []string{"10 0014:4FFF:FF20:EE64"}, ""},
	{"OPENPGPKEY", []string{storedPGP[:32] + "\t" + storedPGP[32:]}, []string{storedPGP}, ""},
	{"RKEY", []string{"0 3 5 " + storedKey[:8] + " " + storedKey[8:]}, []string{"0 3 5 " + storedKey}, ""},
	{"ZONEMD", []string{"2018031500 1 1 FEBE3D4CE2EC2FFA4BA9 9D46CD69D6D29711E552 17665E9C1A6DE3E7C2A1"},
		[]string{"2018031500 1 1 febe3d4ce2ec2ffa4ba99d46cd69d6d29711e55217665e9c1a6de3e7c2a1"}, ""},
}

// TestTypesStored writes one RRset of each less common type through Sync,
// on every server, with each ownership store: PowerDNS stores each in the form New gives, so a second
// Sync plans nothing; a type the server's version refuses is refused with
// a *rrset.VersionError before anything is sent.
func TestTypesStored(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		r, rec := newWriter(t, srv, "types", store)

		var desired, refused []rrset.RRset
		for _, tt := range storedTypes {
			name := tt.name
			if name == "" {
				name = strings.ToLower(tt.typ)
			}
			rr := pdnstest.MustRRset(t, zone, name, tt.typ, 300, tt.contents...)
			require.Equal(t, tt.want, rr.Records, "New %s", tt.typ)
			if rrset.CheckVersion(rr, srv.Version) != nil {
				refused = append(refused, rr)
				continue
			}
			desired = append(desired, rr)
		}
		var wantRefused []string
		if !srv.AtLeast(5, 0) {
			wantRefused = append(wantRefused, "loc-minute."+zone+" LOC")
		}
		if srv.AtLeast(5, 1) {
			wantRefused = append(wantRefused, "lua."+zone+" LUA")
		}
		var gotRefused []string
		for _, rr := range refused {
			gotRefused = append(gotRefused, rr.Key().String())
		}
		require.Equal(t, wantRefused, gotRefused)

		raw := powerdns.New(srv.URL, "localhost", powerdns.WithAPIKey(srv.APIKey))
		for _, rr := range refused {
			patches := rec.counts.Method(http.MethodPatch)
			_, err := r.Sync(ctx, zone, append(slices.Clone(desired), rr))
			var ve *rrset.VersionError
			require.True(t, errors.As(err, &ve), "%s: %v", rr.Type, err)
			var ie *reconcile.InputError
			assert.True(t, errors.As(err, &ie), "%v", err)
			assert.Equal(t, srv.Version, ve.Version)
			assert.Equal(t, rr.Type, ve.Type)
			assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "nothing sent for %s", rr.Type)
			// The refusal is the server's own: written past the check,
			// it is refused.
			err = raw.Records.Change(ctx, zone, rr.Name, powerdns.RRType(rr.Type), rr.TTL, rr.Records)
			require.Error(t, err, "PowerDNS %s stores %s %q", srv.Version, rr.Type, rr.Records)
			t.Logf("PowerDNS %s refuses %s %q: %v", srv.Version, rr.Type, rr.Records, err)
		}

		res, err := r.Sync(ctx, zone, desired)
		require.NoError(t, err)
		require.Len(t, res.Applied, len(desired), "%v", res.Refused)
		assert.Zero(t, rec.refusals(), "PowerDNS refused nothing")
		for _, rr := range desired {
			assert.Equal(t, rr.Records, liveContents(t, srv, zone, rr.Name, rr.Type), "%s read back", rr.Type)
		}

		patches := rec.counts.Method(http.MethodPatch)
		res, err = r.Sync(ctx, zone, desired)
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "the second Sync plans nothing")
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "the second Sync sends nothing")
	})
}
