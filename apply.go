package reconcile

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// unit is the changes at one name. PowerDNS judges its rules per name, so a
// unit is applied or refused as a whole, and its deletes come first.
type unit struct {
	name    string
	changes []rrset.Change
	// entries are the changes as PATCH entries, built once: a unit may be
	// sent more than once while refusals are isolated.
	entries []powerdns.RRset
	size    int // bytes the entries take in a PATCH body
}

// apply sends plan, isolating what PowerDNS refuses, and keeps the
// ownership claims right when they live in zone metadata.
func (s *syncRun) apply(ctx context.Context, plan rrset.Plan, live *liveZone, store OwnershipStore) error {
	units := s.units(plan, live, store)
	if store == OwnershipMetadata {
		// Claim before writing: a crash after the claim leaves a harmless
		// claim; a crash after an unclaimed write would leave an RRset
		// nobody owns.
		if err := s.addClaims(ctx, live.claims.mine, writtenKeys(plan)); err != nil {
			return fmt.Errorf("claim ownership: %w", err)
		}
	}
	for _, batch := range s.batches(units) {
		if err := s.applyBatch(ctx, batch, live); err != nil {
			return err
		}
	}
	return nil
}

// writtenKeys are the keys plan creates or updates.
func writtenKeys(plan rrset.Plan) []rrset.Key {
	var keys []rrset.Key
	for _, c := range plan.Changes {
		if c.New != nil {
			keys = append(keys, c.New.Key())
		}
	}
	return keys
}

// units groups the plan's changes by name, in the plan's order (deletes
// first, then by name and type), and sizes each group's PATCH entries.
func (s *syncRun) units(plan rrset.Plan, live *liveZone, store OwnershipStore) []unit {
	index := make(map[string]int)
	var units []unit
	for _, c := range plan.Changes {
		name := c.Key().Name
		i, ok := index[name]
		if !ok {
			i = len(units)
			index[name] = i
			units = append(units, unit{name: name})
		}
		units[i].changes = append(units[i].changes, c)
	}
	for i := range units {
		u := &units[i]
		// Within a name, deletes first: PowerDNS accepts [DELETE A,
		// REPLACE CNAME] and refuses the reverse.
		slices.SortStableFunc(u.changes, func(a, b rrset.Change) int {
			return deleteRank(a) - deleteRank(b)
		})
		u.entries = make([]powerdns.RRset, len(u.changes))
		for j, c := range u.changes {
			u.entries[j] = s.toAPI(c, live, store)
			u.size += patchEntrySize(u.entries[j])
		}
	}
	return units
}

func deleteRank(c rrset.Change) int {
	if c.Op == rrset.OpDelete {
		return 0
	}
	return 1
}

// patchEnvelope is what a PATCH body holds besides its RRsets:
// {"rrsets":[…]} and a newline.
const patchEnvelope = len(`{"rrsets":[]}`) + 1

