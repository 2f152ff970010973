// Command pdnsbench measures Reconciler.Sync and Reconciler.Apply against
// per-object writers and against PowerDNS's own floor on every configured
// PowerDNS server (gsqlite3, LMDB, gpgsql, gmysql), and writes the report
// (BENCHMARKS.md) and its chart. `make bench` runs it
// after the Go benchmarks of package bench, whose output it summarises.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/pdnskit/reconcile/internal/tools/bench"
	"github.com/pdnskit/reconcile/pdnstest"
)

// defaultPlan is what `make bench` measures, chosen to fit in about 45
// minutes on a two-core machine over the nine servers of the full matrix
// (gsqlite3 4.7, 4.9, 5.1; LMDB, gpgsql and gmysql 4.9, 5.1). Every run
// begins from a fresh zone and its start state, so a run costs its start
// state's write besides its own, and gpgsql and gmysql write about ten
// times slower than gsqlite3:
//
//   - Sync (a) and the floor (c) in every scenario, 15 runs per cell, at
//     100, 1,000 and 10,000 RRsets on gsqlite3 and LMDB, at 100 and 1,000
//     on gpgsql and gmysql, whose 10,000-RRset initial and no-op syncs run
//     on the newest of each, 5 runs per cell;
//   - 100,000 RRsets, initial and no-op syncs, 5 runs per cell, on the
//     newest gsqlite3 and the newest LMDB only;
//   - for the ownership table, the floor without ownership (c0) at 1,000
//     and 10,000 RRsets on the newest gsqlite3 and on LMDB 4.9 (where the
//     store is metadata), at 1,000 on the newest gpgsql; the floor with
//     the metadata store (cm) at 1,000 on the newest gsqlite3;
//   - the per-object writers at 1,000 objects on the newest gsqlite3:
//     Apply (d) and the filtered GET (b) 15 runs of the no-op and
//     1%-changed syncs, which the targets are about, the blind PATCH (b′)
//     5, and all three 3 runs of the initial sync and the 10% removed,
//     where a run is a thousand (or a hundred) operations of several
//     requests; on LMDB 4.9 (ownership in metadata, where an Apply and
//     (b) also read the zone's metadata), (d) and (b) 15 runs of the
//     1%-changed and the no-op syncs, 3 of the 10% removed; its initial
//     sync (half a minute a run for each writer) is left out.
const defaultPlan = "a+c:100+1000+10000:gsqlite3+lmdb:all:15 " +
	"a+c:100+1000:gpgsql+gmysql:all:15 " +
	"a+c:10000:gpgsql/newest+gmysql/newest:initial+noop:5 " +
	"a+c:100000:gsqlite3/newest+lmdb/newest:initial+noop:5 " +
	"c0:1000+10000:gsqlite3/newest+lmdb/4.9:all:15 " +
	"c0:1000:gpgsql/newest:all:15 " +
	"cm:1000:gsqlite3/newest:all:15 " +
	"d+b:1000:gsqlite3/newest:changed+noop:15 " +
	"bw:1000:gsqlite3/newest:changed+noop:5 " +
	"d+b+bw:1000:gsqlite3/newest:initial+deleted:3 " +
	"d+b:1000:lmdb/4.9:changed+noop:15 " +
	"d+b:1000:lmdb/4.9:deleted:3"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pdnsbench:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		out        = flag.String("out", "BENCHMARKS.md", "report to write")
		chart      = flag.String("chart", "docs/bench-sync.png", "chart to write, linked from the report by its path relative to the report")
		goBench    = flag.String("gobench", "", "output of `go test -bench` of package bench to summarise in the report")
		planFlag   = flag.String("plan", defaultPlan, "what to measure: space-separated writers:sizes:servers:scenarios:runs rules; writers a (Sync), d (Apply per object), b (filtered GET + PATCH per object), bw (blind PATCH per object), c (floor), c0 (floor without ownership), cm (floor with the metadata store); servers all, a backend, backend/newest or backend/<version>; scenarios initial, changed, noop, deleted or all")
		sizes      = flag.String("sizes", "", "only these sizes of the plan, comma-separated")
		runs       = flag.Int("runs", 0, "at most this many timed runs per cell (0: as the plan says)")
		warmup     = flag.Int("warmup", 1, "untimed runs before the first scenario at each size, for the writers that are not per object")
		maxBodyMB  = flag.Int("max-body-mb", 8, "the servers' webserver-max-bodysize in MB (PowerDNS's default is 2)")
		versions   = flag.String("versions", "", "only the servers whose version starts with one of these, comma-separated")
		backends   = flag.String("backends", "", "only the servers of these backends (gsqlite3, lmdb, gpgsql, gmysql), comma-separated")
		cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
		command    = flag.String("command", "", "the command line to quote in the report (default: this one)")
		saveTo     = flag.String("save", filepath.Join(os.TempDir(), "pdnsbench-results.json"), "also write the measurements to this JSON file (\"\" for none), from which -render can write the report again")
		render     = flag.String("render", "", "measure nothing: write the report from measurements saved with -save")
	)
	flag.Parse()

	plan := bench.Plan{
		Warmup:    *warmup,
		MaxBodyMB: *maxBodyMB,
		Versions:  list(*versions),
		Backends:  list(*backends),
	}
	rules, err := bench.ParseRules(*planFlag)
	if err != nil {
		return err
	}
	only, err := ints(*sizes)
	if err != nil {
		return err
	}
	if *runs < 0 {
		return fmt.Errorf("-runs %d: want 0 or more", *runs)
	}
	plan.Rules = rules
	plan = plan.Restrict(only, *runs)
	if len(plan.Rules) == 0 {
		return fmt.Errorf("the plan measures nothing at sizes %s", *sizes)
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	cmdline := *command
	if cmdline == "" {
		cmdline = strings.Join(os.Args, " ")
	}
	var res *bench.Results
	if *render != "" {
		if res, err = bench.LoadResults(*render); err != nil {
			return err
		}
		cmdline = res.Command
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		targets, err := pdnstest.Targets()
		if err != nil {
			return err
		}
		if res, err = bench.Run(ctx, plan, targets, os.Stderr); err != nil {
			return err
		}
		res.Command = cmdline
		if *saveTo != "" {
			if err := res.Save(*saveTo); err != nil {
				return err
			}
			fmt.Fprintln(os.Stderr, "measurements saved to", *saveTo)
		}
	}
	return bench.WriteReport(bench.ReportInput{
		Results:   res,
		Path:      *out,
		ChartPath: *chart,
		GoBench:   *goBench,
		Command:   cmdline,
	})
}

func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range list(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("size %q: want a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}
