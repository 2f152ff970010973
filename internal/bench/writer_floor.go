package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/joeig/go-powerdns/v3"
)

// FloorWriter is what PowerDNS itself costs for a sync: one GET of the
// zone, its body read and dropped, and one PATCH of a body encoded before
// the clock started (none when nothing changes), over plain net/http. Its
// body holds the same RRsets and comments the reconciler writes.
type FloorWriter struct {
	url, apiKey string
	hc          *http.Client
	counter     *Counter
	owner       []powerdns.Comment
}

var _ Writer = (*FloorWriter)(nil)

// NewFloorWriter returns a FloorWriter for the server at url.
func NewFloorWriter(url, apiKey string, base http.RoundTripper, owner []powerdns.Comment) *FloorWriter {
	counter := NewCounter(base)
	return &FloorWriter{url: url, apiKey: apiKey, hc: &http.Client{Transport: counter}, counter: counter, owner: owner}
}

// ID implements Writer.
func (w *FloorWriter) ID() WriterID { return Floor }

// Counter implements Writer.
func (w *FloorWriter) Counter() *Counter { return w.counter }

// Prepare implements Writer: the requests are built, and the PATCH body
// encoded, here.
func (w *FloorWriter) Prepare(ctx context.Context, c Case) (func(context.Context) error, error) {
	body, err := Body(c.Changes, w.owner)
	if err != nil {
		return nil, err
	}
	url := ZoneURL(w.url, Zone)
	get, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	setHeaders(get, w.apiKey)
	var patch *http.Request
	if body != nil {
		if patch, err = http.NewRequestWithContext(ctx, http.MethodPatch, url, bytes.NewReader(body)); err != nil {
			return nil, err
		}
		setHeaders(patch, w.apiKey)
	}
	return func(context.Context) error {
		if err := w.do(get, http.StatusOK); err != nil {
			return err
		}
		if patch == nil {
			return nil
		}
		return w.do(patch, http.StatusNoContent)
	}, nil
}

func (w *FloorWriter) do(req *http.Request, want int) error {
	resp, err := w.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s zone: %w", req.Method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s zone: %s: %s", req.Method, resp.Status, msg)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("%s zone: read body: %w", req.Method, err)
	}
	return nil
}
