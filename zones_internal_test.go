package reconcile

import (
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestZoneSpec(t *testing.T) {
	spec, err := ZoneSpec{Kind: "master", Nameservers: []string{"NS2.example.net", "ns1.example.net.", "ns1.example.net"}, SOAEditAPI: "default"}.canonical(testZone)
	require.NoError(t, err)
	assert.Equal(t, "Master", spec.Kind)
	assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, spec.Nameservers)
	assert.Equal(t, "DEFAULT", spec.SOAEditAPI)

	_, err = ZoneSpec{Kind: "Primary"}.canonical(testZone)
	var input *InputError
	assert.ErrorAs(t, err, &input)
	_, err = ZoneSpec{Nameservers: []string{"not a name"}}.canonical(testZone)
	assert.ErrorAs(t, err, &input)

	api := spec.api(testZone)
	assert.Equal(t, powerdns.ZoneKind("Master"), *api.Kind)
	assert.Equal(t, "DEFAULT", *api.SOAEditAPI)
	assert.Nil(t, api.DNSsec)

	ns := func(contents ...string) powerdns.RRset {
		out := powerdns.RRset{Name: powerdns.String(testZone), Type: powerdns.RRTypePtr("NS")}
		for _, c := range contents {
			out.Records = append(out.Records, powerdns.Record{Content: powerdns.String(c)})
		}
		return out
	}
	same := &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Master"), SOAEditAPI: powerdns.String("DEFAULT"),
		RRsets: []powerdns.RRset{ns("ns2.example.net.", "NS1.example.net.")}}
	assert.Empty(t, spec.differences(testZone, same))
	other := &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Native"), SOAEditAPI: powerdns.String(""),
		RRsets: []powerdns.RRset{ns("ns3.example.net.")}}
	diffs := spec.differences(testZone, other)
	fields := make([]string, len(diffs))
	for i, d := range diffs {
		fields[i] = d.Field
	}
	assert.Equal(t, []string{"kind", "nameservers", "soa_edit_api"}, fields)
	assert.Equal(t, `kind is "Native", not "Master"`, diffs[0].String())
}

