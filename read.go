package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// ErrIncompleteZone is returned when a zone read back from PowerDNS lacks its
// SOA: whatever answered, it was not the whole zone, and acting on it could
// delete records that still exist.
var ErrIncompleteZone = errors.New("zone read has no SOA at its apex: refusing to act on a partial read")

// liveZone is one read of a zone.
type liveZone struct {
	set *rrset.Set
	// disabled are RRsets whose records are all disabled: PowerDNS ignores
	// them for its type rules, but they still belong to a writer.
	disabled []rrset.RRset
	// foreign holds the comments of each RRset that are not ownership
	// records, so that a write keeps them.
	foreign map[rrset.Key][]powerdns.Comment
	// claims are the ownership claims in zone metadata, by writer kind.
	claims claims
}

// read fetches the zone and builds the live Set, with ManagedBy filled from
// the RRset comments or, failing those, from the claims in md, the zone's
// metadata read just before: ownership recorded in either store is read, so
// a change of store loses nothing.
func (s *syncRun) read(ctx context.Context, md []powerdns.Metadata) (*liveZone, error) {
	var zone zonejson.Zone
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		zone, err = s.r.client.GetZone(ctx, s.zone, pdnsapi.ZoneQuery{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read zone: %w", err)
	}
	live := &liveZone{
		foreign: make(map[rrset.Key][]powerdns.Comment),
		claims:  claimsIn(md, s.r.cfg.managedBy),
	}
	live.set, err = rrset.NewSet(s.zone)
	if err != nil {
		return nil, err
	}
	live.set.Grow(len(zone.RRsets))
	soa := false
	for _, p := range zone.RRsets {
		rr, owner, allDisabled, ok := s.liveRRset(p, live)
		if !ok {
			continue
		}
		if rr.Type == "SOA" && rr.Name == s.zone {
			soa = true
		}
		if claimed, ok := live.claims.owner(rr.Key()); ok && owner == "" {
			owner = claimed
		}
		rr.ManagedBy = owner
		if allDisabled {
			live.disabled = append(live.disabled, rr)
			continue
		}
		if err := live.set.Add(rr); err != nil {
			s.r.cfg.logger.Warn("live RRset ignored", "zone", s.zone, "name", rr.Name, "type", rr.Type, "error", err)
		}
	}
	if !soa {
		return nil, ErrIncompleteZone
	}
	return live, nil
}

// liveRRset converts one RRset of the API into the rrset form: canonical
// contents of its enabled records, its writer from our comment, its other
// comments kept aside. When every record is disabled, Records holds the
// disabled ones and allDisabled is true.
func (s *syncRun) liveRRset(p zonejson.RRset, live *liveZone) (rr rrset.RRset, owner string, allDisabled, ok bool) {
	var enabled, disabled []string
	for _, rec := range p.Records {
		if rec.Disabled {
			disabled = append(disabled, rec.Content)
		} else {
			enabled = append(enabled, rec.Content)
		}
	}
	contents := enabled
	if len(contents) == 0 {
		contents = disabled
	}
	if len(contents) == 0 {
		// An RRset with comments only: nothing to write over.
		return rrset.RRset{}, "", false, false
	}
	rr, err := rrset.NewLive(s.zone, p.Name, p.Type, p.TTL, contents...)
	if err != nil {
		s.r.cfg.logger.Warn("live RRset not understood", "zone", s.zone, "name", p.Name, "type", p.Type, "error", err)
		return rrset.RRset{}, "", false, false
	}
	owner, foreign := splitComments(p.Comments)
	if len(foreign) > 0 {
		live.foreign[rr.Key()] = foreign
	}
	return rr, owner, len(enabled) == 0, true
}

// Ownership comments: account commentAccount, content "managed-by=<writer>".
const (
	commentAccount = "pdnskit/reconcile"
	commentPrefix  = "managed-by="
)

// splitComments separates our ownership comment from the others, which a
// write keeps as they are.
func splitComments(comments []zonejson.Comment) (owner string, foreign []powerdns.Comment) {
	for _, c := range comments {
		if c.Account == commentAccount && strings.HasPrefix(c.Content, commentPrefix) {
			owner = strings.TrimPrefix(c.Content, commentPrefix)
			continue
		}
		kept := powerdns.Comment{Content: powerdns.String(c.Content), Account: powerdns.String(c.Account)}
		if c.ModifiedAt != 0 {
			kept.ModifiedAt = powerdns.Uint64(c.ModifiedAt)
		}
		foreign = append(foreign, kept)
	}
	return owner, foreign
}

// ownerComment is the comment that records writer as an RRset's owner.
func ownerComment(writer string) powerdns.Comment {
	return powerdns.Comment{
		Content: powerdns.String(commentPrefix + writer),
		Account: powerdns.String(commentAccount),
	}
}
