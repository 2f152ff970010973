package reconcile

import (
	"context"
	"fmt"
	"slices"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/claimrec"
	"github.com/pdnskit/reconcile/rrset"
)

// apply sends a decision's changes and returns those PowerDNS accepted:
//
//   - with the metadata store, the claims on what it writes go first (a
//     crash after the claim leaves a harmless claim; one after an unclaimed
//     write would leave an RRset nobody owns), and a change of ownership
//     alone (adoption, handover) needs no PATCH at all;
//   - the PATCHes, deletes first, split only when larger than the server
//     accepts;
//   - refusals isolated to the RRsets PowerDNS names, reported and
//     remembered;
//   - with the metadata store, the releases of what it deleted, and the
//     upkeep of the writer's claim records.
func (o *op) apply(ctx context.Context, obs *observation, d decision) ([]rrset.Change, error) {
	applied, err := o.send(ctx, obs, d.plan.Changes)
	o.res.Applied = applied
	if len(applied) > 0 {
		// Verify tells answers caches may still hold from drift by when
		// the RRsets were written.
		keys := make([]rrset.Key, len(applied))
		for i, c := range applied {
			keys[i] = c.Key()
		}
		o.r.writes.noteWritten(o.zone, keys, o.r.cfg.clock.Now())
	}
	if o.store == OwnershipMetadata {
		if rerr := o.release(ctx, obs, applied); rerr != nil && err == nil {
			err = fmt.Errorf("release ownership claims: %w", rerr)
		}
	}
	return applied, err
}

// send writes changes: claims, then PATCHes.
func (o *op) send(ctx context.Context, obs *observation, changes []rrset.Change) ([]rrset.Change, error) {
	var applied []rrset.Change
	if o.store == OwnershipMetadata {
		if err := o.claim(ctx, obs, changes); err != nil {
			return nil, fmt.Errorf("claim ownership: %w", err)
		}
		changes, applied = splitOwnershipOnly(changes)
	}
	if len(changes) == 0 {
		return applied, nil
	}
	comments := o.store == OwnershipComments
	us := units(changes, func(c rrset.Change) powerdns.RRset {
		return patchEntry(c, dropAccounts(obs.foreign[c.Key()], o.r.cfg.replaced), comments)
	})
	patch := func(ctx context.Context, rrsets []powerdns.RRset) error { return o.srv.patch(ctx, o.zone, rrsets) }
	var out outcome
	var err error
	for _, b := range batches(us, o.r.cfg.maxPatchBytes) {
		if err = sendBatch(ctx, b, patch, &out); err != nil {
			break
		}
	}
	for _, ref := range out.refused {
		for _, c := range ref.unit.changes {
			o.res.Refused = append(o.res.Refused, Refusal{Change: c, Problems: ref.problems})
		}
		o.mem.remember(ref.unit.changes, ref.problems, obs.set)
	}
	return append(applied, out.applied...), err
}

// splitOwnershipOnly separates the changes that only record a new owner
// (the data is what PowerDNS holds): with the metadata store their claim
// is all there is to write.
func splitOwnershipOnly(changes []rrset.Change) (data, ownershipOnly []rrset.Change) {
	for _, c := range changes {
		if c.Op == rrset.OpUpdate && c.Old.EqualData(*c.New) {
			ownershipOnly = append(ownershipOnly, c)
		} else {
			data = append(data, c)
		}
	}
	return data, ownershipOnly
}

// claim posts one claim record for the RRsets changes write that the
// writer does not hold yet for their owner.
func (o *op) claim(ctx context.Context, obs *observation, changes []rrset.Change) error {
	var written []*rrset.RRset
	for _, c := range changes {
		if c.New != nil {
			written = append(written, c.New)
		}
	}
	rec := obs.claims.claims(written, o.r.cfg.clock.Now().UnixNano())
	if rec == nil {
		return nil
	}
	posted, err := o.postRecords(ctx, claimrec.ClaimPrefix, rec)
	o.freshClaimRecords += posted
	return err
}

