// Command pdnsbench measures Reconciler.Sync against one PATCH per RRset and
// against PowerDNS's own floor on every configured PowerDNS server, and
// writes the report (BENCHMARKS.md) and its chart. `make bench` runs it
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

	"github.com/pdnskit/reconcile/internal/bench"
	"github.com/pdnskit/reconcile/pdnstest"
)

// defaultSlow says where the per-RRset writers run, to keep `make bench`
// to some twenty minutes: b in the scenarios where it reconciles a few
// objects (1% changed, 10% deleted) at 1,000 RRsets on every server; on the
// newest server only, b in the initial and no-op syncs at 1,000 RRsets and
// in the 1%-changed sync at 10,000, and b′ (b's PATCHes without its GETs, a
// lower bound of b) in the initial sync at both sizes. A run of b that
// reconciles 10,000 objects takes several minutes.
const defaultSlow = "b:1000:all:changed+deleted b:1000:newest:initial+noop bw:1000:newest:initial " +
	"b:10000:newest:changed bw:10000:newest:initial"

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
		sizes      = flag.String("sizes", "1000,10000", "RRsets per zone, comma-separated")
		scenarios  = flag.String("scenarios", "initial,changed,noop,deleted", "scenarios to run, comma-separated")
		fast       = flag.String("fast", "a,c", "writers that run in every scenario at every size: a (Reconciler.Sync), c (floor)")
		slow       = flag.String("slow", defaultSlow, "where the per-RRset writers b (GET + PATCH per RRset) and bw (PATCH per RRset, no GET) run: space-separated writer:size:servers:scenario+…, servers being all, newest or a version prefix")
		runs       = flag.Int("runs", 15, "timed runs per cell of writers a and c")
		slowRuns   = flag.Int("slow-runs", 5, "timed runs per cell of the per-RRset writers b and bw")
		warmup     = flag.Int("warmup", 1, "untimed runs before the timed ones, for writers a and c")
		maxBodyMB  = flag.Int("max-body-mb", 8, "the servers' webserver-max-bodysize in MB (PowerDNS's default is 2)")
		versions   = flag.String("versions", "", "only the servers whose version starts with one of these, comma-separated")
		cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
		command    = flag.String("command", "", "the command line to quote in the report (default: this one)")
		saveTo     = flag.String("save", filepath.Join(os.TempDir(), "pdnsbench-results.json"), "also write the measurements to this JSON file (\"\" for none), from which -render can write the report again")
		render     = flag.String("render", "", "measure nothing: write the report from measurements saved with -save")
	)
	flag.Parse()

	plan := bench.Plan{
		Runs:      *runs,
		SlowRuns:  *slowRuns,
		Warmup:    *warmup,
		MaxBodyMB: *maxBodyMB,
		Versions:  list(*versions),
	}
	var err error
	if plan.Sizes, err = ints(*sizes); err != nil {
		return err
	}
	if plan.Scenarios, err = parseScenarios(*scenarios); err != nil {
		return err
	}
	if plan.Slow, err = bench.ParseSlowRuns(*slow); err != nil {
		return err
	}
	if plan.Fast, err = parseWriters(*fast); err != nil {
		return err
	}
	if plan.Runs < 1 || plan.SlowRuns < 1 {
		return fmt.Errorf("-runs %d, -slow-runs %d: want at least 1 of each", plan.Runs, plan.SlowRuns)
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

func parseScenarios(s string) ([]bench.Scenario, error) {
	var out []bench.Scenario
	for _, f := range list(s) {
		sc, err := bench.ParseScenario(f)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

func parseWriters(s string) ([]bench.WriterID, error) {
	var out []bench.WriterID
	for _, f := range list(s) {
		w, err := bench.ParseWriter(f)
		if err != nil {
			return nil, err
		}
		if w.Slow() {
			return nil, fmt.Errorf("writer %s makes a request per RRset: say where it runs with -slow", f)
		}
		out = append(out, w)
	}
	return out, nil
}
