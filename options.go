package reconcile

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	// DefaultFullRead is how long a Sync with nothing to do may go on
	// deciding from its last whole read of a zone, while the zone's serial
	// stays where it was: as long as DefaultResync, so that an edit that
	// keeps the serial (made in the database, not through the API) is found
	// as soon as a Sync at the resync pace would have found it before.
	DefaultFullRead = 10 * time.Minute
	// DefaultResync is RequeueAfter when everything is in sync: a record
	// deleted behind the controller's back is restored within it.
	DefaultResync = 10 * time.Minute
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
	// OwnershipMetadata records claims in zone metadata: each write adds a
	// record of the claims it makes before it writes, each delete a record
	// of the claims it releases after it deletes.
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
	resync  time.Duration

	fullRead time.Duration

	deleteChecks  int
	deleteSpan    time.Duration
	guardFraction float64
	guardMin      int
	upsertOnly    bool

	maxPatchBytes int
	takeover      bool
	adopt         bool
	allowed       []conflict.Kind
	ownership     OwnershipStore
	dnsAddr       string
	observer      Observer
	maxResponse   int64
	lockTTL       time.Duration
	lockWait      time.Duration
	lockHold      time.Duration
	// lockHoldMax is maxLockHold but in tests.
	lockHoldMax time.Duration
	// replaced are the comment accounts of the tool the writer replaces,
	// whose comments its writes drop (WithAdoptionReplacing).
	replaced []string
}

func defaultConfig() config {
	return config{
		serverID:      DefaultServerID,
		logger:        slog.New(slog.DiscardHandler),
		clock:         backoff.SystemClock,
		resync:        DefaultResync,
		fullRead:      DefaultFullRead,
		deleteChecks:  DefaultDeleteChecks,
		deleteSpan:    DefaultDeleteSpan,
		guardFraction: DefaultDeleteGuardFraction,
		guardMin:      DefaultDeleteGuardMin,
		maxPatchBytes: DefaultMaxPatchBytes,
		ownership:     OwnershipAuto,
		maxResponse:   pdnsapi.DefaultMaxResponseBytes,
		lockTTL:       DefaultLockTTL,
		lockWait:      DefaultLockWait,
		lockHold:      DefaultLockHold,
		lockHoldMax:   maxLockHold,
	}
}

// WithAPIKey sets the PowerDNS API key. It is sent only to the server's own
// host and never appears in an error or a log line.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = func() string { return key } }
}

// WithManagedBy names the writer this Reconciler writes as (required): it
// owns the RRsets it creates and never overwrites or deletes another
// writer's. The name is 1 to 200 bytes of printable characters of valid
// UTF-8, all of them in Latin-1: it is stored in zone metadata, which gmysql
// keeps as latin1 (a name outside it is a *StorageError within New's
// *ConfigError).
func WithManagedBy(writer string) Option { return func(c *config) { c.managedBy = writer } }

// WithHTTPClient sets the HTTP client. Its transport is wrapped, never
// replaced, so TLS settings and instrumentation survive; its redirect
// policy and timeout are kept.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithServerID sets the PowerDNS server ID (DefaultServerID by default).
func WithServerID(id string) Option { return func(c *config) { c.serverID = id } }

// WithLogger sets the logger; nothing is logged by default. Controllers on
// controller-runtime bridge their logr.Logger with
// slog.New(logr.ToSlogHandler(log)).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClock sets the clock the deletion gate, requeue pacing, Verify and
// the zone lock's hold (WithLockHold) read; tests use a fake one. The waits
// for another writer's lock and between retries of a failed request stay on
// real time: what they wait for is another process. With a fake clock that
// moves only when told (backofftest.NewClock), a lock kept after a write is
// freed once the clock passes its hold, or by Close or Forget.
func WithClock(clock backoff.Clock) Option { return func(c *config) { c.clock = clock } }

