package reconcile

import (
	"cmp"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/claimrec"
	"github.com/pdnskit/reconcile/internal/jsonlen"
	"github.com/pdnskit/reconcile/rrset"
)

// Ownership in zone metadata, for backends that refuse RRset comments (LMDB
// before 5.1).
//
// Claims live in records, each a metadata kind written once, whole, with one
// POST, by one Reconciler instance, and deleted whole; no kind is ever
// rewritten, so a reader never sees a claim missing while it is rewritten
// (PowerDNS carries out a PUT as a delete and then inserts). A claim record
// (X-PDNSKIT-O-…) names its writer and the RRsets it claims, each with a
// stamp and the owner; a release record (X-PDNSKIT-R-…) names the claims it
// cancels. How they are spelt is internal/claimrec's.
//
// A write adds a claim record for the RRsets it creates, adopts or hands
// over before it writes them, and a release record for the RRsets it
// deleted after the delete, so a crash in between leaves at worst a claim
// on an RRset that does not exist: harmless, and released by a later Sync.
// What a write costs is what it changes, never a rewrite of all the
// writer's claims. Records pile up as the writer changes its RRsets, so
// from time to time the smallest claim records are merged into one (posted
// before the merged ones are deleted, so every claim stays visible), and
// records with nothing left to say are deleted, claim records before the
// releases that cancel them.
//
// An RRset belongs to the writer of its latest claim that no release
// cancels: claims of creations and adoptions are made under the zone lock,
// after the writer read every claim, and are stamped after all of them, so
// the latest claim is the creation of the RRset that exists now, and an
// older claim can only be left over from one that was deleted since. The
// one claim made without the lock is that of the apex SOA and NS of a zone
// EnsureZone has just created, stamped 0, before every other claim
// (zones_maker.go): it holds the apex only where no other claim does.
//
// Claims are written only under the zone lock where they could meet
// another writer's (creations, adoptions, takeovers): on a shared SQL
// database two concurrent POSTs to one kind may lose or duplicate a value,
// and a kind per write avoids that too. Versions before this scheme kept
// one kind per writer, X-PDNSKIT-OWNER-<hash>; such a kind is read as a
// claim record, and is cancelled and merged away like any other.

// maxClaimRecords is how many claim records of the writer a zone may hold
// before the smallest are merged; mergeDownTo is how many remain after.
const (
	maxClaimRecords = 12
	mergeDownTo     = 4
)

// claim is one active claim of an RRset.
type claim struct {
	writer, owner string
	stamp         int64
	record        string // the kind holding it
}

// claimRecord is one of the writer's records.
type claimRecord struct {
	kind     string
	release  bool
	claims   map[rrset.Key]claim
	releases map[string][]rrset.Key // claim record → keys it cancels
}

// claimBook is the ownership claims read from a zone's metadata.
type claimBook struct {
	writer string
	// owners holds the winning claim per key.
	owners map[rrset.Key]claim
	// mine holds the writer's active claims per key.
	mine map[rrset.Key][]claim
	// records are the writer's records.
	records []*claimRecord
	// maxStamp is the latest stamp of any claim read: a new claim is
	// stamped after it.
	maxStamp int64
	// md is the listing read; scoped is set when the book holds only the
	// claims of keys its read covered (records included), so that upkeep,
	// which needs them all, reads the listing whole (book.whole).
	md     []powerdns.Metadata
	scoped bool
}

