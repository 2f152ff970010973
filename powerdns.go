package reconcile

import (
	"context"
	"fmt"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/backoff"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/zonejson"
)

// server is the one place a Reconciler talks to PowerDNS: zone reads,
// metadata, PATCHes, zone creation and deletion, each retried within the
// Reconciler's retry bounds when it fails transiently. Everything else —
// deciding, the lock protocol, ownership — is built on its calls.
type server struct {
	client *pdnsapi.Client
	retry  []backoff.RetryOption

	// storeTurn lets one operation at a time learn the server's facts;
	// version and store are what it learned, once learned is true.
	storeTurn chan struct{}
	learned   bool
	version   string
	store     OwnershipStore
	logger    func(msg string, args ...any)
}

func newServer(client *pdnsapi.Client, cfg config) *server {
	return &server{
		client: client,
		// Waits between retries are real time whatever clock the
		// Reconciler reads: what they wait for is a server's recovery.
		retry:     cfg.retry,
		storeTurn: make(chan struct{}, 1),
		store:     cfg.ownership,
		logger:    cfg.logger.Debug,
	}
}

// session is the server as one operation uses it: every call is counted in
// the operation's tally.
type session struct {
	s *server
	t *tally
}

func (s *server) session(t *tally) session { return session{s: s, t: t} }

// call makes one API call, retrying transient failures; the error carries
// every problem PowerDNS reported (a *pdnserrors.APIError) or the
// transport's.
func (c session) call(ctx context.Context, fn func(ctx context.Context) error) error {
	return backoff.Retry(ctx, func(ctx context.Context) error {
		c.t.requests.Add(1)
		return fn(ctx)
	}, c.s.retry...)
}

// zone reads zone, narrowed by q.
func (c session) zone(ctx context.Context, zone string, q pdnsapi.ZoneQuery) (zonejson.Zone, error) {
	var z zonejson.Zone
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		z, err = c.s.client.GetZone(ctx, zone, q)
		return err
	})
	return z, err
}

// patch sends one PATCH.
func (c session) patch(ctx context.Context, zone string, rrsets []powerdns.RRset) error {
	c.t.patches.Add(1)
	return c.call(ctx, func(ctx context.Context) error { return c.s.client.PatchZone(ctx, zone, rrsets) })
}

// metadata reads every metadata kind of zone.
func (c session) metadata(ctx context.Context, zone string) ([]powerdns.Metadata, error) {
	var md []powerdns.Metadata
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		md, err = c.s.client.ListMetadata(ctx, zone)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read zone metadata: %w", err)
	}
	return md, nil
}

// kind reads the values of one metadata kind of zone (none when the kind
// is not there).
func (c session) kind(ctx context.Context, zone, kind string) ([]string, error) {
	var values []string
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		values, err = c.s.client.GetMetadata(ctx, zone, kind)
		return err
	})
	return values, err
}

// addKind creates a metadata kind with values in one request (POST): a
// reader sees a new kind whole or not at all, unlike a PUT, which PowerDNS
// carries out as a delete and then inserts.
func (c session) addKind(ctx context.Context, zone, kind string, values []string) error {
	return c.call(ctx, func(ctx context.Context) error { return c.s.client.AddMetadata(ctx, zone, kind, values) })
}

// dropKind deletes a metadata kind. A kind that is already gone is fine.
func (c session) dropKind(ctx context.Context, zone, kind string) error {
	err := c.call(ctx, func(ctx context.Context) error { return c.s.client.DeleteMetadata(ctx, zone, kind) })
	if pdnserrors.IsZoneNotFound(err) {
		// PowerDNS answers a DELETE of a kind that is not there with 204;
		// 404 is the zone, which is gone with its kinds.
		return nil
	}
	return err
}

// serverFacts is what a Reconciler learns of its server once: its version,
// and where ownership is recorded.
type serverFacts struct {
	version string
	store   OwnershipStore
}

// facts learns the server's version and, when the store is OwnershipAuto,
// its backend, once: where ownership is recorded follows from both
// (comments, except on LMDB before 5.1, which refuses them), and the
// version decides what data the server can store (rrset.CheckVersion).
func (c session) facts(ctx context.Context) (serverFacts, error) {
	s := c.s
	select {
	case s.storeTurn <- struct{}{}:
	case <-ctx.Done():
		return serverFacts{}, ctx.Err()
	}
	defer func() { <-s.storeTurn }()
	if s.learned {
		return serverFacts{version: s.version, store: s.store}, nil
	}
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		s.version, err = s.client.ServerVersion(ctx)
		return err
	})
	if err != nil {
		return serverFacts{}, fmt.Errorf("read server version: %w", err)
	}
	if s.store == OwnershipAuto {
		var launch string
		err = c.call(ctx, func(ctx context.Context) error {
			var err error
			launch, _, err = s.client.ConfigSetting(ctx, "launch")
			return err
		})
		if err != nil {
			return serverFacts{}, fmt.Errorf("detect ownership store: %w", err)
		}
		s.store = storeFor(s.version, launch)
		s.logger("ownership store chosen", "store", s.store.String(), "version", s.version, "launch", launch)
	}
	s.learned = true
	return serverFacts{version: s.version, store: s.store}, nil
}

// settings reads the server's configuration (GET /config).
func (c session) settings(ctx context.Context) ([]powerdns.ConfigSetting, error) {
	var settings []powerdns.ConfigSetting
	err := c.call(ctx, func(ctx context.Context) error {
		return pdnsapi.Call(ctx, func(ctx context.Context) error {
			var err error
			settings, err = c.s.client.Config.List(ctx)
			return err
		})
	})
	return settings, err
}
