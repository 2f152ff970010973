package reconcile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/zonejson"
)

// The zone lock.
//
// PowerDNS has no conditional write: two writers that read a zone, both find
// a name free, and both PATCH it, leave only the second one's RRset, and the
// first one's write is lost without a word; on a shared SQL database
// (gpgsql) PowerDNS does not even keep a CNAME and an A written at once
// apart. So an operation that creates an RRset at a key no writer holds,
// adopts one or takes one over does it under a lock in zone metadata, with
// what PowerDNS does offer: creating and deleting a metadata kind of one
// value, which other readers see whole or not at all. Every Reconciler has
// kinds of its own, which only it writes, each stamped with its writer and
// a time:
//
//  1. The operation creates its held-lock kind X-PDNSKIT-L-<instance>-<n>,
//     then reads the zone's metadata. If another Reconciler holds a lock
//     (not abandoned), it frees its own, waits a little and tries again;
//     after WithLockWait it writes nothing: Result.Postponed. Of two
//     writers that both create and read, at least the later reader sees
//     the other, so two never hold the lock at once.
//  2. Only then it reads the zone, decides on that read and writes. A
//     writer that held the lock before it had freed it before the metadata
//     read, so had finished writing: the zone read, which starts after,
//     shows everything such a writer wrote. A zone read sent together with
//     the metadata read would not: the other writer could write and free
//     the lock between the two answers, and the write would be decided on
//     a zone without it (seen on gpgsql: a CNAME sent next to a new A).
//     With the metadata store the claims come from the same metadata read:
//     under the lock no other writer creates, adopts or takes over, so
//     every RRset of the later zone read that another writer created has
//     its claim in it.
//  3. It deletes its held-lock kind, or keeps it for the Reconciler's
//     next operation in the zone (WithLockHold, lock_hold.go).
//
// An operation that expects to create (a key it asks for was not there when
// its Reconciler last read where it would be; a key at a name it never read
// is guessed present) takes the lock before it reads; any other
// reads first, and takes the lock and reads again only when its decision
// needs the lock. An operation that finds nothing to write takes no lock: it
// costs one read of the zone (and, with the metadata store, one of the
// zone's metadata).
//
// Why updates and deletes of the writer's own RRsets take no lock: another
// writer that respects ownership never writes at a key this writer holds,
// and every rule at a name is about which types stand there together, which
// an update (same key, new data) or a delete (fewer types) cannot break
// for anyone who checked against what was there. A writer that wants to
// add a type next to them creates, so it takes the lock, and reads under it.
// Two replicas of one writer may update one RRset at once; the later write
// wins, as it would one after the other.
//
// A lock older than DefaultLockTTL belongs to an operation that died: it is
// ignored, and removed a day later.
const (
	// lockHeldPrefix + instance + "-" + sequence names a held lock; the
	// kind exists exactly while the operation holds the lock.
	lockHeldPrefix = "X-PDNSKIT-L-"
	// lockWaitPrefix + instance + "-" + sequence names a waiting kind: it
	// exists while an operation waits for another writer's lock, for the
	// holder to see (lock_hold.go). It is no lock: a writer that takes the
	// lock ignores it.
	lockWaitPrefix = "X-PDNSKIT-W-"
	lockWriter     = "writer "
	lockAt         = " at "
)

// DefaultLockTTL is how long a held lock keeps other writers out. A lock
// held longer belongs to an operation that died; it is ignored.
const DefaultLockTTL = 2 * time.Minute

// DefaultLockWait is how long an operation waits for another writer's to
// finish with the zone before it gives up and reports its changes as
// postponed.
const DefaultLockWait = 3 * time.Second

// lockGC is how long another instance's lock kinds may stay before a writer
// removes them: far longer than any operation, so only those of instances
// that died go.
const lockGC = 24 * time.Hour

// The wait between two tries of a contended lock: real time, not the
// Reconciler's clock, since what it waits for is another process.
const (
	lockRetryLeast  = 50 * time.Millisecond
	lockRetrySpread = 200 * time.Millisecond
)

// newInstance names a Reconciler's metadata kinds. Twelve hex digits keep
// every kind within the 32 characters SQL backends store for a kind.
func newInstance() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms; a fixed name
		// would still be correct for a single instance.
		return "000000000000"
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// kindSeqDigits is how many base-36 digits a kind's sequence may take so
// that the kind fits the 32 characters every SQL backend stores for it: a
// prefix of 12 characters, the instance's 12 hex digits and a dash leave 7.
const kindSeqDigits = kindColumn - len(lockHeldPrefix) - 12 - 1

