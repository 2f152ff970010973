package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// ZoneStatus is a zone's properties as PowerDNS reports them, and its apex
// nameservers: what a controller publishes in a zone object's status.
type ZoneStatus struct {
	// Zone is the zone's canonical name.
	Zone string
	// Kind is "Native", "Master", "Slave", "Producer" or "Consumer".
	Kind string
	// Serial is the SOA serial PowerDNS serves; NotifiedSerial the last
	// one it notified secondaries of, EditedSerial the one after SOA-EDIT.
	Serial, NotifiedSerial, EditedSerial uint32
	// Account, Catalog (absolute, "" for none), SOAEdit and SOAEditAPI are
	// the zone's, "" when empty.
	Account, Catalog, SOAEdit, SOAEditAPI string
	// Masters are the primaries of a secondary zone.
	Masters []string
	// DNSSEC is true when the zone is signed; NSEC3Param is its NSEC3
	// parameters, "" for NSEC.
	DNSSEC     bool
	NSEC3Param string
	// Nameservers are the enabled contents of the apex NS RRset,
	// canonical and sorted (empty when the apex has none). They are nil
	// only from a PowerDNS before 4.7, which may not narrow a zone read to
	// one RRset: there ZoneStatus reads the properties alone.
	Nameservers []string
	// MadeByWriter and MadeBy are who made the zone, as EnsureZone
	// recorded it (ZoneResult.MadeByWriter and MadeBy). Both are empty
	// when no maker is recorded: a zone made by hand or by a client
	// without the library, or one an earlier release made whose maker
	// has not run EnsureZone since (ZoneResult reports that maker: the
	// holder of the zone's apex SOA).
	MadeByWriter, MadeBy string
	// Requests counts the API calls made.
	Requests int
}

// ZoneStatus reads zone's status without reading its RRsets: one GET of
// the zone narrowed to its apex NS (rrset_name and rrset_type, which
// PowerDNS 4.7.3, 4.9.18 and 5.1.5 honour on every backend), one GET of
// the metadata kind that records the zone's maker, and the server's
// version once per Reconciler. On a zone of 2,000 RRsets the zone read is
// about 650 bytes where a whole zone read is 320 KB (374 KB on LMDB);
// 4.7 adds to it every RRset of the zone that has a comment, without its
// records (ownership in comments gives each RRset the library writes one).
// It writes nothing and takes no lock; a zone the server does not have is
// an error for which errors.IsZoneNotFound holds.
func (r *Reconciler) ZoneStatus(ctx context.Context, zone string) (st ZoneStatus, err error) {
	defer func(start time.Time) {
		r.observed(OperationZoneStatus, zone, start, &Result{Zone: st.Zone, Requests: st.Requests}, &err)
	}(time.Now())
	canonical, err := canonicalZone(zone)
	if err != nil {
		return ZoneStatus{Zone: zone}, err
	}
	st = ZoneStatus{Zone: canonical}
	var t tally
	srv := r.server.session(&t)
	defer func() { st.Requests = int(t.requests.Load()) }()
	facts, err := srv.facts(ctx)
	if err != nil {
		return st, err
	}
	narrowed := apexNSNarrowed(facts.version)
	q := pdnsapi.ZoneQuery{NoRRsets: true}
	if narrowed {
		q = pdnsapi.ZoneQuery{RRsetName: canonical, RRsetType: "NS"}
	}
	var z *powerdns.Zone
	err = srv.call(ctx, func(ctx context.Context) error {
		var err error
		z, err = r.server.client.ZoneInfo(ctx, canonical, q)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("read zone %s: %w", canonical, err)
	}
	st.fill(z)
	if narrowed {
		st.Nameservers = apexNameservers(canonical, z.RRsets)
	}
	m, err := recordedMaker(ctx, srv, canonical, nil)
	if err != nil {
		return st, err
	}
	st.MadeByWriter, st.MadeBy = m.writer, m.owner
	return st, nil
}

// recordedMaker is zone's maker as recorded in its metadata (EnsureZone),
// with no fallback to the apex SOA's holder: an empty maker when none is
// recorded. md is the zone's metadata where a read already has it (nil:
// the one kind is read).
func recordedMaker(ctx context.Context, srv session, zone string, md []powerdns.Metadata) (zoneMaker, error) {
	if md == nil {
		made, err := srv.kind(ctx, zone, makerKind)
		if err != nil {
			return zoneMaker{}, fmt.Errorf("read the maker of zone %s: %w", zone, err)
		}
		kind := powerdns.MetadataKind(makerKind)
		md = []powerdns.Metadata{{Kind: &kind, Metadata: made}}
	}
	return readMaker(zone, md, nil, ""), nil
}

// apexNSNarrowed reports whether a PowerDNS of version narrows a zone read
// to the RRsets of rrset_name and rrset_type, as every version the library
// is tested on does (4.7.3 included). An older server might answer with
// the whole zone: it is asked for the properties alone (rrsets=false).
func apexNSNarrowed(version string) bool { return versionAtLeast(version, 4, 7) }

// fill copies z's properties.
func (st *ZoneStatus) fill(z *powerdns.Zone) {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	num := func(p *uint32) uint32 {
		if p == nil {
			return 0
		}
		return *p
	}
	if z.Kind != nil {
		st.Kind = string(*z.Kind)
	}
	st.Serial, st.NotifiedSerial, st.EditedSerial = num(z.Serial), num(z.NotifiedSerial), num(z.EditedSerial)
	st.Account, st.SOAEdit, st.SOAEditAPI = str(z.Account), str(z.SOAEdit), str(z.SOAEditAPI)
	if c := str(z.Catalog); c != "" {
		st.Catalog = strings.TrimSuffix(c, ".") + "."
	}
	if len(z.Masters) > 0 {
		st.Masters = slices.Clone(z.Masters)
	}
	st.DNSSEC = z.DNSsec != nil && *z.DNSsec
	st.NSEC3Param = str(z.Nsec3Param)
}

// apexNameservers returns the enabled contents of the apex NS among
// rrsets, canonical and sorted; never nil. Contents that do not parse are left
// out rather than failing the read.
func apexNameservers(zone string, rrsets []powerdns.RRset) []string {
	out := []string{}
	for _, rr := range rrsets {
		if rr.Name == nil || rr.Type == nil || *rr.Type != powerdns.RRTypeNS || !strings.EqualFold(*rr.Name, zone) {
			continue
		}
		for _, rec := range rr.Records {
			if rec.Content == nil || (rec.Disabled != nil && *rec.Disabled) {
				continue // not served
			}
			if live, err := rrset.NewLive(zone, "@", "NS", 0, *rec.Content); err == nil {
				out = append(out, live.Records...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