// WithRetry sets how transient failures (network errors, timeouts, 5xx) of
// one API call are retried within an operation: backoff.WithMaxAttempts,
// backoff.WithMaxElapsedTime, backoff.WithInitialInterval and so on.
// Refusals are never retried. An option given a value out of its range is
// a *ConfigError from New.
func WithRetry(opts ...backoff.RetryOption) Option {
	return func(c *config) { c.retry = append(c.retry, opts...) }
}

// WithRequeue sets how Result.RequeueAfter is chosen after a failure or a
// refusal: the refusal interval (backoff.WithRefusalInterval, 10 minutes by
// default) and the growth of waits after transient failures. An option
// given a value out of its range is a *ConfigError from New.
func WithRequeue(opts ...backoff.RequeueOption) Option {
	return func(c *config) { c.requeue = append(c.requeue, opts...) }
}

// WithResync sets RequeueAfter for an operation that finds everything in
// sync: d with ±10% jitter (DefaultResync by default), so that a record
// deleted behind the controller's back is restored without waiting for
// the controller's own resync period. 0 turns it off (RequeueAfter 0).
func WithResync(d time.Duration) Option { return func(c *config) { c.resync = d } }

// WithFullRead sets how long a Sync that finds nothing to do may decide the
// next Syncs of the zone from that read, without reading the RRsets again,
// while the zone's serial stays where it was (DefaultFullRead). It applies
// where PowerDNS raises the serial on every API write (SOA-EDIT-API DEFAULT
// or INCREASE, the default of zones created through the API) and ownership
// lives in RRset comments; elsewhere every Sync reads the whole zone. A
// change through the API by any client moves the serial and is found by the
// next Sync; an edit in the database that keeps the serial is found by the
// first Sync after d. 0 reads the whole zone on every Sync.
func WithFullRead(d time.Duration) Option { return func(c *config) { c.fullRead = d } }

// WithDeletionGate sets how long an RRset of the writer's must be absent
// from the desired state before Sync deletes it. It must be absent on
// checks consecutive syncs spanning at least span, of which only those at
// least span/(checks-1) apart count (see backoff.Gate).
// WithDeletionGate(1, 0) deletes at once. Remove and Teardown are explicit
// deletes and pass no gate.
func WithDeletionGate(checks int, span time.Duration) Option {
	return func(c *config) { c.deleteChecks, c.deleteSpan = checks, span }
}

// WithDeleteGuard sets the delete guard: one sync deletes at most fraction
// of the writer's RRsets in a zone where it holds at least minRRsets, unless
// forced. A fraction of 1 turns the guard off.
func WithDeleteGuard(fraction float64, minRRsets int) Option {
	return func(c *config) { c.guardFraction, c.guardMin = fraction, minRRsets }
}

// WithUpsertOnly makes Sync create and update only, never delete absent
// RRsets. Remove and Teardown still delete: they are asked to.
func WithUpsertOnly() Option { return func(c *config) { c.upsertOnly = true } }

// WithMaxPatchBytes sets the largest PATCH body the server accepts (its
// webserver-max-bodysize); larger change sets are split.
func WithMaxPatchBytes(n int) Option { return func(c *config) { c.maxPatchBytes = n } }

// WithTakeover lets a write replace colliding RRsets that the writer owns
// (or unowned ones, with WithAdoption) in the same atomic PATCH, instead of
// being blocked. Another writer's RRset is never taken over.
func WithTakeover() Option { return func(c *config) { c.takeover = true } }

// WithAdoption lets the writer take ownership of the live RRsets it writes
// or removes that no writer claimed (written by hand, or by the controller
// before it used this library). Only the keys an operation names are
// adopted, never anything else: a Sync adopts the keys of its desired
// state, an Apply or a Remove its one key. Other clients' comments on an
// adopted RRset stay; WithAdoptionReplacing replaces a named tool's.
func WithAdoption() Option { return func(c *config) { c.adopt = true } }