// kindSeqs is how many sequences fit in kindSeqDigits: 36^7, some 78
// billion. The sequence starts over past it, reusing the names of kinds
// that, that many operations of one process earlier, are long gone.
var kindSeqs = func() uint64 {
	n := uint64(1)
	for range kindSeqDigits {
		n *= 36
	}
	return n
}()

// kind names a new metadata kind of this Reconciler with prefix, a
// 12-character one.
func (r *Reconciler) kind(prefix string) string {
	return prefix + r.instance + "-" + strings.ToUpper(strconv.FormatUint(r.seq.Add(1)%kindSeqs, 36))
}

// ownKind reports whether a lock or waiting kind is this Reconciler's.
func (r *Reconciler) ownKind(kind string) bool {
	return strings.HasPrefix(kind, lockHeldPrefix+r.instance+"-") || strings.HasPrefix(kind, lockWaitPrefix+r.instance+"-")
}

// lockStamp is the one value of a lock kind. One value is one row, which a
// reader sees whole or not at all.
func (o *op) lockStamp() []string {
	return []string{lockWriter + o.r.cfg.managedBy + lockAt + strconv.FormatInt(o.r.cfg.clock.Now().Unix(), 10)}
}

// parseStamp reads a lock kind's value: its writer and time.
func parseStamp(values []string) (writer string, at int64, ok bool) {
	if len(values) == 0 {
		return "", 0, false
	}
	v := values[len(values)-1]
	i := strings.LastIndex(v, lockAt)
	if !strings.HasPrefix(v, lockWriter) || i < len(lockWriter) {
		return "", 0, false
	}
	at, err := strconv.ParseInt(v[i+len(lockAt):], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return v[len(lockWriter):i], at, true
}

// lock is the zone lock as one operation holds it.
type lock struct {
	held  string    // the held-lock kind, "" when not held
	taken time.Time // when it was taken
	// contended is true when another writer held the lock until
	// WithLockWait ran out; holders names them.
	contended bool
	holders   []string
	// needless is true when the operation, finding the lock held by
	// another writer, read the zone without it and found nothing to
	// send: it is done, without the lock.
	needless bool
	// waiters is what the zone's metadata, read under the lock once it
	// was kept as long as it may be, showed of other writers waiting for
	// it (lock_hold.go).
	waiters waiters
}

// takeLock takes the zone lock and reads, under it, the zone (what the
// operation covers) and its metadata, waiting up to WithLockWait while
// another writer holds it; or goes on with the lock the Reconciler kept
// for the zone (lock_hold.go). The caller must call freeLock whatever it
// returns.
//
// Found held by another writer, the lock is not needed when the operation
// has nothing to send anyway (its write is blocked by what the zone
// holds): it reads the zone without the lock once, and is done when the
// decision sends nothing (lk.needless). Otherwise it leaves a waiting kind
// while it waits, for the holder to see, and deletes it when the wait
// ends.
func (o *op) takeLock(ctx context.Context) (lk *lock, z zonejson.Zone, md []powerdns.Metadata, err error) {
	lk = &lock{}
	if err := o.learnServer(ctx); err != nil {
		return lk, zonejson.Zone{}, nil, err
	}
	if h, ok := o.mem.sched.takeHeld(); ok {
		o.r.lockWaited(time.Now(), true)
		z, md, err := o.readHeld(ctx, h)
		*lk = h.lk
		return lk, z, md, err
	}
	start := time.Now()
	deadline := start.Add(o.r.cfg.lockWait)
	waiting := "" // the waiting kind, once left
	defer func() {
		o.r.lockWaited(start, err == nil && lk.held != "")
		if waiting == "" {
			return
		}
		if ctx.Err() != nil {
			// The caller gave up: the kind goes in the background, as
			// a lock would.
			go func() {
				ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
				defer cancel()
				o.r.warnLockLeft(o.zone, o.r.freeLockKind(ctx, o.zone, waiting))
			}()
			return
		}
		if derr := o.srv.dropKind(ctx, o.zone, waiting); derr != nil && err == nil {
			err = fmt.Errorf("end wait for zone lock: %w", derr)
		}
	}()
	for {
		z, md, err := o.tryLock(ctx, lk)
		if err != nil || !lk.contended {
			return lk, z, md, err
		}
		// Free the try before waiting: two writers that wait while
		// holding would wait for each other.
		if err := o.releaseLock(ctx, lk); err != nil {
			return lk, z, md, err
		}
		if waiting == "" {
			if done, err := o.decideBeside(ctx); done || err != nil {
				lk.needless = err == nil
				return lk, z, md, err
			}
			waiting = o.r.kind(lockWaitPrefix)
			if err := o.srv.addKind(ctx, o.zone, waiting, o.lockStamp()); err != nil {
				waiting = ""
				return lk, z, md, fmt.Errorf("wait for zone lock: %w", err)
			}
		}
		pause := lockRetryLeast + time.Duration(mrand.Int64N(int64(lockRetrySpread)))
		if time.Now().Add(pause).After(deadline) {
			return lk, z, md, nil
		}
		if err := sleep(ctx, pause); err != nil {
			return lk, z, md, err
		}
	}
}

// tryLock creates a held-lock kind, then reads the zone's metadata, to see
// whether another writer holds the lock, and, when none does, the zone:
// after the metadata, never with it (step 2 above).
func (o *op) tryLock(ctx context.Context, lk *lock) (zonejson.Zone, []powerdns.Metadata, error) {
	held := o.r.kind(lockHeldPrefix)
	if err := o.srv.addKind(ctx, o.zone, held, o.lockStamp()); err != nil {
		return zonejson.Zone{}, nil, fmt.Errorf("take zone lock: %w", err)
	}
	*lk = lock{held: held, taken: o.r.cfg.clock.Now()}
	md, err := o.srv.metadata(ctx, o.zone)
	if err != nil {
		return zonejson.Zone{}, nil, err
	}
	view := viewLock(md, o.r.ownKind, o.r.cfg.clock.Now(), o.r.cfg.lockTTL)
	lk.contended, lk.holders = view.contended, view.holders
	if !lk.contended && len(view.waiting) > 0 && o.mem.sched.yielding() {
		// This Reconciler just gave up a lock it kept long: a writer
		// that waits for the zone takes it first.
		lk.contended, lk.holders = true, view.waiting
	}
	for _, kind := range view.abandoned {
		_ = o.srv.dropKind(ctx, o.zone, kind)
	}
	if lk.contended {
		return zonejson.Zone{}, md, nil // the caller tries again, or postpones
	}
	z, err := o.readZone(ctx)
	if err != nil {
		return zonejson.Zone{}, nil, err
	}
	return z, md, nil
}

// sleep waits for d, or until ctx ends, when it returns ctx's error.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lockView is what the zone's metadata says about the lock.
type lockView struct {
	contended bool
	holders   []string
	// waiting names the other writers waiting for the lock.
	waiting []string
	// abandoned are other instances' lock and waiting kinds older than
	// lockGC.
	abandoned []string
}

// viewLock reads the lock and waiting kinds of other Reconcilers in md
// (own reports this one's): a lock taken less than ttl ago is contention;
// one whose value is not whole yet is too, since it is being taken now. A
// waiting kind younger than ttl is a writer waiting.
func viewLock(md []powerdns.Metadata, own func(kind string) bool, now time.Time, ttl time.Duration) lockView {
	var v lockView
	ttlSec := int64(ttl / time.Second)
	for _, m := range md {
		if m.Kind == nil {
			continue
		}
		kind := string(*m.Kind)
		held := strings.HasPrefix(kind, lockHeldPrefix)
		if !held && !strings.HasPrefix(kind, lockWaitPrefix) || own(kind) {
			continue
		}
		writer, at, ok := parseStamp(m.Metadata)
		switch {
		case !ok && !held:
			// A waiting kind not yet whole: its writer's wait has begun.
			writer = "another writer"
		case !ok:
			// Not written by this library, or not yet whole: assume the
			// worst of it.
			v.contended = true
			writer = "another writer"
		case now.Unix()-at > int64(lockGC/time.Second):
			v.abandoned = append(v.abandoned, kind)
			continue
		case now.Unix()-at >= ttlSec:
			continue
		}
		if !held {
			if !slices.Contains(v.waiting, writer) {
				v.waiting = append(v.waiting, writer)
			}
			continue
		}
		v.contended = true
		if !slices.Contains(v.holders, writer) {
			v.holders = append(v.holders, writer)
		}
	}
	return v
}

// releaseLock frees the lock.
func (o *op) releaseLock(ctx context.Context, lk *lock) error {
	if lk == nil || lk.held == "" {
		return nil
	}
	if err := dropLock(ctx, o.srv, o.zone, lk.held); err != nil {
		return err
	}
	lk.held = ""
	return nil
}

// dropLock deletes the held-lock kind, freeing the zone lock.
func dropLock(ctx context.Context, s session, zone, kind string) error {
	if err := s.dropKind(ctx, zone, kind); err != nil {
		return fmt.Errorf("free zone lock: %w", err)
	}
	return nil
}
