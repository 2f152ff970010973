package pdnstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/joeig/go-powerdns/v3"
)

// EnvServers names the variable that hands running servers to test
// binaries: the path of a file written by WriteServers. Where it is set,
// Servers, ForEachServer and SharedServer use the servers the file
// describes instead of starting their own, and Main leaves them running, so
// that every test binary of a run shares one set of servers (the pdnstest
// command starts them, sets the variable for the command it runs, and
// stops them when that command ends). Start still gives a test a server of
// its own, from the targets the other variables configure.
const EnvServers = "PDNS_TEST_SERVERS"

// serversFileVersion is the format of the file EnvServers names.
const serversFileVersion = 1

// serversFile is what the file EnvServers names holds. It holds API keys:
// it is written readable by its owner only and never printed.
type serversFile struct {
	Version int            `json:"version"`
	Servers []serverRecord `json:"servers"`
}

type serverRecord struct {
	Provider  Provider         `json:"provider"`
	Image     string           `json:"image,omitempty"`
	Root      string           `json:"root,omitempty"`
	Postgres  string           `json:"postgres,omitempty"`
	MariaDB   string           `json:"mariadb,omitempty"`
	Backend   Backend          `json:"backend"`
	URL       string           `json:"url"`
	APIKey    string           `json:"apiKey"`
	DNSAddr   string           `json:"dnsAddr"`
	Version   string           `json:"serverVersion"`
	Frontends []frontendRecord `json:"frontends,omitempty"`
}

type frontendRecord struct {
	URL     string `json:"url"`
	DNSAddr string `json:"dnsAddr"`
}

// LaunchAll starts one server per configured target, all at once, outside
// of a test: for a command that starts the servers of a whole test run
// (see EnvServers). The caller stops them with Stop, also those it gets
// back with an error (a nil entry is a server that did not start). It
// returns ErrNoServer when no PowerDNS is configured or available.
func LaunchAll(ctx context.Context) ([]*Server, error) {
	targets, err := Targets()
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, ErrNoServer
	}
	servers := make([]*Server, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = start(ctx, t, defaultOptions())
			if errs[i] != nil {
				errs[i] = fmt.Errorf("start %s: %w", t, errs[i])
			}
		}()
	}
	wg.Wait()
	return servers, errors.Join(errs...)
}

