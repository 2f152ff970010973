package reconcile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/rrset"
)

// syncRun is the state of one Sync of one zone.
type syncRun struct {
	r    *Reconciler
	zone string
	res  Result
	// unlock ends the Sync's turn at the zone in this Reconciler;
	// release takes it over when it frees the zone lock in the background.
	unlock   func()
	detached bool
	// lockSeq numbers the zone lock this Sync took, if locked; wrote is
	// true once it sent a write under it.
	lockSeq uint64
	locked  bool
	wrote   bool
	// dry is true for Plan: nothing is written or remembered.
	dry bool
}

// call makes one API call through go-powerdns, retrying transient failures
// within the Reconciler's retry bounds; the error it returns carries every
// problem PowerDNS reported (a *pdnserrors.APIError) or the transport's.
func (s *syncRun) call(ctx context.Context, fn func(ctx context.Context) error) error {
	opts := append([]backoff.RetryOption{backoff.WithClock(s.r.cfg.clock)}, s.r.cfg.retry...)
	return backoff.Retry(ctx, func(ctx context.Context) error {
		s.res.Requests++
		return pdnsapi.Call(ctx, fn)
	}, opts...)
}

// Sync makes zone hold the desired RRsets of this Reconciler's writer:
//
//  1. it reads the zone once, and turns desired and live into rrset Sets
//     (two spellings of one key in desired with different data are an
//     error, and nothing is written);
//  2. it diffs them and checks the changes with package conflict, so a
//     write that would collide with other data or another writer's RRset
//     is blocked before PowerDNS sees it (Result.Blocked);
//  3. it holds back deletes that have not passed the sustained-absence gate
//     or would trip the delete guard (Result.Deferred);
//  4. it sends every allowed change in one atomic PATCH, deletes first,
//     split only when larger than the server accepts;
//  5. if PowerDNS still refuses (another writer changed the zone since the
//     read), it isolates the refused RRsets, applies the rest and reports
//     the refused ones with their problems (Result.Refused). A refused
//     change is not sent again until it or the data at its name changes.
//
// Every desired RRset is stamped with the Reconciler's writer. A nil error
// means every change was applied, blocked or deferred on purpose; transport
// and server failures are errors classified by package errors, and bad
// input is an *InputError. Result.RequeueAfter says when to sync again.
//
// Sync returns when ctx ends, also while waiting for another Sync of the
// zone by this Reconciler or for a server that does not answer; a zone lock
// it holds then is freed in the background, within five seconds.
func (r *Reconciler) Sync(ctx context.Context, zone string, desired []rrset.RRset, opts ...SyncOption) (Result, error) {
	s, sc, err := r.newRun(zone, opts)
	if err != nil {
		return Result{Zone: zone}, err
	}
	canonical := s.zone
	if s.unlock, err = r.lockZone(ctx, canonical); err != nil {
		err = fmt.Errorf("sync %s: %w", canonical, err)
		s.res.RequeueAfter = r.requeueAfter(canonical, &s.res, err)
		return s.res, err
	}
	defer func() {
		if !s.detached {
			s.unlock()
		}
	}()

	err = s.run(ctx, desired, sc)
	s.res.RequeueAfter = r.requeueAfter(canonical, &s.res, err)
	return s.res, err
}

// newRun starts a Sync or a Plan of zone: the zone's canonical name, the
// options applied. A zone name that is not one is an *InputError.
func (r *Reconciler) newRun(zone string, opts []SyncOption) (*syncRun, syncConfig, error) {
	var sc syncConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&sc)
		}
	}
	canonical, err := rrset.CanonicalZone(zone)
	if err != nil {
		return nil, sc, &InputError{Zone: zone, Err: err}
	}
	return &syncRun{r: r, zone: canonical, res: Result{Zone: canonical}}, sc, nil
}

