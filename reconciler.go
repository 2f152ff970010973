package reconcile

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// Reconciler writes the desired RRsets of zones into one PowerDNS server as
// one writer. It is safe for concurrent use: Syncs of different zones run in
// parallel, Syncs of one zone one after another.
type Reconciler struct {
	cfg     config
	client  *pdnsapi.Client
	gate    *backoff.Gate
	requeue *backoff.Requeue

	zoneLocks sync.Map // zone → chan struct{}, one Sync of the zone at a time

	storeTurn chan struct{}  // one detection of the ownership store at a time
	store     OwnershipStore // resolved from OwnershipAuto on first use

	memoMu   sync.Mutex
	refusals map[string]map[string]refusalMemo // zone → change key → memo

	// instance names this Reconciler's zone lock kinds (see lock.go); done
	// holds, per zone, its latest record of a finished write.
	instance string
	doneMu   sync.Mutex
	done     map[string]string

	// writes records when RRsets were written, for Verify (verify.go).
	writes writeLog
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
		pdnsapi.WithMaxResponseBytes(cfg.maxResponse))
	if err != nil {
		return nil, err
	}
	if cfg.dnsAddr == "" {
		if u, err := url.Parse(serverURL); err == nil {
			cfg.dnsAddr = net.JoinHostPort(u.Hostname(), "53")
		}
	}
	requeue := append([]backoff.Option{backoff.WithClock(cfg.clock)}, cfg.requeue...)
	return &Reconciler{
		cfg:       cfg,
		client:    client,
		gate:      backoff.NewGate(cfg.deleteChecks, cfg.deleteSpan, backoff.WithClock(cfg.clock)),
		requeue:   backoff.NewRequeue(requeue...),
		store:     cfg.ownership,
		storeTurn: make(chan struct{}, 1),
		refusals:  make(map[string]map[string]refusalMemo),
		instance:  newInstance(),
		done:      make(map[string]string),
	}, nil
}

// ManagedBy returns the writer the Reconciler writes as.
func (r *Reconciler) ManagedBy() string { return r.cfg.managedBy }

// lockZone serialises Syncs of one zone within this Reconciler. Waiting for
// the Sync in progress ends with ctx: a Sync never outlives its context,
// even behind another one stuck on a server that does not answer.
func (r *Reconciler) lockZone(ctx context.Context, zone string) (unlock func(), err error) {
	m, _ := r.zoneLocks.LoadOrStore(zone, make(chan struct{}, 1))
	unlock, err = take(ctx, m.(chan struct{}))
	if err != nil {
		return nil, fmt.Errorf("wait for the Sync of the zone in progress: %w", err)
	}
	return unlock, nil
}

// take takes the one turn of sem, or gives up when ctx ends first.
func take(ctx context.Context, sem chan struct{}) (release func(), err error) {
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ownershipStore returns where ownership is recorded on this server,
// deciding once from the server's version and backend when the store is
// OwnershipAuto: comments, except on LMDB before 5.1, which refuses them.
func (r *Reconciler) ownershipStore(ctx context.Context, s *syncRun) (OwnershipStore, error) {
	done, err := take(ctx, r.storeTurn)
	if err != nil {
		return OwnershipAuto, err
	}
	defer done()
	if r.store != OwnershipAuto {
		return r.store, nil
	}
	var (
		server   *powerdns.Server
		settings []powerdns.ConfigSetting
	)
	err = s.call(ctx, func(ctx context.Context) error {
		var err error
		server, err = r.client.Servers.Get(ctx, r.client.VHost)
		return err
	})
	if err == nil {
		err = s.call(ctx, func(ctx context.Context) error {
			var err error
			settings, err = r.client.Config.List(ctx)
			return err
		})
	}
	if err != nil {
		return OwnershipAuto, err
	}
	version := ""
	if server != nil && server.Version != nil {
		version = *server.Version
	}
	launch := ""
	for _, st := range settings {
		if st.Name != nil && *st.Name == "launch" && st.Value != nil {
			launch = *st.Value
		}
	}
	r.store = storeFor(version, launch)
	r.cfg.logger.Debug("ownership store chosen", "store", r.store.String(), "version", version, "launch", launch)
	return r.store, nil
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
	var maj, mnr int
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, ok1 := atoi(parts[0])
	mnr, ok2 := atoi(parts[1])
	if !ok1 || !ok2 {
		return false
	}
	return maj > major || (maj == major && mnr >= minor)
}

func atoi(s string) (int, bool) {
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
