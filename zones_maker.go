package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/claimrec"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// A zone's maker.
//
// Who made a zone is kept apart from who holds its apex RRsets: EnsureZone
// records the writer and the owner (WithOwner) of the call that created the
// zone in one metadata kind of the zone, makerKind, and UpdateZone and
// DeleteZone answer to it. The apex SOA and NS stay ordinary RRsets: an
// object of the same writer that manages them (an "soa" or "ns" record set)
// takes them over as a handover, and that never moves the zone.
//
// The kind holds "zone=<zone>", "managed-by=<writer>" and "owner=<owner>"
// (the last only when the zone was made with an owner), the words of the
// ownership comments, one per value so that their order, which PowerDNS
// does not promise, does not matter. The zone's name is there because LMDB
// gives a zone created after a deletion the deleted zone's id and what
// remained of its metadata: a maker recorded for another name is a
// leftover, and is not read as this zone's. It is written with one PUT right
// after the zone is created, or one POST when EnsureZone takes a zone that
// has no maker recorded.
//
// A zone with no maker recorded was made before makers were recorded, or
// by hand. One whose apex SOA the writer holds is taken as made by the SOA's
// owner: the library's earlier releases recorded the apex of the zones
// EnsureZone created for its owner, so such zones need nothing on upgrade,
// and the first EnsureZone of their maker records it. Any other is taken
// by an EnsureZone only where the writer allows adoption (WithAdoption),
// and never by a DeleteZone given an owner.

// makerKind is the metadata kind that records a zone's maker.
const makerKind = "X-PDNSKIT-ZONE-MAKER"

// Words of makerKind's values.
const (
	makerZone   = "zone="
	makerWriter = "managed-by="
	makerOwner  = "owner="
)

// zoneMaker is who made a zone, and how that is known.
type zoneMaker struct {
	ownership
	// known is false when no maker is recorded and the apex SOA is not
	// the writer's either.
	known bool
	// recorded is true when the maker is in makerKind; false when it is
	// read from the apex SOA's ownership.
	recorded bool
}

// is reports whether the maker is writer with owner.
func (m zoneMaker) is(writer, owner string) bool {
	return m.known && m.writer == writer && m.owner == owner
}

// makerValues are makerKind's values for zone made by writer with owner.
func makerValues(zone, writer, owner string) []string {
	values := []string{makerZone + zone, makerWriter + writer}
	if owner != "" {
		values = append(values, makerOwner+owner)
	}
	return values
}

// readMaker finds the maker of a zone in its metadata md and, when none is
// recorded there, in the ownership of its apex SOA, which apex holds (nil
// when not read): a zone an earlier release created is its SOA owner's
// when the SOA is writer's.
func readMaker(zone string, md []powerdns.Metadata, apex *observation, writer string) zoneMaker {
	for _, m := range md {
		if m.Kind == nil || string(*m.Kind) != makerKind {
			continue
		}
		var got zoneMaker
		named := ""
		for _, v := range m.Metadata {
			switch {
			case strings.HasPrefix(v, makerZone):
				named = strings.TrimPrefix(v, makerZone)
			case strings.HasPrefix(v, makerWriter):
				got.writer, got.known = strings.TrimPrefix(v, makerWriter), true
			case strings.HasPrefix(v, makerOwner):
				got.owner = strings.TrimPrefix(v, makerOwner)
			}
		}
		if got.known && strings.EqualFold(named, zone) {
			got.recorded = true
			return got
		}
	}
	if apex == nil {
		return zoneMaker{}
	}
	if soa, ok := apex.set.Get(rrset.Key{Name: zone, Type: "SOA"}); ok && soa.ManagedBy == writer {
		return zoneMaker{ownership: ownership{writer: soa.ManagedBy, owner: soa.Owner}, known: true}
	}
	return zoneMaker{}
}

