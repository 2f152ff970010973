package reconcile

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// Defaults of a Reconciler.
const (
	// DefaultServerID is the PowerDNS server a Reconciler talks to.
	DefaultServerID = "localhost"
	// DefaultMaxPatchBytes is PowerDNS's default webserver-max-bodysize
	// (2 MB): a zone's changes go in one PATCH unless they exceed it.
	DefaultMaxPatchBytes = 2 << 20
	// DefaultDeleteChecks and DefaultDeleteSpan make the deletion gate: an
	// RRset of the writer's that vanished from the desired state is deleted
	// only once it was absent on DefaultDeleteChecks consecutive syncs
	// spanning at least DefaultDeleteSpan.
	DefaultDeleteChecks = 3
	DefaultDeleteSpan   = 2 * time.Minute
	// DefaultDeleteGuardFraction and DefaultDeleteGuardMin make the delete
	// guard: one sync never deletes more than this fraction of the writer's
	// RRsets in a zone where it holds at least DefaultDeleteGuardMin,
	// unless the sync is forced (ForceDeletes).
	DefaultDeleteGuardFraction = 0.30
	DefaultDeleteGuardMin      = 10
)

// OwnershipStore says where a Reconciler records which writer owns an RRset.
type OwnershipStore int

const (
	// OwnershipAuto picks per server: RRset comments where the backend
	// keeps them, zone metadata where it refuses them (LMDB before 5.1).
	OwnershipAuto OwnershipStore = iota
	// OwnershipComments records the writer in the RRset's comment, written
	// in the same atomic PATCH as the records.
	OwnershipComments
	// OwnershipMetadata records claims in zone metadata, one X-… kind per
	// writer, claimed before a write and released after a delete.
	OwnershipMetadata
)

func (o OwnershipStore) String() string {
	switch o {
	case OwnershipAuto:
		return "auto"
	case OwnershipComments:
		return "comments"
	case OwnershipMetadata:
		return "metadata"
	default:
		return fmt.Sprintf("OwnershipStore(%d)", int(o))
	}
}

// Option configures a Reconciler.
type Option func(*config)

type config struct {
	// apiKey holds the API key in a closure: fmt prints a func as an
	// address whatever the verb, where it would print a string field of a
	// Reconciler printed with %v or logged with slog.Any.
	apiKey     func() string
	managedBy  string
	httpClient *http.Client
	serverID   string
	logger     *slog.Logger
	clock      backoff.Clock

	retry   []backoff.RetryOption
	requeue []backoff.RequeueOption

	deleteChecks  int
	deleteSpan    time.Duration
	guardFraction float64
	guardMin      int
	upsertOnly    bool

	maxPatchBytes int
	policy        conflict.Policy
	adopt         bool
	ownership     OwnershipStore
	dnsAddr       string
	maxResponse   int64
	lockTTL       time.Duration
	lockWait      time.Duration
}

func defaultConfig() config {
	return config{
		serverID:      DefaultServerID,
		logger:        slog.New(slog.DiscardHandler),
		clock:         backoff.SystemClock,
		deleteChecks:  DefaultDeleteChecks,
		deleteSpan:    DefaultDeleteSpan,
		guardFraction: DefaultDeleteGuardFraction,
		guardMin:      DefaultDeleteGuardMin,
		maxPatchBytes: DefaultMaxPatchBytes,
		policy:        conflict.Refuse,
		ownership:     OwnershipAuto,
		lockTTL:       DefaultLockTTL,
		lockWait:      DefaultLockWait,
	}
}

// WithAPIKey sets the PowerDNS API key. It is sent only to the server's own
// host and never appears in an error or a log line.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = func() string { return key } }
}

// WithManagedBy names the writer this Reconciler writes as (required): it
// owns the RRsets it creates and never overwrites or deletes another
// writer's.
func WithManagedBy(writer string) Option { return func(c *config) { c.managedBy = writer } }

// WithHTTPClient sets the HTTP client. Its transport is wrapped, never
// replaced, so TLS settings and instrumentation survive; its redirect
// policy and timeout are kept.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithServerID sets the PowerDNS server ID (DefaultServerID by default).
func WithServerID(id string) Option { return func(c *config) { c.serverID = id } }

// WithLogger sets the logger; nothing is logged by default.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock sets the clock the deletion gate and backoff read; tests use a
// fake one.
func WithClock(clock backoff.Clock) Option { return func(c *config) { c.clock = clock } }

// WithRetry sets how transient failures (network errors, timeouts, 5xx) of
// one API call are retried within a Sync: backoff.WithMaxAttempts,
// backoff.WithMaxElapsedTime, backoff.WithInitialInterval and so on.
// Refusals are never retried.
func WithRetry(opts ...backoff.RetryOption) Option {
	return func(c *config) { c.retry = append(c.retry, opts...) }
}