// batches packs units, in order, into PATCH bodies no larger than the
// server accepts; normally that is one batch.
func (s *syncRun) batches(units []unit) [][]unit {
	limit := s.r.cfg.maxPatchBytes
	var out [][]unit
	var cur []unit
	size := patchEnvelope
	for _, u := range units {
		if len(cur) > 0 && size+u.size+1 > limit {
			out = append(out, cur)
			cur, size = nil, patchEnvelope
		}
		cur = append(cur, u)
		size += u.size + 1 // the comma
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// applyBatch sends units as one PATCH. When PowerDNS refuses it, the units
// its problems name are refused and the rest is sent again; when the
// problems name none of them, the batch is bisected. A unit sent alone and
// refused is reported with the problems. Other failures end the Sync.
func (s *syncRun) applyBatch(ctx context.Context, units []unit, live *liveZone) error {
	if len(units) == 0 {
		return nil
	}
	err := s.patch(ctx, units)
	if err == nil {
		for _, u := range units {
			s.res.Applied = append(s.res.Applied, u.changes...)
		}
		return nil
	}
	apiErr, ok := isRefusal(err)
	if !ok {
		return err
	}
	if len(units) == 1 {
		s.refuse(units[0], apiErr.Problems, live)
		return nil
	}
	if apiErr.StatusCode != 413 { // a body too large names nothing
		named, rest := splitNamed(units, apiErr.Problems)
		if len(named) > 0 {
			for _, u := range named {
				s.refuse(u, problemsAbout(u.name, apiErr.Problems), live)
			}
			return s.applyBatch(ctx, rest, live)
		}
	}
	half := len(units) / 2
	if err := s.applyBatch(ctx, units[:half], live); err != nil {
		return err
	}
	return s.applyBatch(ctx, units[half:], live)
}

// splitNamed separates the units whose name a problem names.
func splitNamed(units []unit, problems []pdnserrors.Problem) (named, rest []unit) {
	names := make(map[string]bool, len(problems))
	for _, p := range problems {
		if p.Name != "" {
			names[strings.ToLower(p.Name)] = true
		}
	}
	for _, u := range units {
		if names[u.name] {
			named = append(named, u)
		} else {
			rest = append(rest, u)
		}
	}
	return named, rest
}

// problemsAbout returns the problems naming name.
func problemsAbout(name string, problems []pdnserrors.Problem) []pdnserrors.Problem {
	var out []pdnserrors.Problem
	for _, p := range problems {
		if strings.EqualFold(p.Name, name) {
			out = append(out, p)
		}
	}
	return out
}

func (s *syncRun) refuse(u unit, problems []pdnserrors.Problem, live *liveZone) {
	for _, c := range u.changes {
		s.res.Refused = append(s.res.Refused, Refusal{Change: c, Problems: problems})
	}
	s.r.remember(s.zone, u, problems, live.set)
}

// patch sends units as one PATCH, deletes first.
func (s *syncRun) patch(ctx context.Context, units []unit) error {
	n := 0
	for _, u := range units {
		n += len(u.entries)
	}
	body := &powerdns.RRsets{Sets: make([]powerdns.RRset, 0, n)}
	for _, deletes := range []bool{true, false} {
		for _, u := range units {
			for j, c := range u.changes {
				if (c.Op == rrset.OpDelete) == deletes {
					body.Sets = append(body.Sets, u.entries[j])
				}
			}
		}
	}
	s.res.Patches++
	s.wrote = true
	return s.call(ctx, func(ctx context.Context) error {
		return s.r.client.Records.Patch(ctx, s.zone, body)
	})
}

// toAPI renders a change as the API's RRset: a DELETE, or a REPLACE with
// every record enabled and, with the comment store, the writer's ownership
// comment next to the RRset's other comments.
func (s *syncRun) toAPI(c rrset.Change, live *liveZone, store OwnershipStore) powerdns.RRset {
	k := c.Key()
	out := powerdns.RRset{Name: powerdns.String(k.Name), Type: powerdns.RRTypePtr(powerdns.RRType(k.Type))}
	if c.Op == rrset.OpDelete {
		out.ChangeType = powerdns.ChangeTypePtr(powerdns.ChangeTypeDelete)
		return out
	}
	out.ChangeType = powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace)
	out.TTL = powerdns.Uint32(c.New.TTL)
	out.Records = make([]powerdns.Record, len(c.New.Records))
	for i, content := range c.New.Records {
		out.Records[i] = powerdns.Record{Content: powerdns.String(content), Disabled: powerdns.Bool(false)}
	}
	if store == OwnershipComments {
		comments := slices.Clone(live.foreign[k])
		out.Comments = append(comments, ownerComment(c.New.ManagedBy))
	}
	return out
}

// settleClaims keeps the writer's metadata claims to the RRsets it owns
// after the Sync: claims on RRsets it deleted, failed to create, or that are
// gone or won by another writer's earlier claim are released.
func (s *syncRun) settleClaims(ctx context.Context, live *liveZone) error {
	keep, changed := s.settledClaims(live)
	if !changed {
		return nil
	}
	return s.setClaims(ctx, keep)
}

// claimsUnsettled reports whether the metadata store holds claims of the
// writer that settleClaims would release even when nothing is written.
func (s *syncRun) claimsUnsettled(live *liveZone, store OwnershipStore) bool {
	if store != OwnershipMetadata {
		return false
	}
	_, changed := s.settledClaims(live)
	return changed
}

func (s *syncRun) settledClaims(live *liveZone) (keep map[rrset.Key]int64, changed bool) {
	mine := live.claims.mine
	keep = maps.Clone(mine)
	if keep == nil {
		keep = make(map[rrset.Key]int64)
	}
	disabled := make(map[rrset.Key]bool, len(live.disabled))
	for _, d := range live.disabled {
		disabled[d.Key()] = true
	}
	written := make(map[rrset.Key]bool)
	for _, c := range s.res.Applied {
		if c.Op == rrset.OpDelete {
			delete(keep, c.Key())
		} else {
			written[c.Key()] = true
		}
	}
	for k := range keep {
		if written[k] {
			continue
		}
		_, exists := live.set.Get(k)
		owner, _ := live.claims.owner(k)
		if (!exists && !disabled[k]) || owner != s.r.cfg.managedBy {
			delete(keep, k)
		}
	}
	return keep, len(keep) != len(mine)
}