// postRecords posts a record as one new kind of prefix, or as several when
// one POST would exceed the body limit (splitRecord), and returns how many
// kinds it posted.
func (o *op) postRecords(ctx context.Context, prefix string, rec *claimrec.Record) (int, error) {
	limit := o.r.cfg.maxPatchBytes
	values := rec.Values(valueBudget(limit))
	posted := 0
	for _, part := range splitRecord(values, limit) {
		if err := o.srv.addKind(ctx, o.zone, o.r.kind(prefix), part); err != nil {
			return posted, err
		}
		posted++
	}
	return posted, nil
}

// claimsToSettle reports whether the writer has claims to release within
// what the operation covers although it writes nothing.
func (o *op) claimsToSettle(obs *observation, applied []rrset.Change) bool {
	return o.store == OwnershipMetadata && len(o.staleClaims(obs, applied)) > 0
}

// staleClaims are the writer's claims, within what the operation covers,
// on RRsets it does not hold once applied is applied: deleted by it, or gone
// or claimed later by another writer at least a lock TTL ago (a younger
// claim on an RRset not there may be another replica's write in progress,
// which holds the lock that long at most).
func (o *op) staleClaims(obs *observation, applied []rrset.Change) []rrset.Key {
	writer := o.r.cfg.managedBy
	written := make(map[rrset.Key]bool)
	deleted := make(map[rrset.Key]bool)
	for _, c := range applied {
		if c.Op == rrset.OpDelete {
			deleted[c.Key()] = true
		} else {
			written[c.Key()] = true
		}
	}
	held := func(k rrset.Key) bool {
		if !o.scope.covers(k) || !o.in.inScope(k) {
			return true // not ours to judge here
		}
		if written[k] {
			return true
		}
		if deleted[k] {
			return false
		}
		if rr, ok := obs.set.Get(k); ok {
			return rr.ManagedBy == writer
		}
		for _, rr := range obs.disabled {
			if rr.Key() == k {
				return rr.ManagedBy == writer
			}
		}
		return false
	}
	keys := obs.claims.stale(held, o.r.cfg.clock.Now().Add(-o.r.cfg.lockTTL).UnixNano())
	for k := range deleted {
		if len(obs.claims.mine[k]) > 0 && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// release posts one release record for the writer's claims that applied
// ended (its deletes, and the older claims of RRsets handed over) and for
// its stale claims, then keeps its records few (ownership_claims.go).
func (o *op) release(ctx context.Context, obs *observation, applied []rrset.Change) error {
	keys := o.staleClaims(obs, applied)
	for _, c := range applied {
		handover := c.Op == rrset.OpUpdate && c.New.Owner != "" && c.Old.Owner != c.New.Owner && c.Old.ManagedBy == c.New.ManagedBy
		if handover {
			keys = append(keys, c.Key())
		}
	}
	rec := obs.claims.releases(keys)
	if rec != nil {
		if _, err := o.postRecords(ctx, claimrec.ReleasePrefix, rec); err != nil {
			return err
		}
	}
	// Upkeep goes with the writes that change the writer's records: one
	// that posts none (an update, most of a per-object controller's
	// writes) leaves them as the last such write did, tidy, and skips
	// reading every claim of the zone to find so. What a write cut short
	// left untidy goes with the next that posts a record.
	if rec == nil && o.freshClaimRecords == 0 && obs.claims.claimRecords() <= maxClaimRecords {
		return nil
	}
	t := obs.claims.tidying(keys, o.freshClaimRecords)
	if t.merged != nil {
		if _, err := o.postRecords(ctx, claimrec.ClaimPrefix, t.merged); err != nil {
			return err
		}
	}
	for _, kind := range t.drop {
		if err := o.srv.dropKind(ctx, o.zone, kind); err != nil {
			return err
		}
	}
	return nil
}