// WithAdoptionReplacing is WithAdoption from a tool the writer replaces:
// it adopts as WithAdoption does, and the RRsets it adopts, and every
// RRset it writes after, lose the RRset comments of accounts, the
// accounts that tool writes its comments under (such as the one it
// records its ownership in), so that users see one note, the library's,
// and not the old tool's beside it. The comments of every other account
// are kept as they are, as always.
//
// Comments go only where ownership is kept in comments (OwnershipAuto on
// every backend but LMDB before 5.1, which keeps no comments at all).
// Where it is kept in zone metadata the Reconciler writes no comments, so
// the old tool's stay: an adoption there records the claim in metadata
// and sends no PATCH. An RRset adopted before this option was given keeps
// them until its next write.
//
// Each account is 1 to 200 printable characters of valid UTF-8, and not
// one of the library's own: anything else is a *ConfigError from New.
func WithAdoptionReplacing(accounts ...string) Option {
	return func(c *config) {
		c.adopt = true
		c.replaced = append(c.replaced, accounts...)
	}
}

// WithAllowed switches off rules that PowerDNS does not enforce itself, for
// writers whose zones rely on them: WithAllowed(conflict.ALIASAndAddress)
// lets an ALIAS stand next to A and AAAA at one name. Naming a rule PowerDNS
// enforces, or an ownership rule (NotOwner; Unowned, which WithAdoption
// governs), or ApexRequired, is a *ConfigError from New.
func WithAllowed(kinds ...conflict.Kind) Option {
	return func(c *config) { c.allowed = append(c.allowed, kinds...) }
}

// WithOwnershipStore overrides where ownership is recorded.
func WithOwnershipStore(s OwnershipStore) Option { return func(c *config) { c.ownership = s } }

// WithMaxResponseBytes bounds how much of one answer from PowerDNS is read
// (128 MiB by default): a larger answer is an error, never a truncated zone.
// n must be positive.
func WithMaxResponseBytes(n int64) Option { return func(c *config) { c.maxResponse = n } }

// WithLockWait sets how long an operation that must take the zone lock
// waits for another writer's to finish with the zone (DefaultLockWait)
// before it reports its changes as postponed; 0 postpones at once.
func WithLockWait(d time.Duration) Option { return func(c *config) { c.lockWait = d } }

// WithLockHold sets how long the Reconciler keeps the zone lock after an
// operation that took it (DefaultLockHold), so that its next operation in
// the zone that needs the lock within d does not take it again: a run of
// creates pays the lock once. Other writers wait for the zone meanwhile; a
// lock is kept at most one second in all. 0 frees it after every
// operation. The hold runs on the Reconciler's clock (WithClock); a lock
// freed when its hold ran out is an Observer's OperationFreeLock. Call
// Close when done with the Reconciler; a program that makes one operation
// and exits must, or set 0.
func WithLockHold(d time.Duration) Option { return func(c *config) { c.lockHold = d } }

// WithDNSAddr sets the host:port Verify queries, such as "192.0.2.1:53" or
// "[2001:db8::1]:5300"; by default the API host on port 53. The host is an
// IP address or a hostname, the port a number.
func WithDNSAddr(addr string) Option { return func(c *config) { c.dnsAddr = addr } }

// ErrNoWriter is what the *ConfigError of a New without WithManagedBy wraps.
var ErrNoWriter = errors.New("reconcile: WithManagedBy is required: name the writer that owns what this Reconciler writes")

// ConfigError is what New returns for every configuration it cannot use.
type ConfigError struct {
	// Option names the option, or "serverURL" for New's URL.
	Option string
	// Reason says what is wrong with its value.
	Reason string
	// Err is the underlying error, when there is one: errors.Is finds
	// ErrNoWriter, ErrInvalidServerURL and ErrInvalidAPIKey through it,
	// errors.As the *backoff.OptionError of WithRetry and WithRequeue,
	// and the *StorageError of a WithManagedBy some backend cannot store.
	Err error
}

