package reconcile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
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
// lock in zone metadata first, with what PowerDNS does offer: every
// Reconciler has its own metadata kind, X-PDNSKIT-LOCK-<instance>, which
// only it writes.
//
//  1. A Sync reads the zone's metadata, then the zone, and plans.
//  2. If it has something to write, it marks its kind held, then reads the
//     metadata again. If another kind is held (and not abandoned), it
//     marks its kind free and writes nothing: Result.Postponed. Of two
//     writers that both mark and read, at least the later reader sees the
//     other, so two never write at once.
//  3. If any other kind changed between its two metadata reads, another
//     writer wrote meanwhile: it reads the zone again and plans anew.
//  4. It writes, then marks its kind free.
//
// A Sync that finds nothing to write takes no lock and costs one read of the
// zone and one of its metadata.
const (
	lockKindPrefix = "X-PDNSKIT-LOCK-"
	lockWriter     = "writer "
	lockState      = "state "
	lockAt         = "at "
	lockSeq        = "seq "
)

// DefaultLockTTL is how long a held lock keeps other writers out. A lock
// held longer belongs to a Sync that died; it is ignored.
const DefaultLockTTL = 2 * time.Minute

// lockGC is how long a lock kind may go unused before a writer removes it
// (every Reconciler instance has its own kind, so they accumulate).
const lockGC = 24 * time.Hour

// newInstance names a Reconciler's lock kind.
func newInstance() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms; a fixed name
		// would still be correct for a single instance.
		return "0000000000000000"
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// lockSeqs makes every lock value distinct, so that a write by another
// instance always shows as a change, even within one second.
var lockSeqs atomic.Uint64

type lockInfo struct {
	held bool
	at   int64
}

// lockValues are the values of every lock kind in a metadata listing.
func lockValues(md []powerdns.Metadata) map[string]string {
	out := make(map[string]string)
	for _, m := range md {
		if m.Kind != nil && strings.HasPrefix(string(*m.Kind), lockKindPrefix) {
			out[string(*m.Kind)] = strings.Join(m.Metadata, "\n")
		}
	}
	return out
}

func parseLock(values string) lockInfo {
	var li lockInfo
	for _, v := range strings.Split(values, "\n") {
		switch {
		case v == lockState+"held":
			li.held = true
		case strings.HasPrefix(v, lockAt):
			li.at, _ = strconv.ParseInt(strings.TrimPrefix(v, lockAt), 10, 64)
		}
	}
	return li
}

func (s *syncRun) lockKind() string { return lockKindPrefix + s.r.instance }

// setLock marks this Reconciler's lock kind held or free.
func (s *syncRun) setLock(ctx context.Context, held bool) error {
	state := "free"
	if held {
		state = "held"
	}
	values := []string{
		lockWriter + s.r.cfg.managedBy,
		lockState + state,
		lockAt + strconv.FormatInt(s.r.cfg.clock.Now().Unix(), 10),
		lockSeq + strconv.FormatUint(lockSeqs.Add(1), 10),
	}
	kind := powerdns.MetadataKind(s.lockKind())
	return s.call(ctx, func(ctx context.Context) error {
		_, err := s.r.client.Metadata.Set(ctx, s.zone, kind, values)
		return err
	})
}

// lockOutcome is what taking the lock found.
type lockOutcome struct {
	metadata []powerdns.Metadata
	// contended is true when another writer holds the lock.
	contended bool
	// stale is true when another writer wrote since the first read.
	stale bool
}

// acquire marks the lock held and reads the metadata again, comparing the
// other writers' locks with those seen at the start of the Sync (before).
// The caller must release, whatever acquire returns.
func (s *syncRun) acquire(ctx context.Context, before []powerdns.Metadata) (lockOutcome, error) {
	if err := s.setLock(ctx, true); err != nil {
		return lockOutcome{}, fmt.Errorf("take zone lock: %w", err)
	}
	after, err := s.listMetadata(ctx)
	if err != nil {
		return lockOutcome{}, err
	}
	mine := s.lockKind()
	now := s.r.cfg.clock.Now().Unix()
	old, cur := lockValues(before), lockValues(after)
	out := lockOutcome{metadata: after}
	for kind, values := range cur {
		if kind == mine {
			continue
		}
		li := parseLock(values)
		if li.held && now-li.at < int64(s.r.cfg.lockTTL/time.Second) {
			out.contended = true
		}
		if old[kind] != values {
			out.stale = true
		}
		if now-li.at > int64(lockGC/time.Second) {
			s.dropLock(ctx, kind)
		}
	}
	for kind := range old {
		if _, ok := cur[kind]; !ok && kind != mine {
			out.stale = true
		}
	}
	return out, nil
}

// dropLock removes another instance's lock kind that has not been used for
// a day; failing to is harmless.
func (s *syncRun) dropLock(ctx context.Context, kind string) {
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

// lockHolders names the writers whose held locks are in md, for messages.
func lockHolders(md []powerdns.Metadata, mine string) []string {
	var out []string
	for _, m := range md {
		if m.Kind == nil || string(*m.Kind) == mine || !strings.HasPrefix(string(*m.Kind), lockKindPrefix) {
			continue
		}
		if !parseLock(strings.Join(m.Metadata, "\n")).held {
			continue
		}
		for _, v := range m.Metadata {
			if w, ok := strings.CutPrefix(v, lockWriter); ok && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
