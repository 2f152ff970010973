package reliability

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// LoadConfig says what Load syncs.
type LoadConfig struct {
	// ServerURL and APIKey reach the PowerDNS API.
	ServerURL, APIKey string
	// Zones is how many zones are synced, RRsets how many RRsets each
	// holds.
	Zones, RRsets int
	// Concurrency bounds the Syncs in flight.
	Concurrency int
	// MaxPatchBytes is passed to WithMaxPatchBytes when not 0.
	MaxPatchBytes int
	// Prefix starts every zone name, so that runs on one server do not
	// meet.
	Prefix string
}

// LoadResult is what Load measured.
type LoadResult struct {
	Zones, RRsets, Concurrency int
	// Setup is the time taken to create the empty zones (not part of the
	// figures below).
	Setup time.Duration
	// Wall is the time taken to sync every zone from empty.
	Wall time.Duration
	// Resync is the time taken to sync every zone again, with nothing to
	// change.
	Resync time.Duration
	// Patches and Requests are summed over the first pass; ResyncPatches
	// over the second.
	Patches, Requests, ResyncPatches int
	// PeakHeap is the largest Go heap (live and unswept objects) sampled
	// during both passes.
	PeakHeap uint64
	// PeakRSS is the process's peak resident set (VmHWM), BaseRSS its
	// resident set before the passes.
	PeakRSS, BaseRSS uint64
	// Verified counts the zones read back whole (SOA, NS and every RRset)
	// after the passes.
	Verified int
}

// Load creates cfg.Zones empty zones and syncs cfg.RRsets RRsets into each,
// at most cfg.Concurrency at a time, from one Reconciler; then syncs them
// all again. Desired sets are generated per zone as its Sync starts and
// dropped after it, so what the process holds is what the library holds.
func Load(ctx context.Context, cfg LoadConfig) (LoadResult, error) {
	res := LoadResult{Zones: cfg.Zones, RRsets: cfg.RRsets, Concurrency: cfg.Concurrency}
	if cfg.Zones < 1 || cfg.RRsets < 1 || cfg.Concurrency < 1 {
		return res, errors.New("load: zones, RRsets and concurrency must be at least 1")
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency}}
	opts := []reconcile.Option{
		reconcile.WithAPIKey(cfg.APIKey),
		reconcile.WithManagedBy("load"),
		reconcile.WithHTTPClient(hc),
	}
	if cfg.MaxPatchBytes > 0 {
		opts = append(opts, reconcile.WithMaxPatchBytes(cfg.MaxPatchBytes))
	}
	r, err := reconcile.New(cfg.ServerURL, opts...)
	if err != nil {
		return res, err
	}
	admin := powerdns.New(cfg.ServerURL, "localhost", powerdns.WithAPIKey(cfg.APIKey), powerdns.WithHTTPClient(hc))

	zones := make([]string, cfg.Zones)
	for i := range zones {
		zones[i] = fmt.Sprintf("%s%04d.load.example.", cfg.Prefix, i)
	}
	began := time.Now()
	if err := each(ctx, zones, cfg.Concurrency, func(ctx context.Context, zone string) error {
		_, err := admin.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{"ns1.load.invalid."})
		return err
	}); err != nil {
		return res, fmt.Errorf("load: create zones: %w", err)
	}
	res.Setup = time.Since(began)

	var mu sync.Mutex
	syncAll := func(patches *int, requests *int) (time.Duration, error) {
		began := time.Now()
		err := each(ctx, zones, cfg.Concurrency, func(ctx context.Context, zone string) error {
			desired, err := LoadRRsets(zone, cfg.RRsets)
			if err != nil {
				return err
			}
			out, err := r.Sync(ctx, zone, desired)
			if err != nil {
				return err
			}
			if len(out.Blocked)+len(out.Refused)+len(out.Postponed) > 0 {
				return fmt.Errorf("zone %s: %d blocked, %d refused, %d postponed", zone, len(out.Blocked), len(out.Refused), len(out.Postponed))
			}
			mu.Lock()
			*patches += out.Patches
			if requests != nil {
				*requests += out.Requests
			}
			mu.Unlock()
			return nil
		})
		return time.Since(began), err
	}

	res.BaseRSS = ProcStatus("VmRSS")
	sampler := StartMemorySampler(5 * time.Millisecond)
	res.Wall, err = syncAll(&res.Patches, &res.Requests)
	if err == nil {
		res.Resync, err = syncAll(&res.ResyncPatches, nil)
	}
	res.PeakHeap = sampler.Stop()
	res.PeakRSS = ProcStatus("VmHWM")
	if err != nil {
		return res, fmt.Errorf("load: sync: %w", err)
	}

	// Read every zone back: SOA, NS and each RRset.
	err = each(ctx, zones, cfg.Concurrency, func(ctx context.Context, zone string) error {
		z, err := admin.Zones.Get(ctx, zone)
		if err != nil {
			return err
		}
		if z == nil || len(z.RRsets) != cfg.RRsets+2 {
			return fmt.Errorf("zone %s holds %d RRsets, want %d", zone, len(z.RRsets), cfg.RRsets+2)
		}
		mu.Lock()
		res.Verified++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("load: verify: %w", err)
	}
	return res, nil
}

// LoadRRsets is the desired state of a load zone: n RRsets at n names,
// cycling through A, AAAA, TXT, MX and CNAME.
func LoadRRsets(zone string, n int) ([]rrset.RRset, error) {
	out := make([]rrset.RRset, 0, n)
	for i := range n {
		name := fmt.Sprintf("h%06d", i)
		var (
			rr  rrset.RRset
			err error
		)
		switch i % 5 {
		case 0:
			rr, err = rrset.New(zone, name, "A", 300, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
		case 1:
			rr, err = rrset.New(zone, name, "AAAA", 300, fmt.Sprintf("2001:db8::%x:%x", i>>16, i&0xffff))
		case 2:
			rr, err = rrset.New(zone, name, "TXT", 300, fmt.Sprintf(`"load record %d"`, i))
		case 3:
			rr, err = rrset.New(zone, name, "MX", 300, fmt.Sprintf("%d mail%d.example.net.", i%50, i%7))
		default:
			rr, err = rrset.New(zone, name, "CNAME", 300, fmt.Sprintf("target%d.example.net.", i%11))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rr)
	}
	return out, nil
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