func TestZoneSpecChange(t *testing.T) {
	spec, err := ZoneSpec{Kind: "Master", Account: "team-a", Catalog: "Cat.Example.", SOAEditAPI: "epoch",
		Nameservers: []string{"ns1.example.net."}, DNSSEC: true}.canonical(testZone)
	require.NoError(t, err)
	assert.Equal(t, "cat.example.", spec.Catalog)
	_, err = ZoneSpec{Catalog: "not a zone"}.canonical(testZone)
	var input *InputError
	require.ErrorAs(t, err, &input)

	live := &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Native"), Account: powerdns.String("team-b"),
		Catalog: powerdns.String("cat.example"), SOAEditAPI: powerdns.String("DEFAULT"), DNSsec: powerdns.Bool(false)}
	diffs := spec.differences(testZone, live)
	fields := func(ds []ZoneDifference) []string {
		out := []string{}
		for _, d := range ds {
			out = append(out, d.Field)
		}
		return out
	}
	assert.Equal(t, []string{"kind", "nameservers", "soa_edit_api", "dnssec", "account"}, fields(diffs),
		"a catalog read without its trailing dot is the same catalog")

	tests := []struct {
		name          string
		kind          bool
		changed, rest []string
		put           powerdns.Zone
	}{
		{"without kind", false, []string{"soa_edit_api", "account"}, []string{"kind", "nameservers", "dnssec"},
			powerdns.Zone{SOAEditAPI: powerdns.String("EPOCH"), Account: powerdns.String("team-a")}},
		{"with kind", true, []string{"kind", "soa_edit_api", "account"}, []string{"nameservers", "dnssec"},
			powerdns.Zone{Kind: powerdns.ZoneKindPtr("Master"), SOAEditAPI: powerdns.String("EPOCH"), Account: powerdns.String("team-a")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			put, changed, rest := spec.change(diffs, tc.kind)
			assert.Equal(t, tc.put, put)
			assert.Equal(t, tc.changed, fields(changed))
			assert.Equal(t, tc.rest, fields(rest))
		})
	}

	moved := &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Master"), Account: powerdns.String("team-a"),
		Catalog: powerdns.String("other.example."), SOAEditAPI: powerdns.String("EPOCH"), DNSsec: powerdns.Bool(true),
		RRsets: []powerdns.RRset{{Name: powerdns.String(testZone), Type: powerdns.RRTypePtr("NS"),
			Records: []powerdns.Record{{Content: powerdns.String("ns1.example.net.")}}}}}
	put, changed, rest := spec.change(spec.differences(testZone, moved), false)
	assert.Equal(t, powerdns.Zone{Catalog: powerdns.String("cat.example.")}, put)
	assert.Equal(t, []string{"catalog"}, fields(changed))
	assert.Empty(t, rest)

	slave, err := ZoneSpec{Kind: "Slave", Masters: []string{"192.0.2.2", "192.0.2.1", "192.0.2.2"}}.canonical(testZone)
	require.NoError(t, err)
	assert.Empty(t, slave.differences(testZone, &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Slave"), Masters: []string{"192.0.2.2", "192.0.2.1"}}))
	put, _, _ = slave.change(slave.differences(testZone, &powerdns.Zone{Kind: powerdns.ZoneKindPtr("Slave"), Masters: []string{"192.0.2.9"}}), false)
	assert.Equal(t, powerdns.Zone{Masters: []string{"192.0.2.1", "192.0.2.2"}}, put)
}

func TestCatalogSupported(t *testing.T) {
	for version, ok := range map[string]bool{
		"4.7.0": true, "4.7.3": true, "4.9.18": true, "5.1.5": true, "5.0.0-alpha1": true,
		"4.6.4": false, "4.4.1": false, "": false, "master": false,
	} {
		err := catalogSupported(version)
		if ok {
			assert.NoError(t, err, version)
		} else {
			assert.ErrorIs(t, err, ErrCatalogUnsupported, version)
		}
	}
}

func TestOthersIn(t *testing.T) {
	obs := obsOf(t, rr(t, "me", "a", "A", "192.0.2.1"), rr(t, "", "b", "A", "192.0.2.1"),
		rr(t, "them", "c", "A", "192.0.2.1"), rr(t, "them", "d", "A", "192.0.2.1"))
	obs.disabled = []rrset.RRset{rr(t, "else", "e", "A", "192.0.2.1")}
	err := othersIn(testZone, obs, "me", "", zoneMaker{})
	var inUse *ZoneInUseError
	require.ErrorAs(t, err, &inUse)
	assert.Equal(t, []string{"else", "them"}, inUse.Writers)
	assert.Equal(t, 3, inUse.RRsets)
	assert.Empty(t, inUse.Owner)
	assert.False(t, inUse.NotOwner(), "only other writers' RRsets")
	assert.NoError(t, othersIn(testZone, obsOf(t, rr(t, "me", "a", "A", "192.0.2.1")), "me", "", zoneMaker{}))
}

// TestOthersInMaker: with an owner, a zone made by another owner, by
// another writer or by no one known is refused, whoever holds the apex
// RRsets; without one, only a zone another writer made.
func TestOthersInMaker(t *testing.T) {
	const soa = "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"
	// The apex is held by record-set objects of the writer: that never
	// decides the zone.
	obs := &observation{set: setOf(t, rr(t, "me/team-b/soa", "@", "SOA", soa), rr(t, "me/team-b/ns", "@", "NS", "ns1.example.net."))}
	made := func(writer, owner string) zoneMaker {
		return zoneMaker{ownership: ownership{writer: writer, owner: owner}, known: true, recorded: true}
	}
	for _, tc := range []struct {
		name  string
		maker zoneMaker
		owner string
		want  string
	}{
		{name: "another object's zone", maker: made("me", "cluster/example"), owner: "team-a/example",
			want: "reconcile: zone " + testZone + " was made by cluster/example of me: not deleted (ForceDeleteZone deletes it anyway)"},
		{name: "the object's own zone", maker: made("me", "team-a/example"), owner: "team-a/example"},
		{name: "no owner given", maker: made("me", "cluster/example")},
		{name: "made without owner", maker: made("me", ""), owner: "team-a/example",
			want: "reconcile: zone " + testZone + " was made by me: not deleted (ForceDeleteZone deletes it anyway)"},
		{name: "no maker known", owner: "team-a/example",
			want: "reconcile: zone " + testZone + " has no maker recorded: not deleted (ForceDeleteZone deletes it anyway)"},
		{name: "no maker known, no owner given"},
		{name: "another writer's zone", maker: made("them", "x"),
			want: "reconcile: zone " + testZone + " was made by x of them: not deleted (ForceDeleteZone deletes it anyway)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := othersIn(testZone, obs, "me", tc.owner, tc.maker)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var inUse *ZoneInUseError
			require.ErrorAs(t, err, &inUse)
			assert.True(t, inUse.NotOwner())
			assert.Zero(t, inUse.RRsets)
			assert.Equal(t, tc.want, err.Error())
		})
	}

	both := &ZoneInUseError{Zone: testZone, MadeByWriter: "me", MadeBy: "cluster/example", Owner: "cluster/example", Writers: []string{"a", "b"}, RRsets: 3}
	assert.Equal(t, "reconcile: zone "+testZone+" was made by cluster/example of me and still holds 3 RRset(s) of a, b: not deleted (ForceDeleteZone deletes it anyway)", both.Error())
}

