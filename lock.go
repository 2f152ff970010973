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
	"sync/atomic"
	"time"

	"github.com/joeig/go-powerdns/v3"
)

// The zone write lock.
//
// PowerDNS has no conditional write: two writers that read a zone, both find
// a name free, and both PATCH it, leave only the second one's RRset, and the
// first one's write is lost without a word. So a Sync that writes takes a
// lock in zone metadata first, with what PowerDNS does offer: creating and
// deleting a metadata kind of one value, which other readers see whole or
// not at all (a PUT is not: PowerDNS deletes the old values, then inserts
// the new ones). Every Reconciler instance has kinds of its own, which only
// it writes, each stamped with its writer and a time:
//
//  1. A Sync reads the zone and plans.
//  2. If it has something to write, it creates its held-lock kind
//     X-PDNSKIT-L-<instance>-<n>, then reads the zone's metadata. If
//     another instance holds a lock (not abandoned), it writes nothing:
//     Result.Postponed. Of two writers that both create and read, at least
//     the later reader sees the other, so two never write at once.
//  3. If another instance held a lock or finished a write since a lock TTL
//     before the Sync read the zone, that writer may have written since
//     the read: it reads the zone again and plans anew. (The margin of a
//     lock TTL covers the other writer's Sync, which holds its lock at
//     most that long, and clocks that disagree by less.)
//  4. It writes, records that it finished (X-PDNSKIT-D-<instance>-<n>),
//     deletes its held-lock kind, and drops its previous finish record.
//
// A Sync that finds nothing to write takes no lock: it costs one read of the
// zone (and, with the metadata store, one of the zone's metadata). A writer
// alone in its zones never reads a zone twice.
const (
	// lockHeldPrefix + instance + "-" + sequence names a held lock; the
	// kind exists exactly while the Sync holds the lock.
	lockHeldPrefix = "X-PDNSKIT-L-"
	// lockDonePrefix + instance + "-" + sequence records that a Sync of
	// the instance wrote and finished.
	lockDonePrefix = "X-PDNSKIT-D-"
	lockWriter     = "writer "
	lockAt         = " at "
)

// DefaultLockTTL is how long a held lock keeps other writers out. A lock
// held longer belongs to a Sync that died; it is ignored.
const DefaultLockTTL = 2 * time.Minute

// lockGC is how long another instance's lock kinds may stay before a writer
// removes them: far longer than any Sync, so only those of instances that
// died go.
const lockGC = 24 * time.Hour

// newInstance names a Reconciler's lock kinds. Twelve hex digits keep every
// lock kind within the 32 characters SQL backends store for a kind.
func newInstance() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms; a fixed name
		// would still be correct for a single instance.
		return "000000000000"
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// lockSeqs numbers the Syncs that take a lock, so that every lock kind an
// instance creates is new.
var lockSeqs atomic.Uint64

func (r *Reconciler) lockKind(prefix string, seq uint64) string {
	return prefix + r.instance + "-" + strings.ToUpper(strconv.FormatUint(seq, 36))
}

// lockStamp is the one value of a lock kind. One value is one row, which a
// reader sees whole or not at all.
func (s *syncRun) lockStamp() []string {
	return []string{lockWriter + s.r.cfg.managedBy + lockAt + strconv.FormatInt(s.r.cfg.clock.Now().Unix(), 10)}
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

// lockOutcome is what taking the lock found.
type lockOutcome struct {
	metadata []powerdns.Metadata
	// contended is true when another writer holds the lock.
	contended bool
	// holders names the writers holding it.
	holders []string
	// stale is true when another writer may have written since the zone
	// was read.
	stale bool
}

// acquire creates this Sync's held-lock kind and reads the zone's metadata,
// to see whether another writer holds the lock, or held or finished a
// write since a lock TTL before readAt, when the Sync read the zone. The
// caller must release, whatever acquire returns.
func (s *syncRun) acquire(ctx context.Context, readAt time.Time) (lockOutcome, error) {
	s.lockSeq = lockSeqs.Add(1)
	held := powerdns.MetadataKind(s.r.lockKind(lockHeldPrefix, s.lockSeq))
	// POST creates the kind with its one row: unlike PUT, which PowerDNS
	// carries out as a delete and then inserts, it is never seen half done.
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := s.r.client.Metadata.Create(ctx, s.zone, held, s.lockStamp())
		return err
	})
	if err != nil {
		return lockOutcome{}, fmt.Errorf("take zone lock: %w", err)
	}
	s.locked = true
	md, err := s.listMetadata(ctx)
	if err != nil {
		return lockOutcome{}, err
	}
	now := s.r.cfg.clock.Now().Unix()
	ttl := int64(s.r.cfg.lockTTL / time.Second)
	since := readAt.Unix() - ttl
	out := lockOutcome{metadata: md}
	for _, m := range md {
		if m.Kind == nil {
			continue
		}
		kind := string(*m.Kind)
		isHeld := strings.HasPrefix(kind, lockHeldPrefix)
		if !isHeld && !strings.HasPrefix(kind, lockDonePrefix) {
			continue
		}
		if rest := kind[len(lockHeldPrefix):]; strings.HasPrefix(rest, s.r.instance+"-") {
			continue // this instance's own (both prefixes are as long)
		}
		writer, at, ok := parseStamp(m.Metadata)
		if !ok {
			// Not written by this library, or not yet whole: assume the
			// worst of it.
			out.stale = true
			continue
		}
		if isHeld && now-at < ttl {
			out.contended = true
			if !slices.Contains(out.holders, writer) {
				out.holders = append(out.holders, writer)
			}
		}
		if at >= since {
			out.stale = true
		}
		if now-at > int64(lockGC/time.Second) {
			s.dropKind(ctx, kind)
		}
	}
	return out, nil
}

