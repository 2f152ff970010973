// Command pdnstest starts the PowerDNS servers of a test run once, runs a
// command that tests against them, and stops them when it ends:
//
//	pdnstest [--] command [arg ...]
//
// It starts one server per target the PDNS_TEST_* variables configure (as
// the pdnstest package reads them), writes how to reach them to a file
// readable by its owner only, and runs command with PDNS_TEST_SERVERS naming
// that file: every test binary the command runs (go test ./... runs one per
// package) then shares those servers instead of starting its own, and tests
// stay isolated by zone. A test that kills or restarts a server still starts
// one of its own.
//
// Where no PowerDNS is available, command runs without PDNS_TEST_SERVERS
// and its tests skip (or fail, with PDNS_TEST_REQUIRED=1) as they would
// alone. A server that fails to start fails the run before command starts.
// An interrupt or termination is passed on to command; the servers are
// stopped once it has ended. The exit status is command's.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/pdnskit/reconcile/pdnstest"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: pdnstest [--] command [arg ...]")
		return 2
	}
	// Signals: passed on to the command once it runs; before that, an
	// interrupt ends the start-up. A write to a closed pipe (the reader of
	// this output interrupted too) must not end the process before it has
	// stopped the servers.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	began := time.Now()
	logf("starting the servers of the test matrix")
	servers, err := pdnstest.LaunchAll(ctx)
	defer stopAll(servers)
	env := os.Environ()
	switch {
	case errors.Is(err, pdnstest.ErrNoServer) && len(servers) == 0:
		logf("%v; running %s without shared servers", err, args[0])
	case err != nil:
		logf("%v", err)
		return 1
	default:
		for _, s := range servers {
			logf("%s: %s, API %s, DNS %s", s.Name(), s.Target, s.URL, s.DNSAddr)
		}
		logf("%d servers ready in %s", len(servers), time.Since(began).Round(100*time.Millisecond))
		dir, err := os.MkdirTemp("", "pdnstest-servers-")
		if err != nil {
			logf("%v", err)
			return 1
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "servers.json")
		if err := pdnstest.WriteServers(path, servers); err != nil {
			logf("%v", err)
			return 1
		}
		env = append(env, pdnstest.EnvServers+"="+path)
	}
	cancel()
	return runCommand(args, env, sigs)
}

// runCommand runs args with env, passing on every signal that arrives on
// sigs, and returns its exit status.
func runCommand(args, env []string, sigs <-chan os.Signal) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		logf("%v", err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		return 1 // ended by a signal
	default:
		logf("%s: %v", args[0], err)
		return 1
	}
}

// stopAll stops every server that started, all at once.
func stopAll(servers []*pdnstest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Stop(ctx); err != nil {
				logf("stop %s: %v", s.Target, err)
			}
		}()
	}
	wg.Wait()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pdnstest: "+format+"\n", args...)
}