// recordMaker records writer with owner as the maker of zone, a zone with
// none recorded, in one POST: a reader sees the kind whole or not at all,
// where a PUT, which PowerDNS carries out as a delete and then inserts,
// could show a zone without its maker for a moment. A leftover of a deleted
// zone (left) is replaced, with a PUT.
func (c session) recordMaker(ctx context.Context, zone, writer, owner string, left bool) error {
	if left {
		return c.recordNewMaker(ctx, zone, writer, owner)
	}
	err := c.addKind(ctx, zone, makerKind, makerValues(zone, writer, owner))
	if err != nil {
		return fmt.Errorf("record the maker of zone %s: %w", zone, err)
	}
	return nil
}

// recordNewMaker records writer with owner as the maker of zone, a zone
// just created, in one PUT: LMDB gives a new zone the id of one deleted
// before, with what of its metadata remained, and a PUT replaces a maker
// left there where a POST would add to it. No one else reads a zone this
// young, so the moment a PUT leaves it without its maker does not matter.
func (c session) recordNewMaker(ctx context.Context, zone, writer, owner string) error {
	err := c.call(ctx, func(ctx context.Context) error {
		return c.s.client.SetMetadata(ctx, zone, makerKind, makerValues(zone, writer, owner))
	})
	if err != nil {
		return fmt.Errorf("record the maker of zone %s: %w", zone, err)
	}
	return nil
}

// apexObservation reads the ownership of the apex RRsets of z, a zone read
// at its apex, with the claims in md: what readMaker needs of a zone with
// no maker recorded.
func apexObservation(zone string, z *powerdns.Zone, md []powerdns.Metadata, writer string) *observation {
	zj := zonejson.Zone{Name: zone}
	if z.Name != nil {
		zj.Name = *z.Name
	}
	for _, rr := range z.RRsets {
		if rr.Name == nil || rr.Type == nil {
			continue
		}
		p := zonejson.RRset{Name: *rr.Name, Type: string(*rr.Type)}
		if rr.TTL != nil {
			p.TTL = *rr.TTL
		}
		for _, rec := range rr.Records {
			if rec.Content != nil {
				p.Records = append(p.Records, zonejson.Record{Content: *rec.Content, Disabled: rec.Disabled != nil && *rec.Disabled})
			}
		}
		for _, c := range rr.Comments {
			var cm zonejson.Comment
			if c.Content != nil {
				cm.Content = *c.Content
			}
			if c.Account != nil {
				cm.Account = *c.Account
			}
			p.Comments = append(p.Comments, cm)
		}
		zj.RRsets = append(zj.RRsets, p)
	}
	obs, err := observe(zone, zj, md, writer, readScope{name: zone}, nil, func(string, ...any) {})
	if err != nil {
		return nil
	}
	return obs
}

// ensureMaker decides, for an EnsureZone of writer with owner on an
// existing zone, whose the zone is, and records the maker where this
// EnsureZone takes it: a zone with no maker recorded whose SOA the writer
// holds for owner (made by an earlier release), or, with adopt, any zone
// with no maker known.
func (r *Reconciler) ensureMaker(ctx context.Context, srv session, res *ZoneResult, existing *powerdns.Zone, owner string) error {
	md, err := srv.metadata(ctx, res.Zone)
	if err != nil {
		return err
	}
	m := readMaker(res.Zone, md, nil, r.cfg.managedBy)
	if !m.recorded {
		m = readMaker(res.Zone, md, apexObservation(res.Zone, existing, md, r.cfg.managedBy), r.cfg.managedBy)
	}
	take := !m.recorded && (m.is(r.cfg.managedBy, owner) || (!m.known && r.cfg.adopt))
	if take {
		left := slices.ContainsFunc(md, func(m powerdns.Metadata) bool { return m.Kind != nil && string(*m.Kind) == makerKind })
		if err := srv.recordMaker(ctx, res.Zone, r.cfg.managedBy, owner, left); err != nil {
			return err
		}
		res.Adopted = !m.known
		m = zoneMaker{ownership: ownership{writer: r.cfg.managedBy, owner: owner}, known: true, recorded: true}
	}
	res.setMaker(m, r.cfg.managedBy, owner)
	return nil
}