// awaitLock waits for another writer's Sync to finish with the zone: it
// frees its own try (two writers that wait while holding would wait for
// each other), waits a short random while, and tries again, until it gets
// the lock or WithLockWait has passed. Another writer's Sync holds the lock
// for about as long as one PATCH takes, so waiting is cheaper for the caller
// than a requeue; the random wait keeps two writers from meeting again.
func (s *syncRun) awaitLock(ctx context.Context, readAt time.Time) (lockOutcome, error) {
	deadline := time.Now().Add(s.r.cfg.lockWait)
	for {
		if err := s.releaseLock(ctx); err != nil {
			return lockOutcome{}, err
		}
		wait := lockRetryLeast + time.Duration(mrand.Int64N(int64(lockRetrySpread)))
		if time.Now().Add(wait).After(deadline) {
			// Out of patience: take the lock once more, to report who holds it.
			return s.acquire(ctx, readAt)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return lockOutcome{}, ctx.Err()
		case <-t.C:
		}
		lock, err := s.acquire(ctx, readAt)
		if err != nil || !lock.contended {
			return lock, err
		}
	}
}

// The wait between two tries of a contended lock: real time, not the
// Reconciler's clock, since what it waits for is another process.
const (
	lockRetryLeast  = 50 * time.Millisecond
	lockRetrySpread = 200 * time.Millisecond
)

// DefaultLockWait is how long a Sync waits for another writer's Sync to
// finish with the zone before it gives up and reports its changes as
// postponed.
const DefaultLockWait = 3 * time.Second

// releaseLock records that this Sync wrote (when it did), then frees the
// lock, then drops the previous finish record of this instance for the
// zone. Should recording fail, the held lock stays: other writers wait for
// its TTL rather than miss a write.
func (s *syncRun) releaseLock(ctx context.Context) error {
	if !s.locked {
		return nil
	}
	done := ""
	if s.wrote {
		done = s.r.lockKind(lockDonePrefix, s.lockSeq)
		if err := s.call(ctx, func(ctx context.Context) error {
			_, err := s.r.client.Metadata.Create(ctx, s.zone, powerdns.MetadataKind(done), s.lockStamp())
			return err
		}); err != nil {
			return fmt.Errorf("record the zone write: %w", err)
		}
	}
	if err := s.call(ctx, func(ctx context.Context) error {
		return s.r.client.Metadata.Delete(ctx, s.zone, powerdns.MetadataKind(s.r.lockKind(lockHeldPrefix, s.lockSeq)))
	}); err != nil {
		return fmt.Errorf("free zone lock: %w", err)
	}
	s.locked = false
	if done != "" {
		if prev := s.r.swapDone(s.zone, done); prev != "" {
			s.dropKind(ctx, prev)
		}
	}
	return nil
}

// swapDone remembers done as this instance's latest finish record in zone
// and returns the one it replaces.
func (r *Reconciler) swapDone(zone, done string) string {
	r.doneMu.Lock()
	defer r.doneMu.Unlock()
	prev := r.done[zone]
	r.done[zone] = done
	return prev
}

// dropKind removes a lock kind that is no longer needed; failing to is
// harmless.
func (s *syncRun) dropKind(ctx context.Context, kind string) {
	_ = s.call(ctx, func(ctx context.Context) error {
		return s.r.client.Metadata.Delete(ctx, s.zone, powerdns.MetadataKind(kind))
	})
}

// listMetadata reads every metadata kind of the zone.
func (s *syncRun) listMetadata(ctx context.Context) ([]powerdns.Metadata, error) {
	var md []powerdns.Metadata
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		md, err = s.r.client.Metadata.List(ctx, s.zone)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read zone metadata: %w", err)
	}
	return md, nil
}