func (e *ConfigError) Error() string { return "reconcile: " + e.Option + ": " + e.Reason }

// Unwrap returns the sentinel the error wraps, or nil.
func (e *ConfigError) Unwrap() error { return e.Err }

func (c *config) validate() error {
	switch {
	case c.managedBy == "":
		return &ConfigError{Option: "WithManagedBy", Reason: "required: name the writer that owns what this Reconciler writes", Err: ErrNoWriter}
	case len(c.managedBy) > 200 || pdnsapi.HasControl(c.managedBy) || !utf8.ValidString(c.managedBy):
		// Valid UTF-8, so that the writer reads back as written: JSON
		// turns invalid bytes into U+FFFD, and the writer's own RRsets
		// would then seem another writer's.
		return &ConfigError{Option: "WithManagedBy", Reason: "the writer must be 1 to 200 printable characters of valid UTF-8"}
	case !latin1(c.managedBy):
		// The writer goes into zone metadata (the zone lock, and ownership
		// claims where comments are not kept), latin1 on gmysql.
		se := &StorageError{Field: "WithManagedBy", Value: c.managedBy, Reason: notLatin1}
		return &ConfigError{Option: "WithManagedBy", Reason: "writer " + quoteShort(c.managedBy) + " " + notLatin1, Err: se}
	case c.maxPatchBytes < 1024:
		return &ConfigError{Option: "WithMaxPatchBytes", Reason: fmt.Sprintf("%d bytes cannot hold one change", c.maxPatchBytes)}
	case !recordFits(c.managedBy, c.maxPatchBytes):
		return &ConfigError{Option: "WithMaxPatchBytes", Reason: fmt.Sprintf("%d bytes cannot hold a claim record of writer %q", c.maxPatchBytes, c.managedBy)}
	case c.deleteChecks < 1:
		return &ConfigError{Option: "WithDeletionGate", Reason: "checks must be at least 1"}
	case c.deleteSpan < 0:
		return &ConfigError{Option: "WithDeletionGate", Reason: "span must not be negative"}
	case c.guardFraction <= 0 || c.guardFraction > 1:
		return &ConfigError{Option: "WithDeleteGuard", Reason: "fraction must be in (0, 1]"}
	case c.guardMin < 0:
		return &ConfigError{Option: "WithDeleteGuard", Reason: "minRRsets must not be negative"}
	case c.ownership < OwnershipAuto || c.ownership > OwnershipMetadata:
		return &ConfigError{Option: "WithOwnershipStore", Reason: c.ownership.String() + " is not a store"}
	case c.lockWait < 0:
		return &ConfigError{Option: "WithLockWait", Reason: "must not be negative"}
	case c.lockHold < 0 || c.lockHold > maxLockHold:
		return &ConfigError{Option: "WithLockHold", Reason: fmt.Sprintf("%v is not from 0 to %v", c.lockHold, maxLockHold)}
	case c.fullRead < 0:
		return &ConfigError{Option: "WithFullRead", Reason: "must not be negative"}
	case c.resync < 0:
		return &ConfigError{Option: "WithResync", Reason: "must not be negative"}
	case c.maxResponse < 1:
		return &ConfigError{Option: "WithMaxResponseBytes", Reason: fmt.Sprintf("%d bytes is not positive", c.maxResponse)}
	case c.dnsAddr != "" && !validHostPort(c.dnsAddr):
		return &ConfigError{Option: "WithDNSAddr", Reason: fmt.Sprintf("%q is not host:port with a numeric port", c.dnsAddr)}
	case c.logger == nil:
		return &ConfigError{Option: "WithLogger", Reason: "nil logger"}
	case c.clock == nil:
		return &ConfigError{Option: "WithClock", Reason: "nil clock"}
	}
	if err := backoff.CheckRetryOptions(c.retry...); err != nil {
		return backoffConfigError("WithRetry", err)
	}
	if err := backoff.CheckRequeueOptions(c.requeue...); err != nil {
		return backoffConfigError("WithRequeue", err)
	}
	for _, a := range c.replaced {
		switch {
		case a == "" || len(a) > 200 || pdnsapi.HasControl(a) || !utf8.ValidString(a):
			return &ConfigError{Option: "WithAdoptionReplacing", Reason: fmt.Sprintf("account %q is not 1 to 200 printable characters of valid UTF-8", a)}
		case a == commentAccount || a == noteAccount:
			return &ConfigError{Option: "WithAdoptionReplacing", Reason: fmt.Sprintf("account %q is the library's own", a)}
		}
	}
	for _, k := range c.allowed {
		switch {
		case k == conflict.NotOwner || k == conflict.Unowned:
			return &ConfigError{Option: "WithAllowed", Reason: string(k) + " is ownership, not a rule to switch off (WithAdoption takes RRsets no writer holds)"}
		case k == conflict.ApexRequired:
			return &ConfigError{Option: "WithAllowed", Reason: string(k) + " keeps a zone whole, not a rule to switch off (DeleteZone removes a zone)"}
		case k.EnforcedByPowerDNS():
			return &ConfigError{Option: "WithAllowed", Reason: string(k) + " is enforced by PowerDNS itself: allowing it would only turn blocks into refusals"}
		case !k.Known():
			return &ConfigError{Option: "WithAllowed", Reason: fmt.Sprintf("%q is not a conflict kind", string(k))}
		}
	}
	return nil
}

