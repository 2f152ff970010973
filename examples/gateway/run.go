package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pdnskit/reconcile/rrset"
)

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "gateway: %v (see gateway -h)\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "gateway: %v\n", err)
		return exitFail
	}
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(err)
	}
	zone, err := rrset.CanonicalZone(cfg.zone)
	if err != nil {
		return fail(&usageError{fmt.Sprintf("-zone %q: %v", cfg.zone, err)})
	}

	srv, closeServer, err := connect(ctx, cfg, stderr)
	if err != nil {
		return fail(err)
	}
	defer closeServer()
	if err := srv.createZone(ctx, zone); err != nil {
		return fail(err)
	}
	if cfg.server != "" {
		defer func() {
			if cfg.keep {
				fmt.Fprintf(stderr, "gateway: zone %s kept at %s\n", zone, srv.url)
				return
			}
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := srv.deleteZone(ctx, zone); err != nil {
				fmt.Fprintf(stderr, "gateway: %v\n", err)
			}
		}()
	}

	d, err := newDemo(stdout, srv, zone)
	if err != nil {
		return fail(err)
	}
	if err := d.replay(ctx); err != nil {
		return fail(err)
	}
	rows, store, err := d.readBack(ctx)
	if err != nil {
		return fail(err)
	}
	d.printTable(rows, store)
	if !d.checks.report(d) {
		fmt.Fprintln(stderr, "gateway: a check failed")
		return exitFail
	}
	return exitOK
}
