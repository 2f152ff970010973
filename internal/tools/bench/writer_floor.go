package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// FloorWriter is what PowerDNS itself costs for a sync: one GET of the
// zone, its body read and dropped, one GET of the zone's metadata where
// ownership lives there, and the writes, encoded before the clock started,
// over plain net/http. It writes the same data the library writes: the
// RRsets with their ownership comments; or, with ownership in metadata,
// the RRsets, a claim record for those it creates (before the PATCH, as
// the library does) and a release record for those it deletes (after).
// Its PATCH bodies are split as the library splits its own.
type FloorWriter struct {
	id          WriterID
	url, apiKey string
	hc          *http.Client
	counter     *Counter
	own         Ownership
	limit       int
	now         func() time.Time
}

var _ Writer = (*FloorWriter)(nil)

// NewFloorWriter returns the floor id for the server at url, writing
// ownership as own says, in PATCH bodies of at most limit bytes.
func NewFloorWriter(id WriterID, url, apiKey string, base http.RoundTripper, own Ownership, limit int) *FloorWriter {
	counter := NewCounter(base)
	return &FloorWriter{id: id, url: url, apiKey: apiKey, hc: &http.Client{Transport: counter}, counter: counter, own: own, limit: limit, now: time.Now}
}

// ID implements Writer.
func (w *FloorWriter) ID() WriterID { return w.id }

// Counter implements Writer.
func (w *FloorWriter) Counter() *Counter { return w.counter }

// Ownership is what the floor writes besides the records.
func (w *FloorWriter) Ownership() Ownership { return w.own }

// step is one prebuilt request and the status it must get.
type step struct {
	req  *http.Request
	want func(int) bool
}

func newStep(ctx context.Context, method, url, apiKey string, body []byte, want func(int) bool) (step, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return step{}, err
	}
	setHeaders(req, apiKey)
	return step{req: req, want: want}, nil
}

// Prepare implements Writer: the requests are built, and every body
// encoded, here.
func (w *FloorWriter) Prepare(ctx context.Context, c Case) (func(context.Context) error, error) {
	bodies, err := Bodies(c.Changes, w.own, w.limit)
	if err != nil {
		return nil, err
	}
	zoneURL, mdURL := ZoneURL(w.url, Zone), ZoneURL(w.url, Zone)+"/metadata"
	var steps []step
	add := func(method, url string, body []byte, want func(int) bool) error {
		s, err := newStep(ctx, method, url, w.apiKey, body, want)
		steps = append(steps, s)
		return err
	}
	if err := add(http.MethodGet, zoneURL, nil, is(http.StatusOK)); err != nil {
		return nil, err
	}
	var claim, release []byte
	if w.own.Store == StoreMetadata {
		if err := add(http.MethodGet, mdURL, nil, is(http.StatusOK)); err != nil {
			return nil, err
		}
		created, deleted := createdAndDeleted(c)
		if len(created) > 0 {
			if claim, err = MetadataBody(FloorClaimKind, ClaimValues(created, w.now().UnixNano())); err != nil {
				return nil, err
			}
		}
		if len(deleted) > 0 {
			if release, err = MetadataBody(FloorReleaseKind, ReleaseValues(deleted, SeedClaimKind)); err != nil {
				return nil, err
			}
		}
	}
	if claim != nil {
		if err := add(http.MethodPost, mdURL, claim, success); err != nil {
			return nil, err
		}
	}
	for _, b := range bodies {
		if err := add(http.MethodPatch, zoneURL, b, is(http.StatusNoContent)); err != nil {
			return nil, err
		}
	}
	if release != nil {
		if err := add(http.MethodPost, mdURL, release, success); err != nil {
			return nil, err
		}
	}
	return func(context.Context) error {
		for _, s := range steps {
			if err := w.do(s); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// createdAndDeleted are the RRsets c creates (absent from its start) and
// deletes: what a claim and a release record name.
func createdAndDeleted(c Case) (created, deleted []Spec) {
	start := make(map[string]bool, len(c.Start))
	for _, s := range c.Start {
		start[s.Key()] = true
	}
	for _, ch := range c.Changes {
		switch {
		case ch.Delete:
			deleted = append(deleted, ch.Spec)
		case !start[ch.Spec.Key()]:
			created = append(created, ch.Spec)
		}
	}
	return created, deleted
}

func is(code int) func(int) bool { return func(got int) bool { return got == code } }

func success(code int) bool { return code >= 200 && code < 300 }

func (w *FloorWriter) do(s step) error {
	resp, err := w.hc.Do(s.req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", s.req.Method, s.req.URL.Path, err)
	}
	defer resp.Body.Close()
	if !s.want(resp.StatusCode) {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s %s: %s: %s", s.req.Method, s.req.URL.Path, resp.Status, msg)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("%s %s: read body: %w", s.req.Method, s.req.URL.Path, err)
	}
	return nil
}
