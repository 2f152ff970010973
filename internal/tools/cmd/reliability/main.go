// Command reliability runs what shows how the library behaves under faults,
// load and hostile input, and writes RELIABILITY.md:
//
//	reliability report [flags]   faults, load and fuzzing; writes -out
//	reliability fuzz [flags]     every fuzz target for -fuzztime each
//	reliability load [flags]     the load figures alone
//
// It needs the PowerDNS servers of pdnstest, configured as `make
// test` configures them (make reliability and make fuzz do).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/internal/tools/machine"
	"github.com/pdnskit/reconcile/internal/tools/report"
	"github.com/pdnskit/reconcile/pdnstest"
)

// envAPIKey hands the API key to a load child process, out of its command
// line.
const envAPIKey = "PDNS_RELIABILITY_API_KEY"

type flags struct {
	out         string
	log         string
	fuzztime    time.Duration
	fuzzOnly    string
	zones       string
	rrsets      int
	concurrency int
	fallback    int
	big         int
	versions    string
	backends    string
	shared      string
	sharedZones int
	sharedConc  int
	skipFaults  bool
	skipLoad    bool
	skipFuzz    bool
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch cmd {
	case "report":
		err = runReport(ctx, parse(cmd, args))
	case "fuzz":
		err = fuzzOnly(ctx, parse(cmd, args))
	case "load":
		err = loadOnly(ctx, parse(cmd, args))
	case "load-child":
		err = loadChild(ctx, args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reliability:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: reliability report|fuzz|load [flags] (-h for the flags)")
	os.Exit(2)
}

func parse(name string, args []string) flags {
	var f flags
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&f.out, "out", "RELIABILITY.md", "where report writes its Markdown")
	fs.StringVar(&f.log, "log", "", "file that receives the raw output of every go test run (for the API key check)")
	fs.DurationVar(&f.fuzztime, "fuzztime", 20*time.Second, "fuzzing budget per target")
	fs.StringVar(&f.fuzzOnly, "fuzz-targets", "", "comma-separated fuzz targets to run (default: all)")
	fs.StringVar(&f.zones, "zones", "50,100,200", "zone counts of the load runs (×1, ×2, ×4)")
	fs.IntVar(&f.rrsets, "rrsets", 1000, "RRsets per zone in the load runs")
	fs.IntVar(&f.concurrency, "concurrency", 8, "Syncs in flight in the load runs")
	fs.IntVar(&f.fallback, "fallback-concurrency", 2, "Syncs in flight of a second try of a load run that failed (0: none)")
	fs.IntVar(&f.big, "big", 100000, "RRsets of the one-zone load run (0: none)")
	fs.StringVar(&f.versions, "versions", "all", `PowerDNS versions the load runs on ("4.7,5.1"), or "all"`)
	fs.StringVar(&f.backends, "backends", "gsqlite3,lmdb,gpgsql,gmysql", "backends the load runs on, of those configured (gmysql with PDNS_TEST_WITH_GMYSQL=1)")
	fs.StringVar(&f.shared, "shared", "2x2", `writers × replicas of the shared load run ("none": no such run)`)
	fs.IntVar(&f.sharedZones, "shared-zones", 200, "zones of the shared load run")
	fs.IntVar(&f.sharedConc, "shared-concurrency", 8, "Syncs in flight in the shared load run, over all its Reconcilers")
	fs.BoolVar(&f.skipFaults, "skip-faults", false, "report: do not run the fault tests")
	fs.BoolVar(&f.skipLoad, "skip-load", false, "report: do not run the load")
	fs.BoolVar(&f.skipFuzz, "skip-fuzz", false, "report: do not fuzz")
	_ = fs.Parse(args)
	return f
}

// moduleRoot finds the directory holding go.mod, from the working
// directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func openLog(path string) (io.Writer, func(), error) {
	if path == "" {
		return io.Discard, func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { _ = f.Close() }, nil
}

func runReport(ctx context.Context, f flags) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	logw, closeLog, err := openLog(f.log)
	if err != nil {
		return err
	}
	defer closeLog()
	rep := &report.Report{Generated: time.Now(), Machine: machine.This(), FuzzBudget: f.fuzztime,
		LoadBefore: machine.LoadAverage()}
	if targets, err := pdnstest.Targets(); err == nil && len(targets) > 0 {
		rep.Provider = string(targets[0].Provider)
	}

	if !f.skipFaults {
		// The whole matrix: every fault case on every server, the
		// longer races (make test runs a share of it).
		if err := os.Setenv(depth.EnvFull, "1"); err != nil {
			return err
		}
		args := []string{"-race", "-count=1", "-timeout", "20m", "./internal/testing/reliability/...", "./internal/testing/faultproxy/..."}
		rep.FaultsCmd = depth.EnvFull + "=1 go test " + strings.Join(args, " ")
		fmt.Fprintln(os.Stderr, "[reliability] faults:", rep.FaultsCmd)
		rep.Faults, err = report.RunTests(ctx, root, os.Stderr, logw, args...)
		if err != nil {
			rep.FaultsErr = err.Error()
		}
	} else {
		rep.FaultsErr = "skipped (-skip-faults)"
	}
	if !f.skipLoad {
		rep.Load, err = load(ctx, f)
		if err != nil {
			rep.LoadErr = err.Error()
		}
	} else {
		rep.LoadErr = "Skipped (-skip-load)."
	}
	if !f.skipFuzz {
		rep.Fuzz, err = fuzz(ctx, root, f, logw)
		if err != nil {
			rep.FuzzErr = err.Error()
		}
	} else {
		rep.FuzzErr = "Skipped (-skip-fuzz)."
	}
	rep.LoadAfter = machine.LoadAverage()
	out := f.out
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	if err := os.WriteFile(out, []byte(rep.Markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "[reliability] wrote", out)
	if rep.Faults != nil && !rep.Faults.Passed {
		return errors.New("fault tests failed (see " + f.out + ")")
	}
	for _, r := range rep.Fuzz {
		if r.Failed {
			return errors.New("fuzzing found a failure (see " + f.out + ")")
		}
	}
	return nil
}

func fuzz(ctx context.Context, root string, f flags, logw io.Writer) ([]report.FuzzResult, error) {
	targets, err := report.ListFuzzTargets(ctx, root)
	if err != nil {
		return nil, err
	}
	if f.fuzzOnly != "" {
		keep := make(map[string]bool)
		for _, n := range strings.Split(f.fuzzOnly, ",") {
			keep[strings.TrimSpace(n)] = true
		}
		var sel []report.FuzzTarget
		for _, t := range targets {
			if keep[t.Name] {
				sel = append(sel, t)
			}
		}
		targets = sel
	}
	var out []report.FuzzResult
	for _, t := range targets {
		fmt.Fprintf(os.Stderr, "[reliability] fuzz %s for %s\n", t, f.fuzztime)
		r, err := report.RunFuzz(ctx, root, t, f.fuzztime)
		if err != nil {
			return out, err
		}
		if r.DeadlineRaces > 0 {
			fmt.Fprintf(logw, "fuzz %s: %d campaign(s) ended by Go's fuzzing deadline race (go.dev/issue/75804), run again\n%s\n",
				t, r.DeadlineRaces, r.RaceOutput)
			fmt.Fprintf(os.Stderr, "[reliability]   %d campaign(s) ended by Go's fuzzing deadline race with no input (go.dev/issue/75804); run again\n", r.DeadlineRaces)
		}
		fmt.Fprintf(logw, "fuzz %s: %d execs, failed %t\n%s\n", t, r.Execs, r.Failed, r.Output)
		fmt.Fprintf(os.Stderr, "[reliability]   %d executions, %d new interesting (corpus %d), corpus run first %d/%d, failed: %t %s\n",
			r.Execs, r.NewInteresting, r.Corpus, r.BaselineDone, r.BaselineOf, r.Failed, r.Crasher)
		out = append(out, r)
	}
	return out, nil
}

func fuzzOnly(ctx context.Context, f flags) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	results, err := fuzz(ctx, root, f, io.Discard)
	if err != nil {
		return err
	}
	fmt.Printf("%-66s %12s %14s  %s\n", "target", "executions", "corpus first", "result")
	failed := false
	for _, r := range results {
		result := "no failure"
		if r.Failed {
			failed = true
			result = "FAILED " + r.Crasher
		}
		fmt.Printf("%-66s %12d %14s  %s\n", r.Target, r.Execs, fmt.Sprintf("%d/%d", r.BaselineDone, r.BaselineOf), result)
	}
	if failed {
		return errors.New("fuzzing found a failure; the crasher is kept under the package's testdata/fuzz")
	}
	return nil
}

