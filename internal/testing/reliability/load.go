package reliability

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// LoadConfig says what Load syncs.
type LoadConfig struct {
	// ServerURL and APIKey reach the PowerDNS API.
	ServerURL, APIKey string
	// Zones is how many zones are synced, RRsets how many RRsets each
	// holds.
	Zones, RRsets int
	// Concurrency bounds the Syncs in flight, over all Reconcilers.
	Concurrency int
	// Writers is how many writers share every zone, Replicas how many
	// Reconcilers each writer runs (as a controller's replicas during a
	// rollout); 0 means 1. See LoadShare for who wants what.
	Writers, Replicas int
	// MaxPatchBytes is passed to WithMaxPatchBytes when not 0.
	MaxPatchBytes int
	// Prefix starts every zone name, so that runs on one server do not
	// meet.
	Prefix string
}

// LoadResult is what Load measured.
type LoadResult struct {
	Zones, RRsets, Concurrency int
	Writers, Replicas          int
	// Store is the ownership store the Reconcilers used.
	Store string `json:",omitempty"`
	// Setup is the time taken to create the empty zones (not part of the
	// figures below).
	Setup time.Duration
	// Wall is the time taken by the first pass: every Reconciler syncs
	// every zone from empty.
	Wall time.Duration
	// Resync is the time taken by the last pass, the first in which no
	// Reconciler had anything to change; Passes counts the passes after
	// the first up to it (1 when the second found nothing to change).
	Resync time.Duration
	Passes int
	// Patches and Requests are summed over the first pass; ResyncPatches
	// over the passes after it.
	Patches, Requests, ResyncPatches int
	// Postponed counts the Syncs of the first pass that found the zone
	// lock held by another writer (Result.Postponed) past WithLockWait;
	// Requeued those that gave up on transient failures (a retryable
	// error: a controller requeues); Blocked the writes refused for
	// another writer's RRset, all of the first pass. A later pass sends
	// what was postponed or requeued.
	Postponed, Requeued, Blocked int
	// Violations counts what must never happen, over every pass and the
	// final read: a delete (no writer's desired state ever shrinks), a
	// write over another writer's RRset, a block at a name no other
	// writer wants, an RRset wanted by one writer missing, with other
	// data or held by another, a contested name holding more than one
	// RRset or one no writer wanted. Examples holds the first few.
	Violations int
	Examples   []string `json:",omitempty"`
	// PeakHeap is the largest Go heap (live and unswept objects) sampled
	// during the passes.
	PeakHeap uint64
	// PeakRSS is the process's peak resident set (VmHWM), BaseRSS its
	// resident set before the passes.
	PeakRSS, BaseRSS uint64
	// Verified counts the zones read back whole (SOA, NS and every RRset)
	// after the passes.
	Verified int
}

// maxPasses bounds the passes after the first: each sends only what the
// one before postponed or gave up on, so a load that needs more does not
// converge. Where every Reconciler of the pass contends for one zone lock,
// one of them writes per turn, and on an overloaded machine (load 25–33 on
// 2 cores) a turn can take longer than WithLockWait: five passes were seen
// to fall short there with every write still postponed in turn, never lost.
const maxPasses = 10

// maxExamples bounds LoadResult.Examples.
const maxExamples = 5