// WriteServers writes what test binaries need to reach servers (addresses,
// API keys, versions, backends) to path, readable by its owner only; a
// test binary whose EnvServers names path uses them. The servers must stay
// running while any such binary runs.
func WriteServers(path string, servers []*Server) error {
	f := serversFile{Version: serversFileVersion}
	for _, s := range servers {
		if s == nil {
			return errors.New("pdnstest: write servers: a server that did not start")
		}
		r := serverRecord{
			Provider: s.Target.Provider, Image: s.Target.Image, Root: s.Target.Root, Postgres: s.Target.Postgres, MariaDB: s.Target.MariaDB,
			Backend: s.Backend, URL: s.URL, APIKey: s.APIKey, DNSAddr: s.DNSAddr, Version: s.Version,
		}
		for _, fe := range s.Frontends {
			r.Frontends = append(r.Frontends, frontendRecord{URL: fe.URL, DNSAddr: fe.DNSAddr})
		}
		f.Servers = append(f.Servers, r)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("pdnstest: write servers: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("pdnstest: write servers: %w", err)
	}
	return nil
}

// errAttached is what Kill and Restart return for a server that another
// process runs.
var errAttached = errors.New("pdnstest: a server shared by every test binary of the run " +
	"cannot be killed or restarted: start one for the test with Start")

// shareable reports whether test binaries can share srv; each test binary
// runs a server that is not shareable of its own, as without EnvServers.
// Such a server starts in a second or two.
//
//   - gsqlite3 before 4.8 answers 500 ('database is locked') to writes that
//     several test binaries send at once, where one binary's own tests never
//     met it.
//   - LMDB keeps a deleted zone's RRset comments and hands them to the next
//     zone that gets its id (seen on 5.1.5): a zone one binary deletes gives
//     another binary's new zone ownership it never wrote. Within one binary
//     the tests that delete zones are written for it.
func shareable(srv *Server) bool {
	switch srv.Backend {
	case LMDB:
		return false
	case GSQLite3:
		return srv.AtLeast(4, 8)
	}
	return true
}

// attachTimeout bounds how long attachServers waits for a server to answer.
var attachTimeout = 10 * time.Second

// attachServers reads the servers the file at path describes and checks
// that each answers, so that a file left by a run that has ended fails the
// test with a reason rather than with refused connections.
func attachServers(path string) ([]*Server, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the servers of %s: %w", EnvServers, err)
	}
	var f serversFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("read the servers of %s=%s: %w", EnvServers, path, err)
	}
	if f.Version != serversFileVersion {
		return nil, fmt.Errorf("read the servers of %s=%s: format %d, want %d", EnvServers, path, f.Version, serversFileVersion)
	}
	if len(f.Servers) == 0 {
		return nil, fmt.Errorf("%s=%s names no server", EnvServers, path)
	}
	servers := make([]*Server, len(f.Servers))
	errs := make([]error, len(f.Servers))
	var wg sync.WaitGroup
	for i, r := range f.Servers {
		srv := &Server{
			Target:  Target{Provider: r.Provider, Image: r.Image, Root: r.Root, Postgres: r.Postgres, MariaDB: r.MariaDB, Backend: r.Backend},
			URL:     r.URL,
			APIKey:  r.APIKey,
			DNSAddr: r.DNSAddr,
			Version: r.Version,
			Backend: r.Backend,
			Client:  powerdns.New(r.URL, "localhost", powerdns.WithAPIKey(r.APIKey)),
			kill:    func(context.Context) error { return errAttached },
			revive:  func(context.Context) error { return errAttached },
		}
		for _, fe := range r.Frontends {
			srv.Frontends = append(srv.Frontends, Frontend{
				URL: fe.URL, DNSAddr: fe.DNSAddr,
				Client: powerdns.New(fe.URL, "localhost", powerdns.WithAPIKey(r.APIKey)),
			})
		}
		if len(srv.Frontends) > 0 {
			// A round-robin of this test binary's own, as where it starts
			// the server: consecutive requests of this binary alternate,
			// whatever the other binaries send.
			urls := make([]string, len(srv.Frontends))
			for j, fe := range srv.Frontends {
				urls[j] = fe.URL
			}
			rr, err := startRoundRobin(urls)
			if err != nil {
				errs[i] = fmt.Errorf("shared server %s: %w", srv.Name(), err)
				continue
			}
			srv.URL = rr.url
			srv.Client = powerdns.New(rr.url, "localhost", powerdns.WithAPIKey(r.APIKey))
			srv.stop = func(context.Context) error { return rr.close() }
		}
		if !shareable(srv) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Started and stopped as without EnvServers; a server
				// that did not start whole is still stopped.
				var err error
				servers[i], err = start(context.Background(), srv.Target, defaultOptions())
				if err != nil {
					errs[i] = fmt.Errorf("start %s: %w", srv.Target, err)
				}
			}()
			continue
		}
		servers[i] = srv
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), attachTimeout)
			defer cancel()
			for {
				_, err := fetchVersion(ctx, srv.URL, srv.APIKey)
				if err == nil {
					return
				}
				if sleep(ctx, 200*time.Millisecond) != nil {
					errs[i] = fmt.Errorf("shared server %s at %s (from %s): %w; does the command that started it still run?",
						srv.Name(), srv.URL, EnvServers, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, srv := range servers {
			if srv != nil {
				_ = srv.Stop(context.Background())
			}
		}
		return nil, err
	}
	return servers, nil
}
