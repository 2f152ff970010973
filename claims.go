package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/rrset"
)

// Ownership in zone metadata, for backends that refuse RRset comments.
//
// Each writer has its own metadata kind, X-PDNSKIT-OWNER-<hash of the
// writer>, so writers never overwrite each other's claims. Its values are
// "writer <name>" and one "claim <name> <type> <unix seconds>" per RRset the
// writer owns. A claim is added (POST, which appends) before the RRset is
// written and removed (PUT of the remaining claims) after it is deleted, so
// a crash in between leaves at worst a claim on an RRset that does not
// exist: harmless, and dropped by the next Sync. Should two writers claim one
// RRset, the earlier claim wins.
const (
	claimKindPrefix = "X-PDNSKIT-OWNER-"
	claimWriter     = "writer "
	claimEntry      = "claim "
)

// claimKind is the metadata kind holding writer's claims.
func claimKind(writer string) string {
	sum := sha256.Sum256([]byte(writer))
	return claimKindPrefix + strings.ToUpper(hex.EncodeToString(sum[:8]))
}

type claim struct {
	writer string
	since  int64
}

// claims are the ownership claims read from a zone's metadata.
type claims struct {
	owners map[rrset.Key]claim // the winning claim per key
	mine   map[rrset.Key]int64 // this writer's claims, with their time
}

func (c claims) owner(k rrset.Key) (string, bool) {
	cl, ok := c.owners[k]
	return cl.writer, ok
}

// claimsIn reads every writer's claims from a listing of the zone's
// metadata.
func claimsIn(all []powerdns.Metadata, writer string) claims {
	out := claims{owners: make(map[rrset.Key]claim), mine: make(map[rrset.Key]int64)}
	myKind := claimKind(writer)
	for _, md := range all {
		if md.Kind == nil || !strings.HasPrefix(string(*md.Kind), claimKindPrefix) {
			continue
		}
		owner, entries := parseClaims(md.Metadata)
		if owner == "" || claimKind(owner) != string(*md.Kind) {
			continue // not a kind this library wrote
		}
		for k, since := range entries {
			if string(*md.Kind) == myKind {
				out.mine[k] = since
			}
			cur, taken := out.owners[k]
			if !taken || since < cur.since || (since == cur.since && owner < cur.writer) {
				out.owners[k] = claim{writer: owner, since: since}
			}
		}
	}
	return out
}

func parseClaims(values []string) (writer string, entries map[rrset.Key]int64) {
	entries = make(map[rrset.Key]int64, len(values))
	for _, v := range values {
		switch {
		case strings.HasPrefix(v, claimWriter):
			writer = strings.TrimPrefix(v, claimWriter)
		case strings.HasPrefix(v, claimEntry):
			f := strings.Fields(strings.TrimPrefix(v, claimEntry))
			if len(f) != 3 {
				continue
			}
			since, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				continue
			}
			entries[rrset.Key{Name: strings.ToLower(f[0]), Type: strings.ToUpper(f[1])}] = since
		}
	}
	return writer, entries
}

func claimValue(k rrset.Key, since int64) string {
	return claimEntry + k.Name + " " + k.Type + " " + strconv.FormatInt(since, 10)
}

// addClaims appends claims on keys (POST appends to a kind), so that claims
// added at the same time by another replica of the writer are kept.
func (s *syncRun) addClaims(ctx context.Context, mine map[rrset.Key]int64, keys []rrset.Key) error {
	now := s.r.cfg.clock.Now().Unix()
	var values []string
	if len(mine) == 0 {
		values = append(values, claimWriter+s.r.cfg.managedBy)
	}
	for _, k := range keys {
		if _, ok := mine[k]; ok {
			continue
		}
		mine[k] = now
		values = append(values, claimValue(k, now))
	}
	if len(values) == 0 {
		return nil
	}
	kind := powerdns.MetadataKind(claimKind(s.r.cfg.managedBy))
	s.wrote = true
	return s.call(ctx, func(ctx context.Context) error {
		_, err := s.r.client.Metadata.Create(ctx, s.zone, kind, values)
		return err
	})
}

// setClaims replaces the writer's claims with mine (removing the kind when
// nothing is left).
func (s *syncRun) setClaims(ctx context.Context, mine map[rrset.Key]int64) error {
	kind := powerdns.MetadataKind(claimKind(s.r.cfg.managedBy))
	s.wrote = true
	if len(mine) == 0 {
		return s.call(ctx, func(ctx context.Context) error {
			return s.r.client.Metadata.Delete(ctx, s.zone, kind)
		})
	}
	keys := make([]rrset.Key, 0, len(mine))
	for k := range mine {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Name != keys[j].Name {
			return keys[i].Name < keys[j].Name
		}
		return keys[i].Type < keys[j].Type
	})
	values := make([]string, 0, len(keys)+1)
	values = append(values, claimWriter+s.r.cfg.managedBy)
	for _, k := range keys {
		values = append(values, claimValue(k, mine[k]))
	}
	return s.call(ctx, func(ctx context.Context) error {
		_, err := s.r.client.Metadata.Set(ctx, s.zone, kind, values)
		return err
	})
}