func (s *syncRun) run(ctx context.Context, desired []rrset.RRset, sc syncConfig) (err error) {
	r := s.r
	// Canonicalising the desired RRsets needs no answer from PowerDNS: do
	// it while the zone is read. Bad input is still an error before
	// anything is written.
	wanted := make(chan desiredResult, 1)
	go func() {
		set, err := desiredSet(s.zone, r.cfg.managedBy, desired)
		wanted <- desiredResult{set, err}
	}()
	live, store, readAt, err := s.readAll(ctx)
	w := <-wanted
	if w.err != nil {
		return w.err
	}
	if err != nil {
		return err
	}
	want := w.set
	held := r.holdDeletes(s.zone, want, live.set, sc, false)
	plan := s.plan(want, held, live)
	if len(plan.Changes) == 0 && !s.claimsUnsettled(live, store) {
		return nil
	}

	lock, err := s.acquire(ctx, readAt)
	defer s.release(ctx, &err)
	if err == nil && lock.contended {
		lock, err = s.awaitLock(ctx, readAt)
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", s.zone, err)
	}
	if lock.contended {
		s.res.Postponed = plan.Changes
		s.res.PostponedFor = lock.holders
		return nil
	}
	if lock.stale {
		// Another writer wrote since the read: read again and plan anew,
		// now that no other writer can write.
		if live, err = s.read(ctx, lock.metadata); err != nil {
			return fmt.Errorf("sync %s: %w", s.zone, err)
		}
		s.res.Refused = nil
		held = r.recheckHolds(live.set, held)
		plan = s.plan(want, held, live)
	}
	if len(plan.Changes) > 0 {
		if err = s.apply(ctx, plan, live, store); err != nil {
			return fmt.Errorf("sync %s: %w", s.zone, err)
		}
	}
	if store == OwnershipMetadata {
		if err = s.settleClaims(ctx, live); err != nil {
			return fmt.Errorf("sync %s: release ownership claims: %w", s.zone, err)
		}
	}
	return nil
}

type desiredResult struct {
	set *rrset.Set
	err error
}

// readAll learns the server's ownership store (once per Reconciler) and
// reads the zone: with the metadata store, its metadata first, where the
// ownership is; with comments, the zone alone. readAt is when the read
// began, for the zone lock.
func (s *syncRun) readAll(ctx context.Context) (live *liveZone, store OwnershipStore, readAt time.Time, err error) {
	store, err = s.r.ownershipStore(ctx, s)
	if err != nil {
		return nil, store, readAt, fmt.Errorf("%s %s: detect ownership store: %w", s.verb(), s.zone, err)
	}
	var md []powerdns.Metadata
	if store == OwnershipMetadata {
		if md, err = s.listMetadata(ctx); err != nil {
			return nil, store, readAt, fmt.Errorf("%s %s: %w", s.verb(), s.zone, err)
		}
	}
	readAt = s.r.cfg.clock.Now()
	if live, err = s.read(ctx, md); err != nil {
		return nil, store, readAt, fmt.Errorf("%s %s: %w", s.verb(), s.zone, err)
	}
	return live, store, readAt, nil
}

// verb names what the run is, for error messages.
func (s *syncRun) verb() string {
	if s.dry {
		return "plan"
	}
	return "sync"
}

// plan checks the desired Set, with the held-back deletes kept in it,
// against the live zone, and returns what may be sent: what conflict.Check
// allows, without the changes PowerDNS refused before and nothing has
// changed since.
func (s *syncRun) plan(want *rrset.Set, held []Deferral, live *liveZone) rrset.Plan {
	r := s.r
	withHeld := want
	if len(held) > 0 {
		withHeld = cloneSet(want)
		for _, d := range held {
			// Held RRsets are still wanted, for now: Diff leaves them
			// alone and conflict.Check sees them where they are.
			_ = withHeld.Add(d.RRset)
		}
	}
	checked := conflict.Check(withHeld, live.set, r.cfg.managedBy,
		conflict.WithPolicy(r.cfg.policy),
		conflict.WithAdoption(r.cfg.adopt),
		conflict.WithDisabledLive(live.disabled...),
	)
	s.res.Blocked = checked.Conflicts
	s.res.Deferred = withoutTakenOver(held, checked.Plan)
	return r.skipRemembered(s.zone, checked.Plan, live.set, &s.res, s.dry)
}

// releaseBound bounds freeing the zone lock after the caller gave up.
const releaseBound = 5 * time.Second

// release frees the zone lock. A failure to is reported only when the Sync
// has no error of its own: a lock left held is ignored by other writers
// after DefaultLockTTL.
func (s *syncRun) release(ctx context.Context, errp *error) {
	if ctx.Err() != nil {
		// The caller gave up and must not wait for a server that may not
		// answer: free the lock in the background, within releaseBound,
		// keeping the zone's turn in this Reconciler until then so that
		// no Sync of the zone takes the lock meanwhile.
		s.detached = true
		bg := &syncRun{r: s.r, zone: s.zone, lockSeq: s.lockSeq, locked: s.locked, wrote: s.wrote}
		go func() {
			defer s.unlock()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
			defer cancel()
			_ = bg.releaseLock(ctx)
		}()
		return
	}
	if err := s.releaseLock(ctx); err != nil && *errp == nil {
		*errp = fmt.Errorf("sync %s: %w", s.zone, err)
	}
}