// WithRequeue sets how Result.RequeueAfter is chosen: the refusal interval
// (backoff.WithRefusalInterval, 10 minutes by default) and the growth of
// waits after transient failures.
func WithRequeue(opts ...backoff.RequeueOption) Option {
	return func(c *config) { c.requeue = append(c.requeue, opts...) }
}

// WithDeletionGate sets how long an RRset of the writer's must be absent
// from the desired state before it is deleted: on checks consecutive syncs
// spanning at least span. WithDeletionGate(1, 0) deletes at once.
func WithDeletionGate(checks int, span time.Duration) Option {
	return func(c *config) { c.deleteChecks, c.deleteSpan = checks, span }
}

// WithDeleteGuard sets the delete guard: one sync deletes at most fraction
// of the writer's RRsets in a zone where it holds at least minRRsets, unless
// forced. A fraction of 1 turns the guard off.
func WithDeleteGuard(fraction float64, minRRsets int) Option {
	return func(c *config) { c.guardFraction, c.guardMin = fraction, minRRsets }
}

// WithUpsertOnly makes the Reconciler create and update only, never delete.
func WithUpsertOnly() Option { return func(c *config) { c.upsertOnly = true } }

// WithMaxPatchBytes sets the largest PATCH body the server accepts (its
// webserver-max-bodysize); larger change sets are split.
func WithMaxPatchBytes(n int) Option { return func(c *config) { c.maxPatchBytes = n } }

// WithTakeover lets a write replace colliding RRsets that the writer owns
// (or unowned ones, with WithAdoption) in the same atomic PATCH, instead of
// being blocked. Another writer's RRset is never taken over.
func WithTakeover() Option { return func(c *config) { c.policy = conflict.Takeover } }

// WithAdoption lets the writer take ownership of live RRsets that no writer
// claimed (written by hand or by an older controller).
func WithAdoption() Option { return func(c *config) { c.adopt = true } }

// WithOwnershipStore overrides where ownership is recorded.
func WithOwnershipStore(s OwnershipStore) Option { return func(c *config) { c.ownership = s } }

// WithMaxResponseBytes bounds how much of one answer from PowerDNS is read
// (pdnsapi.DefaultMaxResponseBytes, 512 MiB, by default): a larger answer is
// an error, never a truncated zone.
func WithMaxResponseBytes(n int64) Option { return func(c *config) { c.maxResponse = n } }

// WithLockWait sets how long a Sync that has something to write waits for
// another writer's Sync to finish with the zone (DefaultLockWait) before it
// reports its changes as postponed; 0 postpones at once.
func WithLockWait(d time.Duration) Option { return func(c *config) { c.lockWait = d } }

// WithDNSAddr sets the host:port Verify queries; by default the API host on
// port 53.
func WithDNSAddr(addr string) Option { return func(c *config) { c.dnsAddr = addr } }

// ErrNoWriter is returned by New without WithManagedBy.
var ErrNoWriter = errors.New("reconcile: WithManagedBy is required: name the writer that owns what this Reconciler writes")

// ConfigError is returned by New for an option with a value it cannot use.
type ConfigError struct {
	Option string
	Reason string
}

func (e *ConfigError) Error() string { return "reconcile: " + e.Option + ": " + e.Reason }

func (c *config) validate() error {
	switch {
	case c.managedBy == "":
		return ErrNoWriter
	case len(c.managedBy) > 200 || pdnsapi.HasControl(c.managedBy):
		return &ConfigError{"WithManagedBy", "the writer must be 1 to 200 printable characters"}
	case c.maxPatchBytes < 1024:
		return &ConfigError{"WithMaxPatchBytes", fmt.Sprintf("%d bytes cannot hold one change", c.maxPatchBytes)}
	case c.deleteChecks < 1:
		return &ConfigError{"WithDeletionGate", "checks must be at least 1"}
	case c.deleteSpan < 0:
		return &ConfigError{"WithDeletionGate", "span must not be negative"}
	case c.guardFraction <= 0 || c.guardFraction > 1:
		return &ConfigError{"WithDeleteGuard", "fraction must be in (0, 1]"}
	case c.guardMin < 0:
		return &ConfigError{"WithDeleteGuard", "minRRsets must not be negative"}
	case c.ownership < OwnershipAuto || c.ownership > OwnershipMetadata:
		return &ConfigError{"WithOwnershipStore", c.ownership.String() + " is not a store"}
	case c.lockWait < 0:
		return &ConfigError{"WithLockWait", "must not be negative"}
	case c.logger == nil:
		return &ConfigError{"WithLogger", "nil logger"}
	case c.clock == nil:
		return &ConfigError{"WithClock", "nil clock"}
	}
	return nil
}

// SyncOption changes one Sync.
type SyncOption func(*syncConfig)

type syncConfig struct {
	forceDeletes bool
}

// ForceDeletes lets this Sync pass the delete guard: an operator confirmed
// that a large deletion is wanted. The deletion gate still applies.
func ForceDeletes() SyncOption { return func(s *syncConfig) { s.forceDeletes = true } }