// backoffConfigError names option (WithRetry or WithRequeue) and the
// backoff option in it that err, from backoff's checks, reports.
func backoffConfigError(option string, err error) *ConfigError {
	reason := err.Error()
	var oe *backoff.OptionError
	if errors.As(err, &oe) {
		reason = "backoff." + oe.Option + ": " + oe.Reason
	}
	return &ConfigError{Option: option, Reason: reason, Err: err}
}

// validHostPort reports whether addr is host:port with a host that is an IP
// address or a hostname and a port from 1 to 65535.
func validHostPort(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return len(host) <= 253 && !strings.ContainsFunc(host, func(r rune) bool { return !hostnameRune(r) })
}

// conflictOptions are the conflict rules of this writer.
func (c *config) conflictOptions() []conflict.CheckOption {
	policy := conflict.Refuse
	if c.takeover {
		policy = conflict.Takeover
	}
	opts := []conflict.CheckOption{conflict.WithPolicy(policy), conflict.WithAdoption(c.adopt)}
	if len(c.allowed) > 0 {
		opts = append(opts, conflict.WithAllowed(c.allowed...))
	}
	return opts
}

// SyncOption changes one Sync or Plan. ForceDeletes, Teardown and WithOwner
// are SyncOptions.
type SyncOption interface{ applyToSync(*syncConfig) }

// ApplyOption changes one Apply. WithOwner is an ApplyOption.
type ApplyOption interface{ applyToApply(*objectConfig) }

// RemoveOption changes one Remove. WithOwner is a RemoveOption.
type RemoveOption interface{ applyToRemove(*objectConfig) }

// EnsureZoneOption changes one EnsureZone. WithOwner is an EnsureZoneOption.
type EnsureZoneOption interface{ applyToEnsureZone(*objectConfig) }

type syncConfig struct {
	forceDeletes bool
	teardown     bool
	owner        string
}

// objectConfig is what one Apply, Remove or EnsureZone is told.
type objectConfig struct {
	owner string
	// updateZone and updateKind are UpdateZone and UpdateZoneKind.
	updateZone, updateKind bool
}

// syncFlag is a SyncOption that only a Sync or a Plan honours.
type syncFlag func(*syncConfig)

func (f syncFlag) applyToSync(c *syncConfig) { f(c) }

// ForceDeletes lets this Sync pass the delete guard: an operator confirmed
// that a large deletion is wanted. The deletion gate still applies.
func ForceDeletes() SyncOption { return syncFlag(func(c *syncConfig) { c.forceDeletes = true }) }