func cloneSet(s *rrset.Set) *rrset.Set {
	out, _ := rrset.NewSet(s.Zone())
	out.Grow(s.Len())
	for rr := range s.Unordered() {
		_ = out.Add(rr)
	}
	return out
}

// withoutTakenOver drops the deferrals of RRsets the plan deletes anyway: a
// takeover replaces a held RRset in the same PATCH as the write that needs
// its place.
func withoutTakenOver(deferred []Deferral, plan rrset.Plan) []Deferral {
	if len(deferred) == 0 {
		return deferred
	}
	deleted := make(map[rrset.Key]bool)
	for _, c := range plan.Changes {
		if c.Op == rrset.OpDelete {
			deleted[c.Key()] = true
		}
	}
	out := deferred[:0]
	for _, d := range deferred {
		if !deleted[d.RRset.Key()] {
			out = append(out, d)
		}
	}
	return out
}

// InputError is bad input to Sync: a zone or desired RRset that cannot be
// written. Nothing was written.
type InputError struct {
	Zone string
	Err  error
}

func (e *InputError) Error() string { return "reconcile: zone " + e.Zone + ": " + e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// desiredSet canonicalises desired into a Set stamped with writer. Two
// spellings of one key are fine when their data is equal, an error when it
// differs.
func desiredSet(zone, writer string, desired []rrset.RRset) (*rrset.Set, error) {
	set, err := rrset.NewSet(zone)
	if err != nil {
		return nil, &InputError{Zone: zone, Err: err}
	}
	set.Grow(len(desired))
	for _, d := range desired {
		// Canonicalise again: an RRset literal, or one made for another
		// spelling of the zone, must still compare equal to what PowerDNS
		// returns.
		rr, err := rrset.New(zone, d.Name, d.Type, d.TTL, d.Records...)
		if err != nil {
			return nil, &InputError{Zone: zone, Err: err}
		}
		rr.ManagedBy = writer
		if err := set.Add(rr); err != nil {
			var dup *rrset.DuplicateError
			if errors.As(err, &dup) && dup.Existing.EqualData(rr) {
				continue
			}
			return nil, &InputError{Zone: zone, Err: err}
		}
	}
	return set, nil
}

// requeueAfter decides Result.RequeueAfter from how the Sync ended.
func (r *Reconciler) requeueAfter(zone string, res *Result, err error) time.Duration {
	switch {
	case err != nil:
		// Transient failures back off per zone; bad input and PowerDNS
		// refusing the whole request (401, 404) wait the refusal interval.
		return r.requeue.After(zone, err)
	case len(res.Refused) > 0 || len(res.Blocked) > 0:
		return r.requeue.After(zone, errRefusedOrBlocked)
	case len(res.Postponed) > 0:
		// Another writer holds the zone for a moment: come back soon, at a
		// jittered time so that two writers do not meet again.
		r.requeue.After(zone, nil)
		return postponePace + time.Duration(rand.Int64N(int64(postponePace)))
	case res.pending():
		r.requeue.After(zone, nil)
		return r.deferPace()
	default:
		return r.requeue.After(zone, nil)
	}
}

// postponePace is the least wait after a Sync postponed for another writer's.
const postponePace = time.Second

// errRefusedOrBlocked stands for a Sync that wrote what it could and was
// refused the rest: permanent until something changes.
var errRefusedOrBlocked = errors.New("a write was refused or blocked")

// deferPace is how often to sync while deletes wait for the gate: it opens
// after deleteChecks syncs spanning deleteSpan, so syncing every
// span/(checks-1) lets it open as soon as it can.
func (r *Reconciler) deferPace() time.Duration {
	if r.cfg.deleteChecks <= 1 {
		return max(r.cfg.deleteSpan, minDeferPace)
	}
	return max(r.cfg.deleteSpan/time.Duration(r.cfg.deleteChecks-1), minDeferPace)
}

// isRefusal reports whether err is PowerDNS refusing the content of a PATCH
// (as opposed to the request failing), and so can be isolated to RRsets.
func isRefusal(err error) (*pdnserrors.APIError, bool) {
	apiErr, ok := pdnserrors.AsAPIError(err)
	if !ok {
		return nil, false
	}
	switch apiErr.StatusCode {
	case 400, 413, 422:
		return apiErr, true
	}
	return nil, false
}