// readClaims reads every writer's claims on the keys scope covers from a
// listing of the zone's metadata, for writer. A nil or empty listing is an
// empty book. Reading only what the operation covers is what keeps a
// per-object Apply in a zone of many claims from paying for all of them:
// a claim read is a map entry built.
func readClaims(md []powerdns.Metadata, writer string, scope readScope) *claimBook {
	b := &claimBook{writer: writer, md: md, scoped: !scope.whole()}
	if len(md) == 0 {
		b.owners, b.mine = make(map[rrset.Key]claim), make(map[rrset.Key][]claim)
		return b
	}
	type ref struct {
		record string
		key    rrset.Key
	}
	var records []*claimRecord
	cancelled := make(map[string]map[ref]bool) // writer → cancelled claims
	for _, m := range md {
		if m.Kind == nil {
			continue
		}
		rec, owner, latest := parseRecord(string(*m.Kind), m.Metadata, scope)
		if rec == nil {
			continue
		}
		b.maxStamp = max(b.maxStamp, latest)
		records = append(records, rec)
		for target, keys := range rec.releases {
			if cancelled[owner] == nil {
				cancelled[owner] = make(map[ref]bool)
			}
			for _, k := range keys {
				cancelled[owner][ref{target, k}] = true
			}
		}
		if owner == writer {
			b.records = append(b.records, rec)
		}
	}
	// Sized up front: a whole-zone read of a large zone builds maps of
	// every claim, and growing them costs more than filling them.
	n := 0
	for _, rec := range records {
		n += len(rec.claims)
	}
	b.owners, b.mine = make(map[rrset.Key]claim, n), make(map[rrset.Key][]claim, n)
	// One backing array for the writer's claims, most keys holding one: a
	// key's slice is capped, so a second claim of it copies.
	arena := make([]claim, 0, n)
	for _, rec := range records {
		for k, c := range rec.claims {
			if cancelled[c.writer][ref{rec.kind, k}] {
				continue
			}
			cur, ok := b.owners[k]
			if !ok || c.stamp > cur.stamp || (c.stamp == cur.stamp && c.writer < cur.writer) {
				b.owners[k] = c
			}
			if c.writer != writer {
				continue
			}
			if mine, ok := b.mine[k]; ok {
				b.mine[k] = append(mine, c)
			} else {
				arena = append(arena, c)
				b.mine[k] = arena[len(arena)-1 : len(arena) : len(arena)]
			}
		}
	}
	return b
}

// whole is the book of every key: b itself, or, when b is scoped, the
// listing b was read from, read whole.
func (b *claimBook) whole() *claimBook {
	if !b.scoped {
		return b
	}
	return readClaims(b.md, b.writer, readScope{})
}

// parseRecord reads one metadata kind as a record, with its writer and the
// latest stamp of its claims; nil when the kind is not a record of this
// library, or not yet whole. The record holds only the claims and releases
// of keys scope covers.
func parseRecord(kind string, values []string, scope readScope) (*claimRecord, string, int64) {
	r, ok := claimrec.Parse(kind, values)
	if !ok {
		return nil, "", 0
	}
	rec := &claimRecord{kind: kind, release: claimrec.IsRelease(kind)}
	var latest int64
	for _, c := range r.Claims {
		latest = max(latest, c.Stamp)
		k := claimKey(c.Name, c.Type)
		if !scope.covers(k) {
			continue
		}
		if rec.claims == nil {
			size := 1
			if scope.whole() {
				size = len(r.Claims)
			}
			rec.claims = make(map[rrset.Key]claim, size)
		}
		rec.claims[k] = claim{writer: r.Writer, owner: c.Owner, stamp: c.Stamp, record: kind}
	}
	for _, rl := range r.Releases {
		k := claimKey(rl.Name, rl.Type)
		if !scope.covers(k) {
			continue
		}
		if rec.releases == nil {
			rec.releases = make(map[string][]rrset.Key)
		}
		rec.releases[rl.Record] = append(rec.releases[rl.Record], k)
	}
	return rec, r.Writer, latest
}

func claimKey(name, typ string) rrset.Key {
	return rrset.Key{Name: strings.ToLower(name), Type: strings.ToUpper(typ)}
}

// owner returns who holds k by the claims; the zero ownership when nobody
// claims it.
func (b *claimBook) owner(k rrset.Key) ownership {
	if b == nil {
		return ownership{}
	}
	c, ok := b.owners[k]
	if !ok {
		return ownership{}
	}
	return ownership{writer: c.writer, owner: c.owner}
}