// TestReadMaker: the maker recorded wins over the apex SOA's holder; a zone
// with none recorded is its SOA owner's when the SOA is the writer's, and
// no one's otherwise.
func TestReadMaker(t *testing.T) {
	const soa = "ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 3600"
	kind := powerdns.MetadataKind(makerKind)
	recorded := []powerdns.Metadata{{Kind: &kind, Metadata: []string{"owner=zone/a", "managed-by=me", "zone=" + testZone}}}
	apex := func(holder string) *observation {
		return &observation{set: setOf(t, rr(t, holder, "@", "SOA", soa))}
	}
	m := readMaker(testZone, recorded, apex("me/recordset/soa"), "me")
	assert.True(t, m.recorded)
	assert.True(t, m.is("me", "zone/a"), "values in any order")

	m = readMaker(testZone, nil, apex("me/zone/a"), "me")
	assert.False(t, m.recorded)
	assert.True(t, m.is("me", "zone/a"), "an earlier release's zone")
	assert.False(t, readMaker(testZone, nil, apex("them/zone/a"), "me").known)
	assert.False(t, readMaker(testZone, nil, apex(""), "me").known)
	assert.False(t, readMaker(testZone, nil, nil, "me").known)
	assert.Equal(t, []string{"zone=" + testZone, "managed-by=me"}, makerValues(testZone, "me", ""))
	left := []powerdns.Metadata{{Kind: &kind, Metadata: []string{"managed-by=me", "zone=deleted.example."}}}
	assert.False(t, readMaker(testZone, left, nil, "me").known, "a deleted zone's maker, left by LMDB")
}

// TestZoneSpecClear: Clear is checked and put in the order of differences,
// each field once; a field set and cleared, or no ZoneField, is an
// *InputError.
func TestZoneSpecClear(t *testing.T) {
	got, err := ZoneSpec{Clear: []ZoneField{ZoneCatalog, ZoneAccount, ZoneCatalog, ZoneSOAEditAPI}}.canonical("example.com.")
	require.NoError(t, err)
	assert.Equal(t, []ZoneField{ZoneSOAEditAPI, ZoneAccount, ZoneCatalog}, got.Clear)

	for name, spec := range map[string]ZoneSpec{
		"account set and cleared":      {Account: "a", Clear: []ZoneField{ZoneAccount}},
		"catalog set and cleared":      {Catalog: "cat.example.", Clear: []ZoneField{ZoneCatalog}},
		"soa_edit_api set and cleared": {SOAEditAPI: "DEFAULT", Clear: []ZoneField{ZoneSOAEditAPI}},
		"soa_edit set and cleared":     {SOAEdit: "EPOCH", Clear: []ZoneField{ZoneSOAEdit}},
		"masters":                      {Clear: []ZoneField{"masters"}},
		"unknown":                      {Clear: []ZoneField{"Account"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := spec.canonical("example.com.")
			var input *InputError
			assert.ErrorAs(t, err, &input)
		})
	}

	z := ZoneSpec{Clear: []ZoneField{ZoneSOAEditAPI, ZoneCatalog}}.api("example.com.")
	require.NotNil(t, z.SOAEditAPI)
	assert.Empty(t, *z.SOAEditAPI, "sent empty at creation")
	require.NotNil(t, z.Catalog)
	assert.Nil(t, z.Account, "not cleared, not sent")
}