// Load creates cfg.Zones empty zones; then every Reconciler (cfg.Writers ×
// cfg.Replicas, all in this process) syncs its writer's share of
// cfg.RRsets RRsets into every zone, all at once, at most cfg.Concurrency
// Syncs in flight in all; then they sync every zone again, pass after
// pass, until a pass has nothing to change. Desired sets are generated per
// zone as its Sync starts and dropped after it, so what the process holds
// is what the library holds.
//
// A Sync that gives up on transient failures (a retryable error: 4.7's
// gsqlite3 answers concurrent writes with 500 "database is locked") is
// counted as requeued, as a controller would requeue it, and synced again
// by the next pass. With one Reconciler, a Sync that does not write
// everything (blocked, refused, postponed) or fails otherwise ends the run.
// With several, postponed Syncs are counted too, and what must never
// happen is counted as a violation.
func Load(ctx context.Context, cfg LoadConfig) (LoadResult, error) {
	cfg.Writers, cfg.Replicas = max(cfg.Writers, 1), max(cfg.Replicas, 1)
	res := LoadResult{Zones: cfg.Zones, RRsets: cfg.RRsets, Concurrency: cfg.Concurrency, Writers: cfg.Writers, Replicas: cfg.Replicas}
	if cfg.Zones < 1 || cfg.RRsets < 1 || cfg.Concurrency < 1 {
		return res, errors.New("load: zones, RRsets and concurrency must be at least 1")
	}
	l, err := newLoad(cfg)
	if err != nil {
		return res, err
	}
	began := time.Now()
	if err := each(ctx, l.zones, cfg.Concurrency, func(ctx context.Context, zone string) error {
		_, err := l.admin.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{"ns1.load.invalid."})
		return err
	}); err != nil {
		return res, fmt.Errorf("load: create zones: %w", err)
	}
	res.Setup = time.Since(began)
	store, err := l.replicas[0].r.OwnershipStore(ctx)
	if err != nil {
		return res, fmt.Errorf("load: ownership store: %w", err)
	}
	res.Store = store.String()

	res.BaseRSS = ProcStatus("VmRSS")
	sampler := StartMemorySampler(5 * time.Millisecond)
	first, err := l.pass(ctx)
	res.Wall, res.Patches, res.Requests = first.wall, first.patches, first.requests
	res.Postponed, res.Requeued, res.Blocked = first.postponed, first.requeued, first.blocked
	for err == nil && res.Passes < maxPasses {
		var p passResult
		p, err = l.pass(ctx)
		res.Passes++
		res.ResyncPatches += p.patches
		res.Resync = p.wall
		if p.quiet() {
			break
		}
		if res.Passes == maxPasses {
			err = fmt.Errorf("still changing after %d passes", 1+maxPasses)
		}
	}
	res.PeakHeap = sampler.Stop()
	res.PeakRSS = ProcStatus("VmHWM")
	if err != nil {
		return res, fmt.Errorf("load: sync: %w", err)
	}

	err = each(ctx, l.zones, cfg.Concurrency, func(ctx context.Context, zone string) error {
		if err := l.verify(ctx, zone); err != nil {
			return err
		}
		l.mu.Lock()
		res.Verified++
		l.mu.Unlock()
		return nil
	})
	res.Violations, res.Examples = l.violations, l.examples
	if err != nil {
		return res, fmt.Errorf("load: verify: %w", err)
	}
	return res, nil
}

// load is one run of Load in progress.
type load struct {
	cfg      LoadConfig
	zones    []string
	replicas []replica
	admin    *powerdns.Client
	// reader reads zones with their owners from both stores.
	reader *reconcile.Reconciler

	mu         sync.Mutex
	violations int
	examples   []string
}

// replica is one Reconciler of one writer.
type replica struct {
	r      *reconcile.Reconciler
	writer int
}

// LoadWriter names writer w of a load run of writers writers.
func LoadWriter(w, writers int) string {
	if writers == 1 {
		return "load"
	}
	return fmt.Sprintf("load-w%d", w+1)
}

func newLoad(cfg LoadConfig) (*load, error) {
	n := cfg.Writers * cfg.Replicas
	perReplica := max(1, cfg.Concurrency/n)
	l := &load{cfg: cfg, zones: make([]string, cfg.Zones)}
	for i := range l.zones {
		l.zones[i] = fmt.Sprintf("%s%04d.load.example.", cfg.Prefix, i)
	}
	client := func(conns int) *http.Client {
		return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	}
	for w := range cfg.Writers {
		for range cfg.Replicas {
			// A client per Reconciler, as replicas are processes of
			// their own.
			opts := []reconcile.Option{
				reconcile.WithAPIKey(cfg.APIKey),
				reconcile.WithManagedBy(LoadWriter(w, cfg.Writers)),
				reconcile.WithHTTPClient(client(perReplica)),
			}
			if cfg.MaxPatchBytes > 0 {
				opts = append(opts, reconcile.WithMaxPatchBytes(cfg.MaxPatchBytes))
			}
			r, err := reconcile.New(cfg.ServerURL, opts...)
			if err != nil {
				return nil, err
			}
			l.replicas = append(l.replicas, replica{r: r, writer: w})
		}
	}
	hc := client(cfg.Concurrency)
	l.admin = powerdns.New(cfg.ServerURL, "localhost", powerdns.WithAPIKey(cfg.APIKey), powerdns.WithHTTPClient(hc))
	reader, err := reconcile.New(cfg.ServerURL, reconcile.WithAPIKey(cfg.APIKey), reconcile.WithManagedBy("load-reader"),
		reconcile.WithHTTPClient(hc), reconcile.WithOwnershipStore(reconcile.OwnershipMetadata))
	if err != nil {
		return nil, err
	}
	l.reader = reader
	return l, nil
}

