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
)

// The zone lock.
//
// PowerDNS has no conditional write: two writers that read a zone, both find
// a name free, and both PATCH it, leave only the second one's RRset, and the
// first one's write is lost without a word; on a shared SQL database
// (gpgsql) PowerDNS does not even keep a CNAME and an A written at once
// apart. So an operation that creates an RRset at a key no writer holds,
// adopts one or takes one over takes a lock in zone metadata first, with
// what PowerDNS does offer: creating and deleting a metadata kind of one
// value, which other readers see whole or not at all. Every Reconciler has
// kinds of its own, which only it writes, each stamped with its writer and
// a time:
//
//  1. The operation reads and decides.
//  2. If a change needs the lock, it creates its held-lock kind
//     X-PDNSKIT-L-<instance>-<n>, then reads the zone's metadata. If
//     another Reconciler holds a lock (not abandoned), it waits a little and
//     tries again, and after WithLockWait writes nothing: Result.Postponed.
//     Of two writers that both create and read, at least the later reader
//     sees the other, so two never write at once.
//  3. If another Reconciler held a lock or finished a write since a lock
//     TTL before the operation read the zone, that writer may have written
//     since the read: it reads again and decides anew, now that no other
//     writer can write. (The margin of a lock TTL covers the other writer's
//     operation, which holds its lock at most that long, and clocks that
//     disagree by less.)
//  4. It records that it writes (X-PDNSKIT-D-<instance>-<n>: a record of a
//     write that then fails only costs another writer a second read),
//     writes, deletes its held-lock kind, and drops its previous record.
//     One request after the other: PowerDNS 4.7 on sqlite answers
//     concurrent writes with 500 "database is locked".
//
// Why updates and deletes of the writer's own RRsets take no lock: another
// writer that respects ownership never writes at a key this writer holds,
// and every rule at a name is about which types stand there together, which
// an update (same key, new data) or a delete (fewer types) cannot break
// for anyone who checked against what was there. A writer that wants to
// add a type next to them creates, so it takes the lock, and reads again if
// it may have missed a write. Two replicas of one writer may update one
// RRset at once; the later write wins, as it would one after the other.
//
// An operation that finds nothing to write takes no lock: it costs one read
// of the zone (and, with the metadata store, one of the zone's metadata).
const (
	// lockHeldPrefix + instance + "-" + sequence names a held lock; the
	// kind exists exactly while the operation holds the lock.
	lockHeldPrefix = "X-PDNSKIT-L-"
	// lockDonePrefix + instance + "-" + sequence records that an operation
	// of the instance wrote under the lock.
	lockDonePrefix = "X-PDNSKIT-D-"
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

// kind names a new metadata kind of this Reconciler with prefix.
func (r *Reconciler) kind(prefix string) string {
	return prefix + r.instance + "-" + strings.ToUpper(strconv.FormatUint(r.seq.Add(1), 36))
}

// ownKind reports whether kind (of any prefix of this file or claims.go) was
// created by this Reconciler.
func (r *Reconciler) ownKind(kind string) bool {
	for _, p := range []string{lockHeldPrefix, lockDonePrefix} {
		if strings.HasPrefix(kind, p) {
			return strings.HasPrefix(kind[len(p):], r.instance+"-")
		}
	}
	return false
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
	held string // the held-lock kind, "" when not held
	done string // the finish record, once one was sent
	// keep leaves the held lock in place: the write under it could not be
	// recorded, so other writers must wait for its TTL rather than miss it.
	keep bool
	// contended is true when another writer holds the lock; holders names
	// them.
	contended bool
	holders   []string
	// stale is true when another writer may have written since the zone
	// was read.
	stale bool
}

// takeLock takes the zone lock, waiting up to WithLockWait while another
// writer holds it. The caller must call releaseLock whatever it returns.
func (o *op) takeLock(ctx context.Context, readAt time.Time) (*lock, error) {
	deadline := time.Now().Add(o.r.cfg.lockWait)
	lk := &lock{}
	for {
		if err := o.tryLock(ctx, lk, readAt); err != nil || !lk.contended {
			return lk, err
		}
		// Free the try before waiting: two writers that wait while
		// holding would wait for each other.
		if err := o.releaseLock(ctx, lk); err != nil {
			return lk, err
		}
		wait := lockRetryLeast + time.Duration(mrand.Int64N(int64(lockRetrySpread)))
		if time.Now().Add(wait).After(deadline) {
			return lk, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return lk, ctx.Err()
		case <-t.C:
		}
	}
}

// tryLock creates a held-lock kind and reads the zone's metadata, to see
// whether another writer holds the lock, or held or finished a write since
// a lock TTL before readAt.
func (o *op) tryLock(ctx context.Context, lk *lock, readAt time.Time) error {
	held := o.r.kind(lockHeldPrefix)
	if err := o.srv.addKind(ctx, o.zone, held, o.lockStamp()); err != nil {
		return fmt.Errorf("take zone lock: %w", err)
	}
	*lk = lock{held: held}
	md, err := o.srv.metadata(ctx, o.zone)
	if err != nil {
		return err
	}
	view := viewLock(md, o.r.ownKind, o.r.cfg.clock.Now(), readAt, o.r.cfg.lockTTL)
	lk.contended, lk.holders, lk.stale = view.contended, view.holders, view.stale
	for _, kind := range view.abandoned {
		_ = o.srv.dropKind(ctx, o.zone, kind)
	}
	return nil
}

// lockView is what the zone's metadata says about the lock.
type lockView struct {
	contended bool
	holders   []string
	stale     bool
	// abandoned are other instances' lock kinds older than lockGC.
	abandoned []string
}

// viewLock reads the lock kinds of other Reconcilers in md (own reports
// this one's): a lock held less than ttl ago is contention, and a lock
// held or a write finished since ttl before readAt makes the read stale.
func viewLock(md []powerdns.Metadata, own func(kind string) bool, now, readAt time.Time, ttl time.Duration) lockView {
	var v lockView
	ttlSec := int64(ttl / time.Second)
	since := readAt.Unix() - ttlSec
	for _, m := range md {
		if m.Kind == nil {
			continue
		}
		kind := string(*m.Kind)
		isHeld := strings.HasPrefix(kind, lockHeldPrefix)
		if !isHeld && !strings.HasPrefix(kind, lockDonePrefix) || own(kind) {
			continue
		}
		writer, at, ok := parseStamp(m.Metadata)
		if !ok {
			// Not written by this library, or not yet whole: assume the
			// worst of it.
			v.stale = true
			continue
		}
		if isHeld && now.Unix()-at < ttlSec {
			v.contended = true
			if !slices.Contains(v.holders, writer) {
				v.holders = append(v.holders, writer)
			}
		}
		if at >= since {
			v.stale = true
		}
		if now.Unix()-at > int64(lockGC/time.Second) {
			v.abandoned = append(v.abandoned, kind)
		}
	}
	return v
}

// recordWrite sends the record that this operation writes under the lock.
func (o *op) recordWrite(ctx context.Context, lk *lock) error {
	done := o.r.kind(lockDonePrefix)
	if err := o.srv.addKind(ctx, o.zone, done, o.lockStamp()); err != nil {
		return fmt.Errorf("record the zone write: %w", err)
	}
	lk.done = done
	return nil
}

// releaseLock frees the lock and drops this Reconciler's previous finish
// record for the zone, which the new one replaces. A lock whose write was
// not recorded stays held: other writers wait for its TTL rather than miss
// a write.
func (o *op) releaseLock(ctx context.Context, lk *lock) error {
	if lk == nil || lk.held == "" || lk.keep {
		return nil
	}
	if err := o.srv.dropKind(ctx, o.zone, lk.held); err != nil {
		return fmt.Errorf("free zone lock: %w", err)
	}
	lk.held = ""
	if lk.done != "" {
		prev := o.mem.lastDone
		o.mem.lastDone = lk.done
		if prev != "" {
			_ = o.srv.dropKind(ctx, o.zone, prev)
		}
	}
	return nil
}
