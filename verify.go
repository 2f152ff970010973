package reconcile

import (
	"context"
	"fmt"
	"slices"
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
)

// Drift is one desired RRset the server does not serve as desired.
type Drift struct {
	Kind DriftKind
	Want rrset.RRset
	// Got is what the server answered, in canonical form (Records empty
	// for DriftMissing).
	Got rrset.RRset
}

func (d Drift) String() string {
	switch d.Kind {
	case DriftMissing:
		return fmt.Sprintf("%s %s missing", d.Want.Name, d.Want.Type)
	default:
		return fmt.Sprintf("%s %s %s: want ttl %d %q, served ttl %d %q", d.Want.Name, d.Want.Type,
			strings.ToLower(string(d.Kind)), d.Want.TTL, d.Want.Records, d.Got.TTL, d.Got.Records)
	}
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	// Checked counts the RRsets queried.
	Checked int
	// Drift lists the RRsets not served as desired, by name and type.
	Drift []Drift
	// Skipped lists RRsets that cannot be checked over DNS: ALIAS (served
	// as the target's addresses) and types unknown to the DNS library.
	Skipped []rrset.Key
}

// verifyWorkers bounds the DNS queries Verify has in flight.
const verifyWorkers = 8

// Verify asks the server's DNS port (WithDNSAddr) for each desired RRset, over
// UDP with a TCP retry when the answer is truncated, and reports drift: a
// record deleted behind the Reconciler's back shows as DriftMissing. It
// writes nothing. An error means the server could not be asked at all.
func (r *Reconciler) Verify(ctx context.Context, zone string, desired []rrset.RRset) (VerifyResult, error) {
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
				d, err := r.verifyOne(ctx, canonical, rr)
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case err == nil:
					res.Checked++
					if d != nil {
						res.Drift = append(res.Drift, *d)
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
		return res, fmt.Errorf("verify %s: %w", canonical, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("verify %s: %w", canonical, err)
	}
	slices.SortFunc(res.Drift, func(a, b Drift) int {
		if c := strings.Compare(a.Want.Name, b.Want.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Want.Type, b.Want.Type)
	})
	return res, nil
}

func (r *Reconciler) verifyOne(ctx context.Context, zone string, want rrset.RRset) (*Drift, error) {
	msg := new(dns.Msg).SetQuestion(want.Name, dns.StringToType[want.Type])
	msg.SetEdns0(1232, false)
	resp, err := r.exchange(ctx, msg)
	if err != nil {
		return nil, fmt.Errorf("query %s %s: %w", want.Name, want.Type, err)
	}
	if resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError {
		return nil, fmt.Errorf("query %s %s: %s", want.Name, want.Type, dns.RcodeToString[resp.Rcode])
	}
	got := rrset.RRset{Name: want.Name, Type: want.Type}
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
