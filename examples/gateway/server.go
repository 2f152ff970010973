package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/pdnstest"
)

// server is the PowerDNS the demo writes to: one it started, or -server.
type server struct {
	url       string
	apiKey    string
	keySource string
	dnsAddr   string
	version   string
	backend   string
	// admin creates, reads back and deletes the demo's zone; the writers
	// have their own clients.
	admin *powerdns.Client
}

func (s *server) String() string {
	return fmt.Sprintf("PowerDNS %s (%s backend) at %s, DNS at %s", s.version, s.backend, s.url, s.dnsAddr)
}

// connect returns the server to write to: -server, or a PowerDNS started
// the way the tests start theirs (a container where Docker answers, else a
// local pdns_server). The caller calls close.
func connect(ctx context.Context, cfg *config, progress io.Writer) (srv *server, closeFn func(), err error) {
	if cfg.server == "" {
		return launch(ctx, cfg.backend, progress)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	srv = &server{
		url:       strings.TrimRight(cfg.server, "/"),
		apiKey:    cfg.apiKeyText,
		keySource: cfg.keySource,
		dnsAddr:   cfg.dnsAddr,
		admin:     powerdns.New(cfg.server, "localhost", powerdns.WithAPIKey(cfg.apiKeyText), powerdns.WithHTTPClient(hc)),
	}
	if srv.dnsAddr == "" {
		u, err := url.Parse(cfg.server)
		if err != nil || u.Hostname() == "" {
			return nil, nil, &usageError{fmt.Sprintf("-server %q is not a URL such as http://127.0.0.1:8081", cfg.server)}
		}
		srv.dnsAddr = net.JoinHostPort(u.Hostname(), "53")
	}
	if err := srv.describe(ctx); err != nil {
		return nil, nil, err
	}
	return srv, func() {}, nil
}

// launch starts the last configured server of backend: the newest version
// where the harness lists them oldest first, as it does by default.
func launch(ctx context.Context, backend string, progress io.Writer) (*server, func(), error) {
	targets, err := pdnstest.Targets()
	if err != nil {
		return nil, nil, noServer(err)
	}
	var pick *pdnstest.Target
	for _, t := range targets {
		if string(t.Backend) == backend {
			pick = &t
		}
	}
	if pick == nil {
		return nil, nil, noServer(fmt.Errorf("no configured server runs the %s backend", backend))
	}
	fmt.Fprintf(progress, "starting PowerDNS: %s\n", pick)
	started, err := pdnstest.Launch(ctx, pdnstest.WithTarget(*pick))
	closeFn := func() {
		if started == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := started.Stop(ctx); err != nil {
			fmt.Fprintf(progress, "stop PowerDNS: %v\n", err)
		}
	}
	if err != nil {
		closeFn()
		return nil, nil, fmt.Errorf("start PowerDNS: %w", err)
	}
	fmt.Fprintf(progress, "PowerDNS %s is up; it is stopped when the demo ends\n", started.Version)
	return &server{
		url:       started.URL,
		apiKey:    started.APIKey,
		keySource: "the started server",
		dnsAddr:   started.DNSAddr,
		version:   started.Version,
		backend:   string(started.Backend),
		admin:     started.Client,
	}, closeFn, nil
}

func noServer(err error) error {
	return fmt.Errorf("no PowerDNS to start here: %w\n"+
		"`make demo` prepares one (it builds local PowerDNS images when no registry answers); or pass -server", err)
}

// describe asks -server for its version and backend, which also proves the
// API key.
func (s *server) describe(ctx context.Context) error {
	info, err := s.admin.Servers.Get(ctx, "localhost")
	if err != nil {
		return s.explain(err)
	}
	if info.Version != nil {
		s.version = *info.Version
	}
	settings, err := s.admin.Config.List(ctx)
	if err != nil {
		return s.explain(err)
	}
	s.backend = "unknown"
	for _, st := range settings {
		if st.Name != nil && *st.Name == "launch" && st.Value != nil {
			s.backend = *st.Value
		}
	}
	return nil
}

// explain turns an error of the admin client into a message naming what to
// fix; it never holds the key.
func (s *server) explain(err error) error {
	var apiErr *powerdns.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("PowerDNS at %s refused the API key from %s (401 Unauthorized)", s.url, s.keySource)
	}
	return fmt.Errorf("PowerDNS at %s: %w", s.url, err)
}

// demoNameserver is the apex NS of the zone the demo creates.
const demoNameserver = "ns1.example.net."

// createZone creates the demo's zone; it refuses to touch one that exists.
func (s *server) createZone(ctx context.Context, zone string) error {
	_, err := s.admin.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{demoNameserver})
	var apiErr *powerdns.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusConflict {
		return fmt.Errorf("zone %s already exists at %s: the demo writes only to a zone it creates; pass another -zone", zone, s.url)
	}
	if err != nil {
		return fmt.Errorf("create zone %s: %w", zone, s.explain(err))
	}
	return nil
}

func (s *server) deleteZone(ctx context.Context, zone string) error {
	if err := s.admin.Zones.Delete(ctx, zone); err != nil {
		return fmt.Errorf("delete zone %s: %w", zone, s.explain(err))
	}
	return nil
}
