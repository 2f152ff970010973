package reconcile

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"

	"github.com/pdnskit/reconcile/rrset"
)

// DriftKind says how what the server answers over DNS differs from an RRset.
type DriftKind string

const (
	// DriftMissing means the name does not exist (NXDOMAIN) or has no data of
	// the type (NODATA).
	DriftMissing DriftKind = "Missing"
	// DriftDifferent means some wanted records are not served, or the TTL
	// differs.
	DriftDifferent DriftKind = "Different"
	// DriftExtra means every wanted record is served, and others too.
	DriftExtra DriftKind = "Extra"
	// DriftRefused means the server answered REFUSED: it does not serve
	// the zone. An instance does so for a zone created through another
	// instance on the same database until its zone cache refreshes
	// (zone-cache-refresh-interval).
	DriftRefused DriftKind = "Refused"
)

// Drift is one desired RRset the server does not serve as desired.
type Drift struct {
	Kind DriftKind
	Want rrset.RRset
	// Got is what the server answered, in canonical form (Records empty
	// for DriftMissing and DriftRefused).
	Got rrset.RRset
	// VisibleBy is set on the entries of VerifyResult.Pending: the time
	// by which the server's caches will have let go of what they held
	// before the Reconciler's write. Until then the answer may be stale
	// rather than wrong.
	VisibleBy time.Time
}

func (d Drift) String() string {
	var s string
	switch d.Kind {
	case DriftMissing:
		s = fmt.Sprintf("%s %s missing", d.Want.Name, d.Want.Type)
	case DriftRefused:
		s = fmt.Sprintf("%s %s refused: the server does not serve the zone", d.Want.Name, d.Want.Type)
	default:
		s = fmt.Sprintf("%s %s %s: want ttl %d %q, served ttl %d %q", d.Want.Name, d.Want.Type,
			strings.ToLower(string(d.Kind)), d.Want.TTL, d.Want.Records, d.Got.TTL, d.Got.Records)
	}
	if !d.VisibleBy.IsZero() {
		s += " (may be cached until " + d.VisibleBy.UTC().Format(time.RFC3339) + ")"
	}
	return s
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	// Checked counts the RRsets queried.
	Checked int
	// Drift lists the RRsets not served as desired, by name and type.
	Drift []Drift
	// Pending lists the RRsets not served as desired yet that may only be
	// cached. The Reconciler wrote them less than the server's cache
	// lifetimes ago, or the server refuses a zone the Reconciler first
	// wrote into less than its zone-cache refresh interval ago. Each says
	// by when it must be visible (VisibleBy); past that, it is drift.
	// Through a DNS Service, an instance other than the one that took the
	// write answers from its own caches.
	Pending []Drift
	// Caches are the cache lifetimes Pending was judged by, read from the
	// server's configuration; zero when nothing could be pending (no drift
	// found, or no write of this Reconciler's into the zone).
	Caches CacheLifetimes
	// Skipped lists RRsets that cannot be checked over DNS: ALIAS (served
	// as the target's addresses) and types unknown to the DNS library.
	Skipped []rrset.Key
}

// CacheLifetimes are how long a PowerDNS instance may answer from its
// caches what it held before a write made through another instance.
type CacheLifetimes struct {
	// Packet is cache-ttl: whole answers.
	Packet time.Duration
	// Query and NegQuery are query-cache-ttl and negquery-cache-ttl: the
	// backend's answers, and the absence of an answer.
	Query, NegQuery time.Duration
	// ZoneCache is zone-cache-refresh-interval: how long an instance may
	// go on refusing a zone created through another one; 0 when it keeps
	// no zone cache.
	ZoneCache time.Duration
	// Assumed is true when the server's configuration could not be read
	// and PowerDNS's defaults stood in for it.
	Assumed bool
}

// rrsetLifetime is how long after a write an instance may still serve what
// it held before: an answer put in the packet cache just before a
// query-cache entry, made just before the write, expired.
func (c CacheLifetimes) rrsetLifetime() time.Duration {
	return withTick(c.Packet) + withTick(max(c.Query, c.NegQuery))
}

// zoneLifetime is how long after a zone was created an instance that did
// not create it may refuse it: until its zone cache refreshes, and then
// until a REFUSED answer in its packet cache expires.
func (c CacheLifetimes) zoneLifetime() time.Duration {
	if c.ZoneCache == 0 {
		return 0
	}
	return withTick(c.ZoneCache) + withTick(c.Packet)
}