// claims returns the claim record for rrs, the RRsets a write is about to
// write as the writer, stamped after every claim read (never before now):
// nil when each of them is claimed already by the writer for the same
// owner.
func (b *claimBook) claims(rrs []*rrset.RRset, now int64) *claimrec.Record {
	rec := claimrec.Record{Writer: b.writer}
	stamp := max(now, b.maxStamp+1)
	for _, rr := range rrs {
		cur := b.owners[rr.Key()]
		if cur.writer == b.writer && (rr.Owner == "" || rr.Owner == cur.owner) {
			continue
		}
		rec.Claims = append(rec.Claims, claimrec.Claim{Name: rr.Name, Type: rr.Type, Stamp: stamp, Owner: rr.Owner})
	}
	if len(rec.Claims) == 0 {
		return nil
	}
	return &rec
}

// releases returns the release record that cancels every active claim of
// the writer on keys: nil when it has none.
func (b *claimBook) releases(keys []rrset.Key) *claimrec.Record {
	rec := claimrec.Record{Writer: b.writer}
	for _, k := range keys {
		for _, c := range b.mine[k] {
			rec.Releases = append(rec.Releases, claimrec.Release{Name: k.Name, Type: k.Type, Record: c.record})
		}
	}
	if len(rec.Releases) == 0 {
		return nil
	}
	return &rec
}

// stale returns the keys the writer claims that it does not hold (held
// reports whether it holds a key now), sorted, leaving out those claimed at
// or after before: a claim is written before its RRset, so a recent claim
// on an RRset not there may be a write in progress.
func (b *claimBook) stale(held func(rrset.Key) bool, before int64) []rrset.Key {
	var out []rrset.Key
	for k, claims := range b.mine {
		recent := slices.ContainsFunc(claims, func(c claim) bool { return c.stamp >= before })
		if !recent && !held(k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y rrset.Key) int { return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Type, y.Type)) })
	return out
}

// tidy is what a write may do to keep the writer's records few: post merged
// (when not nil), then delete drop in order.
type tidy struct {
	merged *claimrec.Record
	drop   []string
}

