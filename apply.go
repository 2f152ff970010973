package reconcile

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/rrset"
)

// Apply makes the zone hold rr as this writer's RRset.
//
// It is for controllers that reconcile one object per RRset: it makes every
// check Sync makes (canonical names and contents, conflict rules against all
// data at rr's name, ownership, the refusal memory, isolation), reading only
// what it needs — the RRsets at rr's name, through PowerDNS's rrset_name
// filter — and never touching another key, at rr's name or elsewhere.
//
// As for Sync and Remove, the Result is valid with an error: a
// controller-runtime Reconcile publishes ConditionFor(res, err) in its
// status and returns ctrl.Result{RequeueAfter: res.RequeueAfter} with a nil
// error (see Result for why).
//
// Cost: an RRset already as asked takes one request and no PATCH; an update
// of the writer's own RRset a read and a PATCH (one more read where
// ownership lives in zone metadata). Creating at a key no writer holds,
// adopting or taking over also takes the zone lock, and reads under it what
// a batch would (below): the whole zone, in one request, which also covers
// the names above rr's, where an NS or a DNAME would hide it
// (conflict.Occluded); in a zone the Reconciler has seen hold 1,000 RRsets
// or more, rr's name and the names above it, one request each (the whole
// zone for a create of an NS or a DNAME below the apex, for the data it
// would hide). A create alone costs four requests: the lock (two), the
// read, the PATCH; five with ownership in zone metadata (the claim). The
// lock is kept for WithLockHold and freed after (one request more), so
// that each create of a run costs two: the read and the PATCH (four with
// metadata: its read, and the claim). The first create at a name the
// Reconciler never read costs the read of that name more (and of the
// metadata, where ownership lives there), made before the lock.
//
// Operations on one zone take turns within a Reconciler, but an Apply that
// has nothing to send does not wait for them: while another operation of
// the zone is writing, it reads its name and, when the RRset is as asked
// (or the write is blocked before PowerDNS would see it), returns at once.
// One that writes waits for its turn and reads again in it.
//
// Applies that wait for the turn together are carried out together when it
// comes (group commit): one read (of the zone, or of their names in a
// large zone), the zone lock once if any of them needs it, and one PATCH,
// split only by the body limit; each caller
// gets its own Result, and a refusal by PowerDNS is isolated to the caller
// whose RRset caused it. Applies whose names are related (one name, or one
// below the other) are never in one batch: the later waits for the next,
// and is decided after the earlier as if it came alone.
func (r *Reconciler) Apply(ctx context.Context, zone string, rr rrset.RRset, opts ...ApplyOption) (res Result, err error) {
	defer r.observed(OperationApply, zone, time.Now(), &res, &err)
	rc := newApplyConfig(opts)
	canonical, err := canonicalZone(zone)
	if err != nil {
		return Result{Zone: zone}, err
	}
	st, err := newStamp(canonical, r.cfg.managedBy, rc.owner)
	if err != nil {
		return Result{Zone: canonical}, err
	}
	z, err := rrset.ParseZone(canonical)
	if err != nil {
		return Result{Zone: canonical}, &InputError{Zone: canonical, Err: err}
	}
	want, err := st.canonicalRRset(z, rr)
	if err != nil {
		return Result{Zone: canonical}, err
	}
	desired, _ := rrset.NewSet(canonical)
	_ = desired.Add(want)
	in := intent{desired: desired, keys: []rrset.Key{want.Key()}}
	o := r.newOp("apply", canonical, in, readScope{name: want.Name}, writes)
	o.batches = true
	return o.do(ctx, o.run)
}

// Remove deletes the writer's RRset at key at once: an explicit delete is
// not an absence, so no deletion gate or delete guard applies. It is
// idempotent: an absent RRset is Programmed, with no PATCH. Another writer's
// RRset is Blocked (conflict.NotOwner); one no writer holds is Blocked
// (conflict.Unowned) unless the Reconciler adopts (WithAdoption), when it is
// deleted. With WithOwner(ref), Remove deletes the RRset only while no other
// object of the writer is recorded as its owner: an object that lost the
// RRset to another (a handover) does not delete it from under that one, and
// has nothing left to remove.
//
// The zone apex's SOA and NS RRsets are never deleted: a Remove of either
// is Blocked (conflict.ApexRequired, condition reason InvalidInput, the
// refusal requeue interval) with no PATCH, since a zone without its SOA is
// one PowerDNS no longer serves and DeleteZone refuses. An object that
// manages the apex (an "soa" or "ns" record set) changes its contents
// through Apply; when it goes, the zone keeps them until DeleteZone, so a
// controller lets such an object go on ApexRequired.
//
// As for Sync and Apply, the Result is valid with an error: a
// controller-runtime Reconcile publishes ConditionFor(res, err) in its
// status and returns ctrl.Result{RequeueAfter: res.RequeueAfter} with a nil
// error (see Result for why).
func (r *Reconciler) Remove(ctx context.Context, zone string, key rrset.Key, opts ...RemoveOption) (res Result, err error) {
	defer r.observed(OperationRemove, zone, time.Now(), &res, &err)
	rc := newRemoveConfig(opts)
	canonical, err := canonicalZone(zone)
	if err != nil {
		return Result{Zone: zone}, err
	}
	k, err := canonicalKey(canonical, key)
	if err != nil {
		return Result{Zone: canonical}, err
	}
	if err := checkOwner(rc.owner); err != nil {
		return Result{Zone: canonical}, &InputError{Zone: canonical, Err: err}
	}
	desired, _ := rrset.NewSet(canonical)
	in := intent{desired: desired, keys: []rrset.Key{k}, deletes: deleteNow, owner: rc.owner}
	o := r.newOp("remove", canonical, in, readScope{name: k.Name, typ: k.Type}, writes)
	return o.do(ctx, o.run)
}

// canonicalKey spells key as the zone's Set would.
func canonicalKey(zone string, key rrset.Key) (rrset.Key, error) {
	name, err := rrset.CanonicalName(zone, key.Name)
	if err != nil {
		return rrset.Key{}, &InputError{Zone: zone, Err: err}
	}
	typ := strings.ToUpper(strings.TrimSpace(key.Type))
	if typ == "" || strings.ContainsFunc(typ, func(c rune) bool { return (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' }) {
		return rrset.Key{}, &InputError{Zone: zone, Err: fmt.Errorf("type %q is not a type mnemonic", key.Type)}
	}
	return rrset.Key{Name: name, Type: typ}, nil
}