// withTick adds to a cache's lifetime the second by which an entry may
// outlive it: PowerDNS keeps expiry times in whole seconds (seen here: with
// cache-ttl 4, an answer cached before a write still served more than 4 s
// after it).
func withTick(d time.Duration) time.Duration {
	if d == 0 {
		return 0
	}
	return d + time.Second
}

// defaultCaches are PowerDNS's defaults (the same from 4.7 to 5.1).
var defaultCaches = CacheLifetimes{
	Packet:    20 * time.Second,
	Query:     20 * time.Second,
	NegQuery:  60 * time.Second,
	ZoneCache: 300 * time.Second,
}

// VerifyOption changes one Verify.
type VerifyOption func(*verifyConfig)

type verifyConfig struct {
	wait bool
}

// WaitForCaches makes Verify wait out the server's caches, so that it
// reports drift or nothing, never Pending. While some RRsets are pending it
// asks again every 500 ms, until each is served as desired or its VisibleBy
// passes; when ctx ends first, Verify reports what it last saw. Waits run on
// the Reconciler's clock (WithClock).
func WaitForCaches() VerifyOption { return func(c *verifyConfig) { c.wait = true } }

// verifyWorkers bounds the DNS queries Verify has in flight.
const verifyWorkers = 8

// verifyPoll is how often Verify asks again with WaitForCaches; its doc
// states the value: change both.
const verifyPoll = 500 * time.Millisecond

// Verify asks the server's DNS port (WithDNSAddr) for each desired RRset, over
// UDP with a TCP retry when the answer is truncated, and reports drift: a
// record deleted behind the Reconciler's back shows as DriftMissing. It
// writes nothing. An error means the server could not be asked at all.
//
// What may only be cached is reported apart, as Pending: an RRset this
// Reconciler wrote less than the server's cache lifetimes ago (cache-ttl
// plus the longer of query-cache-ttl and negquery-cache-ttl, read from the
// server's configuration), and a REFUSED answer in a zone it first wrote
// into less than zone-cache-refresh-interval ago. Behind a DNS Service the
// instance that answers may not be the one that took the write: it serves
// its cached answer until then. WaitForCaches waits them out.
func (r *Reconciler) Verify(ctx context.Context, zone string, desired []rrset.RRset, opts ...VerifyOption) (vr VerifyResult, err error) {
	defer r.observed(OperationVerify, zone, time.Now(), &Result{}, &err)
	var vc verifyConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&vc)
		}
	}
	canonical, err := rrset.CanonicalZone(zone)
	if err != nil {
		return VerifyResult{}, &InputError{Zone: zone, Err: err}
	}
	want, err := stamp{writer: r.cfg.managedBy}.desiredSet(canonical, desired)
	if err != nil {
		return VerifyResult{}, err
	}
	var res VerifyResult
	var queries []rrset.RRset
	for rr := range want.Unordered() {
		if _, ok := dns.StringToType[rr.Type]; !ok || rr.Type == "ALIAS" {
			res.Skipped = append(res.Skipped, rr.Key())
			continue
		}
		queries = append(queries, rr)
	}
	slices.SortFunc(res.Skipped, func(a, b rrset.Key) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type))
	})

	res.Checked, res.Drift, err = r.verifyAll(ctx, canonical, queries)
	if err != nil {
		return res, fmt.Errorf("verify %s: %w", canonical, err)
	}
	if len(res.Drift) > 0 && r.writes.knows(canonical) {
		res.Caches = r.cacheLifetimes(ctx)
	}
	res.Drift, res.Pending = r.judge(canonical, res.Drift, res.Caches)
	for vc.wait && len(res.Pending) > 0 {
		if err := r.sleep(ctx, verifyPoll); err != nil {
			return res, fmt.Errorf("verify %s: wait for caches: %w", canonical, err)
		}
		// Ask again for what is pending alone: what was drift or in
		// sync stays so.
		again := make([]rrset.RRset, len(res.Pending))
		for i, d := range res.Pending {
			again[i] = d.Want
		}
		_, found, err := r.verifyAll(ctx, canonical, again)
		if err != nil {
			return res, fmt.Errorf("verify %s: %w", canonical, err)
		}
		drift, pending := r.judge(canonical, found, res.Caches)
		res.Drift, res.Pending = append(res.Drift, drift...), pending
	}
	sortDrift(res.Drift)
	return res, nil
}

