package reconcile

import (
	"errors"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// ErrIncompleteZone is returned when a zone read back from PowerDNS lacks its
// SOA, or is not the zone asked for. Whatever answered, it was not the whole
// zone, and acting on it could delete records that still exist.
var ErrIncompleteZone = errors.New("zone read has no SOA at its apex: refusing to act on a partial read")

// errNotTheZone is an answer naming another zone than the one read.
var errNotTheZone = errors.New("zone read answered with another zone: refusing to act on it")

// observation is one read of what PowerDNS holds: a whole zone, or the
// RRsets at one name.
type observation struct {
	// set holds the RRsets with at least one enabled record (their enabled
	// records only), each with its writer and owner.
	set *rrset.Set
	// disabled are RRsets whose records are all disabled: PowerDNS ignores
	// them for its type rules, but they still belong to a writer.
	disabled []rrset.RRset
	// foreign holds the comments of each RRset that are not ownership
	// records, so that a write keeps them.
	foreign map[rrset.Key][]powerdns.Comment
	// claims are the ownership claims in zone metadata (ownership_claims.go).
	claims *claimBook
	// uncanonical holds the keys whose RRset PowerDNS answered otherwise
	// than as set holds it (liveMemo).
	uncanonical map[rrset.Key]struct{}
	// serialRewritten is true when the zone's SOA-EDIT-API (and SOA-EDIT)
	// make PowerDNS rewrite the serial of any SOA written through the API.
	serialRewritten bool
	// repeated are the keys of RRsets stored with a record twice (the
	// same content after canonicalisation), which set holds once: a
	// write of the writer's own repairs them (decide_repair.go).
	repeated []rrset.Key
}

// readScope is what a read covers.
type readScope struct {
	// name is the one name read; "" for the whole zone.
	name string
	// typ narrows a read of one name to one type.
	typ string
	// names are more names read one at a time with name, every type: a
	// batch of Applies (group commit) reads each member's.
	names []string
	// ancestors are the names above name (and names) read with it, for
	// the NS and DNAME that would hide a write there (conflict.Occluded).
	ancestors []string
}

func (s readScope) whole() bool { return s.name == "" }

// covers reports whether a key is within what was read.
func (s readScope) covers(k rrset.Key) bool {
	return s.whole() || (k.Name == s.name && (s.typ == "" || k.Type == s.typ)) ||
		slices.Contains(s.names, k.Name) || slices.Contains(s.ancestors, k.Name)
}

// observe turns a zone as PowerDNS answered it, and the zone's metadata when
// ownership lives there, into an observation for writer. Ownership recorded
// in either store is read, so a change of store loses nothing. A whole-zone
// read without its SOA is ErrIncompleteZone; RRsets outside scope (an old
// server that ignores the name filter) are dropped; RRsets that cannot be
// understood are reported to warn and left out, as nothing can be written
// over data one cannot read. An RRset answered as in prev, the last whole
// read, is taken from it rather than parsed again.
func observe(zone string, z zonejson.Zone, md []powerdns.Metadata, writer string, scope readScope, prev *liveMemo, warn func(msg string, args ...any)) (*observation, error) {
	switch {
	case z.Name == "":
		return nil, ErrIncompleteZone
	case !strings.EqualFold(strings.TrimSuffix(z.Name, ".")+".", zone):
		return nil, errNotTheZone
	}
	obs := &observation{
		foreign:         make(map[rrset.Key][]powerdns.Comment),
		claims:          readClaims(md, writer, scope),
		serialRewritten: rrset.SOASerialRewritten(z.SOAEditAPI, z.SOAEdit),
	}
	set, err := rrset.NewSet(zone)
	if err != nil {
		return nil, err
	}
	origin, err := rrset.ParseZone(zone)
	if err != nil {
		return nil, err
	}
	obs.set = set
	set.Grow(len(z.RRsets))
	soa := false
	for i := range z.RRsets {
		rr, allDisabled, repeated, ok := obs.liveRRset(origin, &z.RRsets[i], prev, warn)
		if !ok || !scope.covers(rr.Key()) {
			continue
		}
		if rr.Type == "SOA" && rr.Name == zone {
			soa = true
		}
		if allDisabled {
			obs.disabled = append(obs.disabled, rr)
			continue
		}
		if repeated {
			obs.repeated = append(obs.repeated, rr.Key())
		}
		if err := set.Add(rr); err != nil {
			warn("live RRset ignored", "zone", zone, "name", rr.Name, "type", rr.Type, "error", err)
		}
	}
	if scope.whole() && !soa {
		return nil, ErrIncompleteZone
	}
	return obs, nil
}

// liveRRset converts one RRset of the API into the rrset form: canonical
// contents of its enabled records, its writer and owner from our comment or
// the metadata claims, its other comments kept aside. When every record is
// disabled, Records holds the disabled ones and allDisabled is true;
// repeated is true when two of those records hold the same content. An
// RRset answered as the last read answered it, in canonical form, is
// reused from prev: it repeats no record, or it would not be canonical.
func (o *observation) liveRRset(zone rrset.Zone, p *zonejson.RRset, prev *liveMemo, warn func(msg string, args ...any)) (rr rrset.RRset, allDisabled, repeated, ok bool) {
	if rr, ok := prev.reuse(p); ok {
		o.own(&rr, p)
		return rr, false, false, true
	}
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
		return rrset.RRset{}, false, false, false
	}
	rr, err := zone.NewLive(p.Name, p.Type, p.TTL, contents...)
	if err != nil {
		warn("live RRset not understood", "zone", zone, "name", p.Name, "type", p.Type, "error", err)
		return rrset.RRset{}, false, false, false
	}
	if !answeredAs(p, &rr) {
		if o.uncanonical == nil {
			o.uncanonical = make(map[rrset.Key]struct{})
		}
		o.uncanonical[rr.Key()] = struct{}{}
	}
	o.own(&rr, p)
	// NewLive keeps each content once.
	return rr, len(enabled) == 0, len(rr.Records) < len(contents), true
}

