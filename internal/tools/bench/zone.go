package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/joeig/go-powerdns/v3"
)

// nameserver is the one NS the benchmark zone is created with.
const nameserver = "ns1.bench.invalid."

// Admin prepares and inspects the benchmark zone outside the timed section,
// over its own client, so that nothing it does is counted.
type Admin struct {
	url, apiKey string
	client      *powerdns.Client
	hc          *http.Client
}

// NewAdmin returns an Admin for the server whose API is at url.
func NewAdmin(url, apiKey string) *Admin {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	return &Admin{
		url:    url,
		apiKey: apiKey,
		client: powerdns.New(url, "localhost", powerdns.WithAPIKey(apiKey), powerdns.WithHTTPClient(hc)),
		hc:     hc,
	}
}

// Seed is a start state: PATCH bodies and, where ownership lives in zone
// metadata, the body of the POST of the claim record that makes their
// RRsets the library's.
type Seed struct {
	Bodies [][]byte
	Claim  []byte
}

// NewSeed is the start state that holds specs, written with ownership o,
// in bodies of at most limit bytes.
func NewSeed(specs []Spec, o Ownership, limit int, stamp int64) (*Seed, error) {
	bodies, err := Bodies(replaces(specs), o, limit)
	if err != nil {
		return nil, err
	}
	s := &Seed{Bodies: bodies}
	if o.Store == StoreMetadata {
		if s.Claim, err = MetadataBody(SeedClaimKind, ClaimValues(specs, stamp)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Reset makes the zone hold its SOA, its NS and, when seed is not nil, its
// RRsets and claims: it deletes the zone (if there is one, and its metadata
// with it), creates it afresh and writes seed.
func (a *Admin) Reset(ctx context.Context, zone string, seed *Seed) error {
	// A missing zone is what Reset wants anyway; a failure that matters
	// shows when the zone is created.
	_ = a.client.Zones.Delete(ctx, zone)
	if _, err := a.client.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{nameserver}); err != nil {
		return fmt.Errorf("create zone %s: %w", zone, err)
	}
	if seed == nil {
		return nil
	}
	if seed.Claim != nil {
		if err := a.send(ctx, http.MethodPost, ZoneURL(a.url, zone)+"/metadata", seed.Claim, http.StatusCreated, http.StatusOK, http.StatusNoContent); err != nil {
			return err
		}
	}
	for _, b := range seed.Bodies {
		if err := a.Patch(ctx, zone, b); err != nil {
			return err
		}
	}
	return nil
}

// Patch sends body as a PATCH of zone.
func (a *Admin) Patch(ctx context.Context, zone string, body []byte) error {
	return a.send(ctx, http.MethodPatch, ZoneURL(a.url, zone), body, http.StatusNoContent)
}

func (a *Admin) send(ctx context.Context, method, url string, body []byte, want ...int) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	setHeaders(req, a.apiKey)
	resp, err := a.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if !slices.Contains(want, resp.StatusCode) {
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, msg)
	}
	return nil
}

// Delete deletes the zone.
func (a *Admin) Delete(ctx context.Context, zone string) error {
	return a.client.Zones.Delete(ctx, zone)
}

// RRsets reads the zone's RRsets.
func (a *Admin) RRsets(ctx context.Context, zone string) ([]powerdns.RRset, error) {
	z, err := a.client.Zones.Get(ctx, zone)
	if err != nil {
		return nil, fmt.Errorf("read zone %s: %w", zone, err)
	}
	return z.RRsets, nil
}

// Verify checks that the zone holds exactly want, each RRset with the
// comments o says, besides its SOA and NS: that a writer did the whole
// job. Claims in metadata are checked by the library itself (see
// checkOwned).
func (a *Admin) Verify(ctx context.Context, zone string, want []Spec, o Ownership) error {
	owner := o.comments()
	live, err := a.RRsets(ctx, zone)
	if err != nil {
		return err
	}
	got := make(map[string]string, len(live))
	for _, rr := range live {
		if rr.Name == nil || rr.Type == nil {
			continue
		}
		name, typ := strings.ToLower(*rr.Name), string(*rr.Type)
		if name == zone && (typ == "SOA" || typ == "NS") {
			continue
		}
		var ttl uint32
		if rr.TTL != nil {
			ttl = *rr.TTL
		}
		var records []string
		for _, r := range rr.Records {
			if r.Content != nil && (r.Disabled == nil || !*r.Disabled) {
				records = append(records, *r.Content)
			}
		}
		got[name+" "+typ] = describe(ttl, records, rr.Comments)
	}
	var problems []string
	for _, s := range want {
		w := describe(s.TTL, s.Records, owner)
		g, ok := got[s.Key()]
		switch {
		case !ok:
			problems = append(problems, "missing "+s.Key())
		case g != w:
			problems = append(problems, fmt.Sprintf("%s is %s, want %s", s.Key(), g, w))
		}
		delete(got, s.Key())
	}
	for k := range got {
		problems = append(problems, "unexpected "+k)
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	if len(problems) > 5 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return fmt.Errorf("zone %s does not hold what is desired: %s", zone, strings.Join(problems, "; "))
}

// describe renders an RRset's data and comments (without their
// modification times) in one comparable line.
func describe(ttl uint32, records []string, comments []powerdns.Comment) string {
	records = slices.Sorted(slices.Values(records))
	var b strings.Builder
	b.WriteString(strconv.FormatUint(uint64(ttl), 10))
	for _, r := range records {
		b.WriteString(" " + r)
	}
	for _, c := range comments {
		b.WriteString(" #")
		if c.Account != nil {
			b.WriteString(*c.Account)
		}
		b.WriteString(":")
		if c.Content != nil {
			b.WriteString(*c.Content)
		}
	}
	return b.String()
}

// ZoneURL is the API URL of zone on the server at base.
func ZoneURL(base, zone string) string {
	return strings.TrimSuffix(base, "/") + "/api/v1/servers/localhost/zones/" + zone
}

// setHeaders sets what every raw request to the API carries; the reconciler
// sends the same Accept and Content-Type.
func setHeaders(req *http.Request, apiKey string) {
	req.Header.Set("X-API-Key", apiKey)
	req.Header.Set("Accept", "application/json")
	if req.Body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
}