// verifyAll queries the server for each of queries, verifyWorkers at a
// time, and returns how many it answered and how those it did not serve as
// desired differ.
func (r *Reconciler) verifyAll(ctx context.Context, zone string, queries []rrset.RRset) (checked int, found []Drift, err error) {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		next     = make(chan rrset.RRset)
	)
	for range min(verifyWorkers, len(queries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rr := range next {
				d, err := r.verifyOne(ctx, zone, rr)
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil:
					checked++
					if d != nil {
						found = append(found, *d)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, rr := range queries {
		if ctx.Err() != nil {
			break
		}
		next <- rr
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return checked, found, firstErr
	}
	return checked, found, ctx.Err()
}

// judge splits what Verify found into drift and what may only be cached:
// an RRset written less than the cache lifetime ago, a REFUSED answer in a
// zone first written into less than the zone-cache lifetime ago.
func (r *Reconciler) judge(zone string, found []Drift, caches CacheLifetimes) (drift, pending []Drift) {
	now := r.cfg.clock.Now()
	for _, d := range found {
		var visibleBy time.Time
		if d.Kind == DriftRefused {
			if first, ok := r.writes.firstWrite(zone); ok && caches.zoneLifetime() > 0 {
				visibleBy = first.Add(caches.zoneLifetime())
			}
		} else if at, ok := r.writes.written(zone, d.Want.Key()); ok && caches.rrsetLifetime() > 0 {
			visibleBy = at.Add(caches.rrsetLifetime())
		}
		if now.Before(visibleBy) {
			d.VisibleBy = visibleBy
			pending = append(pending, d)
		} else {
			drift = append(drift, d)
		}
	}
	sortDrift(drift)
	sortDrift(pending)
	return drift, pending
}

func sortDrift(ds []Drift) {
	slices.SortFunc(ds, func(a, b Drift) int {
		return cmp.Or(strings.Compare(a.Want.Name, b.Want.Name), strings.Compare(a.Want.Type, b.Want.Type))
	})
}

// Settings of PowerDNS that make CacheLifetimes, each in seconds.
const (
	settingCacheTTL         = "cache-ttl"
	settingQueryCacheTTL    = "query-cache-ttl"
	settingNegQueryCacheTTL = "negquery-cache-ttl"
	settingZoneCache        = "zone-cache-refresh-interval"
)

// cacheLifetimes reads the server's cache settings (GET /config); where
// that fails, or a setting is missing or unreadable, PowerDNS's default
// stands in and Assumed says so.
func (r *Reconciler) cacheLifetimes(ctx context.Context) CacheLifetimes {
	var t tally
	settings, err := r.server.session(&t).settings(ctx)
	if err != nil {
		r.cfg.logger.Debug("cache settings unread, PowerDNS's defaults assumed", "error", err)
		c := defaultCaches
		c.Assumed = true
		return c
	}
	values := make(map[string]string, 4)
	for _, s := range settings {
		if s.Name != nil && s.Value != nil {
			values[*s.Name] = *s.Value
		}
	}
	c := defaultCaches
	for name, field := range map[string]*time.Duration{
		settingCacheTTL:         &c.Packet,
		settingQueryCacheTTL:    &c.Query,
		settingNegQueryCacheTTL: &c.NegQuery,
		settingZoneCache:        &c.ZoneCache,
	} {
		secs, err := strconv.ParseUint(strings.TrimSpace(values[name]), 10, 32)
		if err != nil {
			c.Assumed = true
			continue
		}
		*field = time.Duration(secs) * time.Second
	}
	return c
}

// sleep waits d on the Reconciler's clock, or until ctx ends.
func (r *Reconciler) sleep(ctx context.Context, d time.Duration) error {
	t := r.cfg.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}

func (r *Reconciler) verifyOne(ctx context.Context, zone string, want rrset.RRset) (*Drift, error) {
	msg := new(dns.Msg).SetQuestion(want.Name, dns.StringToType[want.Type])
	msg.SetEdns0(1232, false)
	resp, err := r.exchange(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("query %s %s: %w", want.Name, want.Type, err)
	}
	got := rrset.RRset{Name: want.Name, Type: want.Type}
	switch resp.Rcode {
	case dns.RcodeSuccess, dns.RcodeNameError:
	case dns.RcodeRefused:
		return &Drift{Kind: DriftRefused, Want: want, Got: got}, nil
	default:
		return nil, fmt.Errorf("query %s %s: %s", want.Name, want.Type, dns.RcodeToString[resp.Rcode])
	}
	var contents []string
	take := func(rrs []dns.RR) {
		for _, rr := range rrs {
			h := rr.Header()
			if strings.EqualFold(h.Name, want.Name) && dns.TypeToString[h.Rrtype] == want.Type {
				got.TTL = h.Ttl
				contents = append(contents, rdata(rr))
			}
		}
	}
	take(resp.Answer)
	if want.Type == "NS" && len(contents) == 0 {
		// A delegation's NS come back in the authority section.
		take(resp.Ns)
	}
	if len(contents) == 0 {
		return &Drift{Kind: DriftMissing, Want: want, Got: got}, nil
	}
	served, err := rrset.NewLive(zone, want.Name, want.Type, got.TTL, contents...)
	if err != nil {
		return nil, fmt.Errorf("read answer for %s %s: %w", want.Name, want.Type, err)
	}
	got.Records = served.Records
	switch {
	case got.TTL == want.TTL && slices.Equal(got.Records, want.Records):
		return nil, nil
	case got.TTL == want.TTL && containsAll(got.Records, want.Records):
		return &Drift{Kind: DriftExtra, Want: want, Got: got}, nil
	default:
		return &Drift{Kind: DriftDifferent, Want: want, Got: got}, nil
	}
}

// exchange sends msg over UDP and, when the answer is truncated, over TCP.
func (r *Reconciler) exchange(ctx context.Context, msg *dns.Msg) (*dns.Msg, error) {
	udp := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
	resp, _, err := udp.ExchangeContext(ctx, msg, r.cfg.dnsAddr)
	if err == nil && !resp.Truncated {
		return resp, nil
	}
	tcp := &dns.Client{Net: "tcp", Timeout: 5 * time.Second}
	resp, _, err = tcp.ExchangeContext(ctx, msg, r.cfg.dnsAddr)
	return resp, err
}

// rdata is the presentation form of rr's data, as PowerDNS writes contents.
func rdata(rr dns.RR) string {
	return strings.TrimPrefix(rr.String(), rr.Header().String())
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if _, ok := slices.BinarySearch(have, w); !ok {
			return false
		}
	}
	return true
}

// writeLog remembers when the Reconciler last wrote each RRset, and when it
// first wrote into each zone, so that Verify can tell an answer a server's
// caches may still hold from drift. The engine calls noteWritten after each
// PATCH PowerDNS applied. Entries older than horizon are dropped as the log
// grows; a zone's first write is kept until forget. The zero value is
// ready to use.
type writeLog struct {
	mu    sync.Mutex
	zones map[string]*zoneWrites
}

// writeLogHorizon is how long the log keeps a write: longer than any cache
// lifetime PowerDNS has by default (20 + 60 s for an RRset, 300 + 20 s for
// a zone). A server configured with longer ones sees drift reported
// earlier than it might be visible.
const writeLogHorizon = 15 * time.Minute

type zoneWrites struct {
	first  time.Time
	rrsets map[rrset.Key]time.Time
	swept  time.Time
}

// noteWritten records that the Reconciler wrote keys of zone (canonical
// names, as in rrset.Key) at at; keys may be empty to record the zone alone.
func (l *writeLog) noteWritten(zone string, keys []rrset.Key, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.zones == nil {
		l.zones = make(map[string]*zoneWrites)
	}
	z := l.zones[zone]
	if z == nil {
		z = &zoneWrites{first: at, rrsets: make(map[rrset.Key]time.Time, len(keys)), swept: at}
		l.zones[zone] = z
	}
	if at.Before(z.first) {
		z.first = at
	}
	for _, k := range keys {
		if prev, ok := z.rrsets[k]; !ok || at.After(prev) {
			z.rrsets[k] = at
		}
	}
	if at.Sub(z.swept) > writeLogHorizon {
		for k, w := range z.rrsets {
			if at.Sub(w) > writeLogHorizon {
				delete(z.rrsets, k)
			}
		}
		z.swept = at
	}
}

// written returns when the Reconciler last wrote key in zone.
func (l *writeLog) written(zone string, key rrset.Key) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if z := l.zones[zone]; z != nil {
		at, ok := z.rrsets[key]
		return at, ok
	}
	return time.Time{}, false
}

// firstWrite returns when the Reconciler first wrote into zone.
func (l *writeLog) firstWrite(zone string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if z := l.zones[zone]; z != nil {
		return z.first, true
	}
	return time.Time{}, false
}

// knows reports whether the Reconciler wrote into zone.
func (l *writeLog) knows(zone string) bool {
	_, ok := l.firstWrite(zone)
	return ok
}

// forget drops what the log holds about zone.
func (l *writeLog) forget(zone string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.zones, zone)
}
