package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// progressOver is the zone size above which zonesync reports progress on
// stderr.
const progressOver = 1000

// run is the command: it returns the exit code. Nothing is sent to the
// server before the flags, the key and the whole zone file have been read
// and found good.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "zonesync: %v\n", err)
		return exitFail
	}
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	zf, err := readZoneFile(cfg.file, cfg.zone)
	if err != nil {
		return fail(err)
	}
	progress := func(format string, args ...any) {
		if len(zf.desired) > progressOver {
			fmt.Fprintf(stderr, "zonesync: "+format+" (%.1fs)\n", append(args, time.Since(start).Seconds())...)
		}
	}
	progress("%s: %d RRsets read", cfg.file, len(zf.desired))

	rec, err := reconcile.New(cfg.server, options(cfg)...)
	if err != nil {
		return fail(fmt.Errorf("-server: %w", err))
	}
	// The Sync keeps the zone lock for a next write that will not come:
	// free it before the program ends.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rec.Close(ctx)
	}()
	var sync []reconcile.SyncOption
	if cfg.forceDeletes {
		sync = append(sync, reconcile.ForceDeletes())
	}

	rep := newReport(cfg, zf)
	if cfg.apply {
		progress("applying to %s at %s", cfg.zone, cfg.server)
		res, err := rec.Sync(ctx, cfg.zone, zf.desired, sync...)
		if err != nil {
			return fail(explain(cfg, err))
		}
		rep.Changes = append(rep.Changes, res.Applied...)
		rep.Blocked = append(rep.Blocked, res.Blocked...)
		rep.addRefused(res.Refused)
		rep.addDeferred(res.Deferred)
		rep.Postponed = append(rep.Postponed, res.Postponed...)
		rep.PostponedFor = res.PostponedFor
		progress("%d changes applied in %d PATCH(es)", len(res.Applied), res.Patches)
	} else {
		progress("planning against %s at %s", cfg.zone, cfg.server)
		plan, err := rec.Plan(ctx, cfg.zone, zf.desired, sync...)
		if err != nil {
			return fail(explain(cfg, err))
		}
		rep.Changes = append(rep.Changes, plan.Plan.Changes...)
		rep.Blocked = append(rep.Blocked, plan.Blocked...)
		rep.addRefused(plan.Refused)
		rep.addDeferred(plan.Deferred)
		progress("%d changes planned", len(plan.Plan.Changes))
	}

	if cfg.format == "json" {
		if err := rep.writeJSON(stdout); err != nil {
			return fail(err)
		}
	} else {
		rep.writeText(stdout)
	}
	if rep.held() {
		return exitBlocked
	}
	return exitOK
}

func options(cfg *config) []reconcile.Option {
	opts := []reconcile.Option{
		reconcile.WithAPIKey(cfg.apiKey),
		reconcile.WithManagedBy(cfg.managedBy),
		reconcile.WithHTTPClient(&http.Client{Timeout: 2 * time.Minute}),
		// The zone file is the authority, read whole: a record it no
		// longer holds is deleted on this run (the delete guard still
		// holds back large deletions).
		reconcile.WithDeletionGate(1, 0),
		reconcile.WithRetry(backoff.WithMaxAttempts(3)),
	}
	if cfg.takeover {
		opts = append(opts, reconcile.WithTakeover())
	}
	if cfg.adopt {
		opts = append(opts, reconcile.WithAdoption())
	}
	return opts
}

// explain turns a failed Sync or Plan into a message naming the flag to
// fix where there is one. The key never appears in it: package reconcile
// keeps it out of its errors.
func explain(cfg *config, err error) error {
	switch pdnserrors.ReasonOf(err) {
	case pdnserrors.Unauthorized:
		return fmt.Errorf("PowerDNS at %s refused the API key from %s (401 Unauthorized)", cfg.server, cfg.keySource)
	case pdnserrors.ZoneNotFound:
		return fmt.Errorf("zone %s does not exist at %s (-zone); zonesync writes into an existing zone", cfg.zone, cfg.server)
	}
	var in *reconcile.InputError
	if errors.As(err, &in) {
		return fmt.Errorf("-file %s: %w", cfg.file, in.Err)
	}
	return err
}