// Teardown makes this Sync delete the writer's RRsets that are absent from
// desired at once, past the deletion gate and the delete guard. The caller
// knows they are to go (a finalizer runs, the zone's object is being
// deleted). It needs no memory of earlier syncs, so it works on a fresh
// Reconciler.
func Teardown() SyncOption { return syncFlag(func(c *syncConfig) { c.teardown = true }) }

// OwnerOption records the object behind a write; WithOwner returns one. It
// is an option of Sync, Plan, Apply, Remove, EnsureZone and DeleteZone.
type OwnerOption struct{ ref string }

func (o OwnerOption) applyToSync(c *syncConfig)     { c.owner = o.ref }
func (o OwnerOption) applyToApply(c *objectConfig)  { c.owner = o.ref }
func (o OwnerOption) applyToRemove(c *objectConfig) { c.owner = o.ref }

func (o OwnerOption) applyToEnsureZone(c *objectConfig)     { c.owner = o.ref }
func (o OwnerOption) applyToDeleteZone(c *deleteZoneConfig) { c.owner = o.ref }

// WithOwner records the object behind this write (e.g. "namespace/name")
// next to the writer, in the ownership comment or the metadata claim.
//
// Within one writer the controller arbitrates between its objects (e.g. the
// oldest object owns the RRset): a write by another owner of the same
// writer is allowed and reported in Result.Handovers; other writers stay
// blocked, and conflict messages name writer and owner. Given to
// DeleteZone, it names the object deleting the zone: a zone whose SOA
// another object of the writer holds is not deleted.
//
// ref is 1 to 253 bytes of printable characters of valid UTF-8, none of
// them a space of any kind, all of them in Latin-1 (the metadata claim is
// latin1 on gmysql): otherwise the operation returns an *InputError,
// wrapping a *StorageError for a character outside Latin-1, and sends
// nothing.
func WithOwner(ref string) OwnerOption { return OwnerOption{ref: ref} }

// configure applies the non-nil options of one call to a fresh config.
func configure[C any, O any](opts []O, apply func(O, *C)) C {
	var c C
	for _, opt := range opts {
		if any(opt) != nil {
			apply(opt, &c)
		}
	}
	return c
}

func newSyncConfig(opts []SyncOption) syncConfig {
	return configure(opts, SyncOption.applyToSync)
}

func newApplyConfig(opts []ApplyOption) objectConfig {
	return configure(opts, ApplyOption.applyToApply)
}

func newEnsureZoneConfig(opts []EnsureZoneOption) objectConfig {
	return configure(opts, EnsureZoneOption.applyToEnsureZone)
}

func newRemoveConfig(opts []RemoveOption) objectConfig {
	return configure(opts, RemoveOption.applyToRemove)
}

// validOwner reports why ref cannot be recorded as an owner, or "". An
// owner must read back byte for byte (JSON turns invalid UTF-8 into
// U+FFFD, and the RRset would then seem to change hands on every write),
// and holds no space of any kind: claims in zone metadata are fields split
// at spaces, Unicode's included.
func validOwner(ref string) string {
	switch {
	case len(ref) > 253:
		return "longer than 253 characters"
	case !utf8.ValidString(ref):
		return "is not valid UTF-8"
	case pdnsapi.HasControl(ref) || strings.ContainsFunc(ref, unicode.IsSpace):
		return "holds a space or a control character"
	}
	return ""
}

// checkOwner checks the owner an operation names (WithOwner): what
// validOwner refuses, and, as a *StorageError, an owner outside Latin-1,
// since the owner goes into zone metadata where comments are not kept,
// latin1 on gmysql.
func checkOwner(ref string) error {
	if why := validOwner(ref); why != "" {
		return fmt.Errorf("owner %q: %s", ref, why)
	}
	return checkLatin1("WithOwner", ref)
}

// hostnameRune reports whether r may stand in a host name.
func hostnameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_'
}
