package reconcile

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// Reconciler writes RRsets into one PowerDNS server as one writer.
//
// It is safe for concurrent use: operations on different zones run in
// parallel, operations on one zone take turns within a Reconciler, and
// other Reconcilers and processes are kept apart by a lock the Reconciler
// keeps in the zone's metadata in PowerDNS.
//
// Every operation is made of the same three steps: read what PowerDNS
// holds, decide from the desired state, that read and what the Reconciler
// remembers which changes to send, and write them (under the zone lock
// where a change needs it, with ownership, in one PATCH, refusals isolated
// to the RRsets that caused them).
type Reconciler struct {
	cfg    config
	server *server

	// instance names this Reconciler's metadata kinds (the zone lock,
	// ownership claims); seq numbers them, so that every kind it creates
	// is new.
	instance string
	seq      atomic.Uint64

	zones sync.Map // canonical zone name → *zoneMemory

	// writes records when RRsets were written, for Verify (verify.go).
	writes writeLog

	// closed is set by Close: operations free the zone lock when done.
	closed atomic.Bool
}

// New returns a Reconciler for the PowerDNS server whose API is at serverURL
// (e.g. "http://127.0.0.1:8081"). It builds its own go-powerdns client over
// a transport that keeps PowerDNS's raw error bodies, so every error carries
// all of PowerDNS's problems. WithManagedBy is required; a bad option is an
// error, never a panic.
func New(serverURL string, opts ...Option) (*Reconciler, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	apiKey := ""
	if cfg.apiKey != nil {
		apiKey = cfg.apiKey()
	}
	client, err := pdnsapi.New(serverURL, apiKey, cfg.serverID, cfg.httpClient,
		pdnsapi.WithMaxResponseBytes(cfg.maxResponse), pdnsapi.WithTiming(cfg.requestObserver()))
	if err != nil {
		return nil, clientConfigError(err)
	}
	if cfg.dnsAddr == "" {
		if u, err := url.Parse(serverURL); err == nil {
			cfg.dnsAddr = net.JoinHostPort(u.Hostname(), "53")
		}
	}
	return &Reconciler{
		cfg:      cfg,
		server:   newServer(client, cfg),
		instance: newInstance(),
	}, nil
}

// clientConfigError names the option behind an error of the PowerDNS
// client's construction; the error says why, without the API key.
func clientConfigError(err error) *ConfigError {
	option := "serverURL"
	switch {
	case errors.Is(err, ErrInvalidAPIKey):
		option = "WithAPIKey"
	case errors.Is(err, ErrInvalidServerURL):
	default:
		option = "WithServerID"
	}
	return &ConfigError{Option: option, Reason: err.Error(), Err: err}
}

// ManagedBy returns the writer the Reconciler writes as.
func (r *Reconciler) ManagedBy() string { return r.cfg.managedBy }

// Forget drops everything the Reconciler remembers about zone: the
// deletion gate's streaks, remembered refusals, requeue streaks and its
// record of its last write under the zone lock, and frees the zone lock it
// keeps between operations (WithLockHold). Call it when the zone is gone
// or no longer this writer's business; an operation on the zone in
// progress finishes first.
func (r *Reconciler) Forget(zone string) {
	canonical, err := canonicalZone(zone)
	if err != nil {
		return
	}
	m, ok := r.zones.Load(canonical)
	if !ok {
		return
	}
	mem := m.(*zoneMemory)
	mem.sched.turn <- struct{}{}
	defer func() { <-mem.sched.turn }()
	ctx, cancel := context.WithTimeout(context.Background(), releaseBound)
	defer cancel()
	r.warnLockLeft(canonical, r.releaseHeld(ctx, mem, canonical))
	mem.reset(r.cfg)
	r.writes.forget(canonical)
}

// memory returns what the Reconciler remembers about zone (canonical).
func (r *Reconciler) memory(zone string) *zoneMemory {
	if m, ok := r.zones.Load(zone); ok {
		return m.(*zoneMemory)
	}
	m, _ := r.zones.LoadOrStore(zone, newZoneMemory(r.cfg))
	return m.(*zoneMemory)
}

// storeFor picks the ownership store for a server of this version whose
// launch setting is launch: LMDB refuses RRset comments before 5.1.
func storeFor(version, launch string) OwnershipStore {
	lmdb := false
	for _, b := range strings.Split(launch, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(b), ":")
		if name == "lmdb" {
			lmdb = true
		}
	}
	if lmdb && !versionAtLeast(version, 5, 1) {
		return OwnershipMetadata
	}
	return OwnershipComments
}

// versionAtLeast compares a PowerDNS version string such as "4.9.18" or
// "5.1.0-alpha1" with major.minor; an unreadable version counts as old.
func versionAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, ok1 := leadingInt(parts[0])
	mnr, ok2 := leadingInt(parts[1])
	if !ok1 || !ok2 {
		return false
	}
	return maj > major || (maj == major && mnr >= minor)
}

// leadingInt reads the digits at the start of s ("1-alpha" is 1).
func leadingInt(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return n, i > 0
		}
		n = n*10 + int(c-'0')
		if n > 1<<20 {
			return 0, false
		}
	}
	return n, s != ""
}