// own sets rr's writer, owner and note from p's comments, or the metadata
// claims, and keeps p's other comments aside.
func (o *observation) own(rr *rrset.RRset, p *zonejson.RRset) {
	stamp, note, foreign := splitComments(p.Comments)
	rr.Comment = note
	if len(foreign) > 0 {
		o.foreign[rr.Key()] = foreign
	}
	if stamp.writer == "" {
		stamp = o.claims.owner(rr.Key())
	}
	rr.ManagedBy, rr.Owner = stamp.writer, stamp.owner
}

// ownership is who holds an RRset: its writer and, within the writer, the
// object behind it.
type ownership struct {
	writer, owner string
}

// Ownership comments: account commentAccount, content "managed-by=<writer>"
// and, when an owner is recorded, "\nowner=<owner>" (a writer holds no
// control character, so the newline cannot be part of it).
const (
	commentAccount = "pdnskit/reconcile"
	commentPrefix  = "managed-by="
	commentOwner   = "\nowner="
)

// noteAccount is the account of the comment that holds an RRset's Comment,
// the person's note, as its content: an account of its own, so that a note
// is never read as ownership, nor kept aside as another client's comment.
const noteAccount = "pdnskit/reconcile note"

// splitComments separates our ownership comment and the RRset's note from
// the others, which a write keeps as they are.
func splitComments(comments []zonejson.Comment) (stamp ownership, note string, foreign []powerdns.Comment) {
	for _, c := range comments {
		if c.Account == commentAccount && strings.HasPrefix(c.Content, commentPrefix) {
			stamp.writer, stamp.owner, _ = strings.Cut(strings.TrimPrefix(c.Content, commentPrefix), commentOwner)
			continue
		}
		if c.Account == noteAccount {
			note = c.Content
			continue
		}
		kept := powerdns.Comment{Content: powerdns.String(c.Content), Account: powerdns.String(c.Account)}
		if c.ModifiedAt != 0 {
			kept.ModifiedAt = powerdns.Uint64(c.ModifiedAt)
		}
		foreign = append(foreign, kept)
	}
	return stamp, note, foreign
}

// dropAccounts returns the comments not of accounts: what a write keeps of
// other clients' comments when it replaces a tool (WithAdoptionReplacing).
func dropAccounts(comments []powerdns.Comment, accounts []string) []powerdns.Comment {
	if len(accounts) == 0 {
		return comments
	}
	var kept []powerdns.Comment
	for _, c := range comments {
		if c.Account == nil || !slices.Contains(accounts, *c.Account) {
			kept = append(kept, c)
		}
	}
	return kept
}

// ownerComment is the comment that records rr's writer and owner.
func ownerComment(rr *rrset.RRset) powerdns.Comment {
	content := commentPrefix + rr.ManagedBy
	if rr.Owner != "" {
		content += commentOwner + rr.Owner
	}
	return powerdns.Comment{Content: powerdns.String(content), Account: powerdns.String(commentAccount)}
}

// comments are the comments a write of rr sends: the other clients' as
// they were, the ownership record, and rr's note when it has one.
func comments(rr *rrset.RRset, foreign []powerdns.Comment) []powerdns.Comment {
	out := append(slices.Clone(foreign), ownerComment(rr))
	if rr.Comment != "" {
		out = append(out, powerdns.Comment{Content: powerdns.String(rr.Comment), Account: powerdns.String(noteAccount)})
	}
	return out
}