// passResult is what one pass of every Reconciler over every zone did.
type passResult struct {
	wall                         time.Duration
	patches, requests, applied   int
	postponed, requeued, blocked int
}

// quiet reports whether the pass changed nothing and left nothing for
// later.
func (p passResult) quiet() bool { return p.applied+p.postponed+p.requeued == 0 }

// pass runs every Reconciler over every zone at once, in the same order, so
// that the replicas and writers meet in each zone.
func (l *load) pass(ctx context.Context) (passResult, error) {
	var (
		p    passResult
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs = make([]error, len(l.replicas))
	)
	perReplica := max(1, l.cfg.Concurrency/len(l.replicas))
	began := time.Now()
	for i, rep := range l.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = each(ctx, l.zones, perReplica, func(ctx context.Context, zone string) error {
				desired, err := LoadShare(zone, l.cfg.RRsets, l.cfg.Writers, rep.writer)
				if err != nil {
					return err
				}
				out, err := rep.r.Sync(ctx, zone, desired)
				mu.Lock()
				defer mu.Unlock()
				p.patches += out.Patches
				p.requests += out.Requests
				p.applied += len(out.Applied)
				l.judge(zone, rep, out)
				switch {
				case err != nil && pdnserrors.IsRetryable(err):
					p.requeued++
					return nil
				case err != nil:
					return err
				case len(out.Refused) > 0:
					return fmt.Errorf("zone %s: %d refused, e.g. %s", zone, len(out.Refused), out.Refused[0])
				case len(l.replicas) == 1 && len(out.Blocked)+len(out.Postponed) > 0:
					return fmt.Errorf("zone %s: %d blocked, %d postponed", zone, len(out.Blocked), len(out.Postponed))
				}
				p.postponed += min(1, len(out.Postponed))
				p.blocked += len(out.Blocked)
				return nil
			})
		}()
	}
	wg.Wait()
	p.wall = time.Since(began)
	return p, errors.Join(errs...)
}

// judge counts the violations in what one Sync did. The caller holds l.mu
// or is alone.
func (l *load) judge(zone string, rep replica, out reconcile.Result) {
	writer := LoadWriter(rep.writer, l.cfg.Writers)
	for _, c := range out.Applied {
		switch {
		case c.Op == rrset.OpDelete:
			l.violation("%s: %s deleted %s", zone, writer, c.Key())
		case c.Old != nil && c.Old.ManagedBy != writer:
			l.violation("%s: %s wrote over %s of %q", zone, writer, c.Key(), c.Old.ManagedBy)
		}
	}
	for _, b := range out.Blocked {
		if !loadContested(b.Key.Name, zone) {
			l.violation("%s: %s blocked at %s, which no other writer wants", zone, writer, b.Key)
		}
	}
}

func (l *load) violation(format string, args ...any) {
	l.violations++
	if len(l.examples) < maxExamples {
		l.examples = append(l.examples, fmt.Sprintf(format, args...))
	}
}