// tidying plans the upkeep of the writer's records, as they will stand once
// released has been cancelled too and with the fresh claim records the
// write posted after the book was read: claim records with no active claim
// left go, and when more than maxClaimRecords remain, the smallest read are
// merged into one so that mergeDownTo remain. Release records go once every
// claim record they cancel is gone. Each claim is rewritten only when the
// records it is merged with are as small as its own, so over its life a
// claim is copied a number of times that grows with the logarithm of the
// writer's RRsets, not with the number of writes.
//
// Counting the fresh records is what makes the upkeep settle within the
// write that grew the records: a count that left them out would let a zone
// end a write with one record over the bound, and the next write that
// claims nothing, a per-object controller's update, would pay the merge.
func (b *claimBook) tidying(released []rrset.Key, fresh int) tidy {
	b = b.whole()
	gone := make(map[string]bool)
	cancelled := make(map[rrset.Key]bool, len(released))
	for _, k := range released {
		cancelled[k] = true
	}
	type live struct {
		rec    *claimRecord
		claims []claim
		keys   []rrset.Key
	}
	var lives []live
	for _, rec := range b.records {
		if rec.release {
			continue
		}
		l := live{rec: rec}
		for k, c := range rec.claims {
			if cancelled[k] || !slices.ContainsFunc(b.mine[k], func(m claim) bool { return m.record == rec.kind }) {
				continue
			}
			l.claims = append(l.claims, c)
			l.keys = append(l.keys, k)
		}
		if len(l.claims) == 0 {
			gone[rec.kind] = true
			continue
		}
		lives = append(lives, l)
	}
	var t tidy
	if total := len(lives) + fresh; total > maxClaimRecords && len(lives) >= 2 {
		slices.SortFunc(lives, func(x, y live) int {
			return cmp.Or(cmp.Compare(len(x.claims), len(y.claims)), cmp.Compare(x.rec.kind, y.rec.kind))
		})
		merge := lives[:min(total-mergeDownTo+1, len(lives))]
		type entry struct {
			k rrset.Key
			c claim
		}
		var entries []entry
		for _, l := range merge {
			gone[l.rec.kind] = true
			for i, k := range l.keys {
				entries = append(entries, entry{k, l.claims[i]})
			}
		}
		slices.SortFunc(entries, func(x, y entry) int {
			return cmp.Or(cmp.Compare(x.k.Name, y.k.Name), cmp.Compare(x.k.Type, y.k.Type), cmp.Compare(y.c.stamp, x.c.stamp))
		})
		// One claim per key, the latest: an older one of the writer's
		// decides nothing.
		entries = slices.CompactFunc(entries, func(x, y entry) bool { return x.k == y.k })
		t.merged = &claimrec.Record{Writer: b.writer}
		for _, e := range entries {
			t.merged.Claims = append(t.merged.Claims, claimrec.Claim{Name: e.k.Name, Type: e.k.Type, Stamp: e.c.stamp, Owner: e.c.owner})
		}
	}
	// Claim records first, then the releases that cancel them: a release
	// deleted first would bring its claims back.
	for _, rec := range b.records {
		if gone[rec.kind] {
			t.drop = append(t.drop, rec.kind)
		}
	}
	for _, rec := range b.records {
		if !rec.release {
			continue
		}
		needed := false
		for target := range rec.releases {
			if !gone[target] && b.hasRecord(target) {
				needed = true
			}
		}
		if !needed {
			t.drop = append(t.drop, rec.kind)
		}
	}
	return t
}

// recordOverhead bounds what a metadata POST body holds besides its values:
// the kind's name and the JSON around them.
const recordOverhead = 256

// valueBudget bounds a value of packed claims or releases under a body
// limit: at most half of what the values may take, so that a part holds
// the writer line and at least one value (recordFits).
func valueBudget(limit int) int {
	return min(claimrec.ValueBytes, (limit-recordOverhead)/2)
}

// recordFits reports whether a record of writer, its writer line and one
// value of valueBudget, stays within limit: New refuses a body limit that
// cannot hold one.
func recordFits(writer string, limit int) bool {
	const comma = 1
	return recordOverhead+jsonlen.String(claimrec.WriterValue(writer))+comma+valueBudget(limit) <= limit
}

// splitRecord splits the values of a record (its writer line, then its
// claim or release lines) into records whose POST bodies stay within limit
// bytes, each starting with the writer line: a server refuses a body over
// its webserver-max-bodysize (400) as it does a PATCH, and a Sync that
// creates tens of thousands of RRsets claims them all at once. Every part is
// a record of its own, as readClaims reads any number of them. (A writer
// whose claims fill more than maxClaimRecords records at the limit, some
// hundreds of thousands of claims in a zone, merges at every write.)
func splitRecord(values []string, limit int) [][]string {
	if len(values) < 2 {
		return [][]string{values}
	}
	header := values[0]
	budget := max(limit-recordOverhead-jsonlen.String(header), 1)
	var (
		out  [][]string
		part = []string{header}
		size int
	)
	for _, v := range values[1:] {
		n := jsonlen.String(v) + 1 // and its comma
		if len(part) > 1 && size+n > budget {
			out = append(out, part)
			part, size = []string{header}, 0
		}
		part = append(part, v)
		size += n
	}
	return append(out, part)
}

// claimRecords is how many claim records the writer has.
func (b *claimBook) claimRecords() int {
	n := 0
	for _, rec := range b.records {
		if !rec.release {
			n++
		}
	}
	return n
}

func (b *claimBook) hasRecord(kind string) bool {
	return slices.ContainsFunc(b.records, func(r *claimRecord) bool { return r.kind == kind })
}