func loadOnly(ctx context.Context, f flags) error {
	runs, err := load(ctx, f)
	rep := &report.Report{Load: runs, Machine: machine.This()}
	if err != nil {
		rep.LoadErr = err.Error()
	}
	var b strings.Builder
	fmt.Fprintln(&b, rep.Machine)
	md := rep.Markdown()
	if i := strings.Index(md, "## Load"); i >= 0 {
		md = md[i:]
		if j := strings.Index(md, "## Fuzzing"); j >= 0 {
			md = md[:j]
		}
	}
	fmt.Print(b.String() + md)
	return err
}

// load runs the load plan: on each selected server, every zone count of
// -zones with one Reconciler, then -shared-zones with the writers and
// replicas of -shared, then the -big zone at the default body limit and at
// 1 MB.
func load(ctx context.Context, f flags) ([]report.LoadRun, error) {
	targets, err := pdnstest.Targets()
	if err != nil {
		return nil, err
	}
	backends := make(map[pdnstest.Backend]bool)
	for _, b := range strings.Split(f.backends, ",") {
		backends[pdnstest.Backend(strings.TrimSpace(b))] = true
	}
	writers, replicas, err := parseShared(f.shared)
	if err != nil {
		return nil, err
	}
	var sel []pdnstest.Target
	for _, t := range targets {
		if !backends[t.Backend] {
			continue
		}
		if f.versions == "all" {
			sel = append(sel, t)
			continue
		}
		src := filepath.Base(t.Image + t.Root)
		for _, v := range strings.Split(f.versions, ",") {
			if v = strings.TrimSpace(v); v != "" && strings.Contains(src, v) {
				sel = append(sel, t)
			}
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("no server of backend %s and version %s configured", f.backends, f.versions)
	}
	var sizes []int
	for _, s := range strings.Split(f.zones, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-zones: %q is not a zone count", s)
		}
		sizes = append(sizes, n)
	}
	var (
		runs []report.LoadRun
		errs []error
	)
	for _, t := range sel {
		for _, n := range sizes {
			run := loadOn(ctx, t, nil, reliability.LoadConfig{Zones: n, RRsets: f.rrsets, Concurrency: f.concurrency})
			runs = append(runs, run)
			if run.Err != "" && f.fallback > 0 && f.fallback < f.concurrency {
				// Measured too: the same load with fewer Syncs in flight.
				runs = append(runs, loadOn(ctx, t, nil, reliability.LoadConfig{Zones: n, RRsets: f.rrsets, Concurrency: f.fallback}))
			}
		}
		if writers > 0 {
			runs = append(runs, loadOn(ctx, t, nil, reliability.LoadConfig{Zones: f.sharedZones, RRsets: f.rrsets,
				Concurrency: f.sharedConc, Writers: writers, Replicas: replicas}))
		}
		if f.big > 0 {
			runs = append(runs, loadOn(ctx, t, nil, reliability.LoadConfig{Zones: 1, RRsets: f.big, Concurrency: 1}))
			runs = append(runs, loadOn(ctx, t, []string{"--webserver-max-bodysize=1"},
				reliability.LoadConfig{Zones: 1, RRsets: f.big, Concurrency: 1, MaxPatchBytes: 1 << 20}))
		}
	}
	for _, r := range runs {
		switch {
		case r.Err != "":
			errs = append(errs, fmt.Errorf("%s %d×%d%s: %s", r.Server, r.Result.Zones, r.Result.RRsets, sharedSuffix(r.Result), r.Err))
		case r.Result.Violations > 0:
			errs = append(errs, fmt.Errorf("%s %d×%d%s: %d violation(s), e.g. %s", r.Server, r.Result.Zones, r.Result.RRsets,
				sharedSuffix(r.Result), r.Result.Violations, strings.Join(r.Result.Examples, "; ")))
		}
	}
	return runs, errors.Join(errs...)
}