// setMaker reports the zone's maker m in the result of an EnsureZone of
// writer with owner.
func (res *ZoneResult) setMaker(m zoneMaker, writer, owner string) {
	res.MadeBy, res.MadeByWriter = m.owner, m.writer
	res.Mine = m.is(writer, owner)
}

// notMine is the *ZoneInUseError of a zone whose maker m is not writer
// with owner, or nil when it is.
func notMine(zone string, m zoneMaker, writer, owner string) *ZoneInUseError {
	if m.is(writer, owner) {
		return nil
	}
	e := &ZoneInUseError{Zone: zone, NoMaker: !m.known}
	if m.known {
		e.MadeBy, e.MadeByWriter = m.owner, m.writer
		if m.writer == writer {
			e.Owner = m.owner
		}
	}
	return e
}

// readResultMaker is the maker an EnsureZone reported in res.
func readResultMaker(res ZoneResult) zoneMaker {
	return zoneMaker{ownership: ownership{writer: res.MadeByWriter, owner: res.MadeBy}, known: res.MadeByWriter != ""}
}

// apexHeld are the RRsets of a zone's creation (POST /zones) that record
// its apex SOA and NS as writer's with owner, where ownership lives in
// comments: comments alone, which PowerDNS stores with the zone it creates,
// in the same transaction, beside the SOA and NS it makes. No other writer
// can have written to a zone that did not exist, so the apex is held from
// the zone's first moment, with no lock and no read.
func apexHeld(zone, writer, owner string) []powerdns.RRset {
	holder := rrset.RRset{ManagedBy: writer, Owner: owner}
	out := make([]powerdns.RRset, 0, 2)
	for _, typ := range []powerdns.RRType{powerdns.RRTypeSOA, powerdns.RRTypeNS} {
		out = append(out, powerdns.RRset{
			Name:     powerdns.String(zone),
			Type:     powerdns.RRTypePtr(typ),
			Comments: []powerdns.Comment{ownerComment(&holder)},
		})
	}
	return out
}

// newApexStamp is the stamp of the claims that record the apex of a zone
// EnsureZone created as its maker's, where ownership lives in zone
// metadata: before any stamp a writer gives a claim (the time it writes
// it, and after every claim it read), so such a claim holds the apex only
// while no other claim of it stands.
const newApexStamp int64 = 0

// claimNewApex records the apex SOA and NS of zone, a zone EnsureZone just
// created, as the writer's with owner where ownership lives in zone
// metadata: one claim record, stamped newApexStamp, posted without the
// zone lock and without a read. What the lock guards against cannot
// happen to such a claim: it takes nothing from anyone, since a writer
// that adopted the apex between the zone's creation and this claim (the
// only claim another writer can have made on it) stamped its own claim
// later, and keeps the apex, as it would have had this claim been made
// under the lock. A claim left over from a deleted zone of the same name
// (LMDB reuses a deleted zone's id and what remained of its metadata)
// wins in the same way, as it did over an adoption under the lock, which
// adopts only what no writer holds.
func (r *Reconciler) claimNewApex(ctx context.Context, srv session, zone, owner string) error {
	rec := newApexClaims(zone, r.cfg.managedBy, owner)
	return srv.addKind(ctx, zone, r.kind(claimrec.ClaimPrefix), rec.Values(valueBudget(r.cfg.maxPatchBytes)))
}

// newApexClaims is the claim record of claimNewApex.
func newApexClaims(zone, writer, owner string) claimrec.Record {
	rec := claimrec.Record{Writer: writer}
	for _, typ := range []string{"SOA", "NS"} {
		rec.Claims = append(rec.Claims, claimrec.Claim{Name: zone, Type: typ, Stamp: newApexStamp, Owner: owner})
	}
	return rec
}