// verify reads a zone back whole with its owners: every RRset a writer
// wants alone is there with its data, held by that writer; every contested
// name holds one RRset, of a writer that wants it, with that writer's data.
func (l *load) verify(ctx context.Context, zone string) error {
	live, err := l.reader.Live(ctx, zone)
	if err != nil {
		return err
	}
	want := make(map[rrset.Key][]rrset.RRset) // every writer's, per key
	for w := range l.cfg.Writers {
		share, err := LoadShare(zone, l.cfg.RRsets, l.cfg.Writers, w)
		if err != nil {
			return err
		}
		for _, rr := range share {
			rr.ManagedBy = LoadWriter(w, l.cfg.Writers)
			want[rr.Key()] = append(want[rr.Key()], rr)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	held := make(map[rrset.Key]bool)
	atName := make(map[string]int)
	for _, rr := range live {
		if rr.Type == "SOA" || rr.Type == "NS" {
			continue
		}
		held[rr.Key()] = true
		atName[rr.Name]++
		wanted := false
		for _, w := range want[rr.Key()] {
			wanted = wanted || (w.ManagedBy == rr.ManagedBy && w.EqualData(rr))
		}
		if !wanted {
			l.violation("%s: %s holds %v of %q, which no writer wants so", zone, rr.Key(), rr.Records, rr.ManagedBy)
		}
	}
	for k, ws := range want {
		if !held[k] && !loadContested(k.Name, zone) {
			l.violation("%s: %s of %s missing", zone, k, ws[0].ManagedBy)
		}
	}
	for name, n := range atName {
		if n > 1 && loadContested(name, zone) {
			l.violation("%s: %d RRsets at contested name %s", zone, n, name)
		}
	}
	if len(held) != l.cfg.RRsets {
		return fmt.Errorf("zone %s holds %d RRsets besides SOA and NS, want %d", zone, len(held), l.cfg.RRsets)
	}
	return nil
}

// LoadContestEvery makes one name in so many wanted by every writer of a
// load with several.
const LoadContestEvery = 100

// LoadShare is what writer w (of writers) wants in a load zone of n names:
// with one writer, LoadRRsets; with several, the names are dealt out in
// turn, except one in LoadContestEvery (h000099, h000199, …), which every
// writer wants: even writers a CNAME, odd ones an A, so that at most one
// can stand there. Either way the zone ends with n RRsets besides its SOA
// and NS.
func LoadShare(zone string, n, writers, w int) ([]rrset.RRset, error) {
	if writers <= 1 {
		return LoadRRsets(zone, n)
	}
	out := make([]rrset.RRset, 0, n/writers+n/LoadContestEvery+1)
	for i := range n {
		var (
			rr  rrset.RRset
			err error
		)
		switch {
		case i%LoadContestEvery == LoadContestEvery-1 && w%2 == 0:
			rr, err = rrset.New(zone, loadName(i), "CNAME", 300, fmt.Sprintf("w%d.example.net.", w+1))
		case i%LoadContestEvery == LoadContestEvery-1:
			rr, err = rrset.New(zone, loadName(i), "A", 300, fmt.Sprintf("192.0.2.%d", w+1))
		case i%writers == w:
			rr, err = loadRRset(zone, i)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rr)
	}
	return out, nil
}

// loadContested reports whether name, in zone, is one every writer wants.
func loadContested(name, zone string) bool {
	rel, ok := strings.CutSuffix(name, "."+zone)
	if !ok || !strings.HasPrefix(rel, "h") {
		return false
	}
	i, err := strconv.Atoi(rel[1:])
	return err == nil && rel == loadName(i) && i%LoadContestEvery == LoadContestEvery-1
}

func loadName(i int) string { return fmt.Sprintf("h%06d", i) }

// LoadRRsets is the desired state of a load zone of one writer: n RRsets at
// n names, cycling through A, AAAA, TXT, MX and CNAME.
func LoadRRsets(zone string, n int) ([]rrset.RRset, error) {
	out := make([]rrset.RRset, 0, n)
	for i := range n {
		rr, err := loadRRset(zone, i)
		if err != nil {
			return nil, err
		}
		out = append(out, rr)
	}
	return out, nil
}

func loadRRset(zone string, i int) (rrset.RRset, error) {
	name := loadName(i)
	switch i % 5 {
	case 0:
		return rrset.New(zone, name, "A", 300, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	case 1:
		return rrset.New(zone, name, "AAAA", 300, fmt.Sprintf("2001:db8::%x:%x", i>>16, i&0xffff))
	case 2:
		return rrset.New(zone, name, "TXT", 300, fmt.Sprintf(`"load record %d"`, i))
	case 3:
		return rrset.New(zone, name, "MX", 300, fmt.Sprintf("%d mail%d.example.net.", i%50, i%7))
	default:
		return rrset.New(zone, name, "CNAME", 300, fmt.Sprintf("target%d.example.net.", i%11))
	}
}

// each runs fn for every item, at most n at a time, and returns the first
// error; the others are cancelled.
func each(ctx context.Context, items []string, n int, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan string)
	)
	for range min(n, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				if err := fn(ctx, it); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, it := range items {
		select {
		case next <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