// parseShared reads -shared: "2x2" is two writers of two replicas each;
// "none" (or "") no shared run, 0 writers.
func parseShared(s string) (writers, replicas int, err error) {
	if s == "" || s == "none" {
		return 0, 0, nil
	}
	w, r, ok := strings.Cut(strings.ReplaceAll(s, "×", "x"), "x")
	writers, werr := strconv.Atoi(strings.TrimSpace(w))
	replicas, rerr := strconv.Atoi(strings.TrimSpace(r))
	if !ok || werr != nil || rerr != nil || writers < 1 || replicas < 1 || writers*replicas < 2 {
		return 0, 0, fmt.Errorf("-shared: %q is not writers x replicas (at least two Reconcilers)", s)
	}
	return writers, replicas, nil
}

// sharedSuffix names the writers and replicas of a shared run.
func sharedSuffix(r reliability.LoadResult) string {
	if r.Writers*r.Replicas <= 1 {
		return ""
	}
	return fmt.Sprintf(", %d writers × %d replicas", r.Writers, r.Replicas)
}

// loadOn starts a fresh server of target t (with args) and runs one load
// against it in a child process.
func loadOn(ctx context.Context, t pdnstest.Target, args []string, cfg reliability.LoadConfig) report.LoadRun {
	run := report.LoadRun{Server: t.String(), MaxPatchBytes: cfg.MaxPatchBytes, Result: reliability.LoadResult{
		Zones: cfg.Zones, RRsets: cfg.RRsets, Concurrency: cfg.Concurrency, Writers: cfg.Writers, Replicas: cfg.Replicas}}
	if len(args) > 0 {
		run.MaxBodyMB = 1
	}
	srv, err := pdnstest.Launch(ctx, pdnstest.WithTarget(t), pdnstest.WithArgs(args...))
	if srv != nil {
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = srv.Stop(stopCtx)
		}()
	}
	if err != nil {
		run.Err = err.Error()
		return run
	}
	run.Server, run.Frontends = srv.Name(), len(srv.Frontends)
	fmt.Fprintf(os.Stderr, "[reliability] load %d zones × %d RRsets%s, concurrency %d, on %s\n", cfg.Zones, cfg.RRsets,
		sharedSuffix(run.Result), cfg.Concurrency, run.Server)
	self, err := os.Executable()
	if err != nil {
		run.Err = err.Error()
		return run
	}
	cmd := exec.CommandContext(ctx, self, "load-child",
		"-url", srv.URL, "-zones", strconv.Itoa(cfg.Zones), "-rrsets", strconv.Itoa(cfg.RRsets),
		"-concurrency", strconv.Itoa(cfg.Concurrency), "-max-patch-bytes", strconv.Itoa(cfg.MaxPatchBytes),
		"-writers", strconv.Itoa(cfg.Writers), "-replicas", strconv.Itoa(cfg.Replicas))
	cmd.Env = append(os.Environ(), envAPIKey+"="+srv.APIKey)
	var stderr strings.Builder
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	out, err := cmd.Output()
	if err != nil {
		run.Err = err.Error()
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			lines := strings.Split(msg, "\n")
			run.Err = strings.TrimPrefix(lines[len(lines)-1], "reliability: ")
		}
		return run
	}
	if err := json.Unmarshal(out, &run.Result); err != nil {
		run.Err = fmt.Sprintf("read child's result: %v", err)
		return run
	}
	res := run.Result
	fmt.Fprintf(os.Stderr, "[reliability]   sync %s, resync %s, %d PATCHes, %d requests, peak heap %s, peak RSS %s, %d violation(s)\n",
		res.Wall.Round(time.Millisecond), res.Resync.Round(time.Millisecond), res.Patches, res.Requests,
		report.Bytes(res.PeakHeap), report.Bytes(res.PeakRSS), res.Violations)
	return run
}

// loadChild runs one load in this process and prints its result as JSON.
func loadChild(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load-child", flag.ExitOnError)
	var cfg reliability.LoadConfig
	fs.StringVar(&cfg.ServerURL, "url", "", "PowerDNS API URL")
	fs.IntVar(&cfg.Zones, "zones", 1, "zones")
	fs.IntVar(&cfg.RRsets, "rrsets", 1000, "RRsets per zone")
	fs.IntVar(&cfg.Concurrency, "concurrency", 8, "Syncs in flight")
	fs.IntVar(&cfg.MaxPatchBytes, "max-patch-bytes", 0, "WithMaxPatchBytes (0: default)")
	fs.IntVar(&cfg.Writers, "writers", 1, "writers")
	fs.IntVar(&cfg.Replicas, "replicas", 1, "Reconcilers per writer")
	_ = fs.Parse(args)
	cfg.APIKey = os.Getenv(envAPIKey)
	res, err := reliability.Load(ctx, cfg)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
