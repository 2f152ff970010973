package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pdnskit/reconcile/rrset"
)

// wire is a writer's HTTP transport, handed to reconcile.WithHTTPClient
// (which wraps it). It passes every request on unchanged, counts what
// PowerDNS answered, and notes the RRsets each PATCH wrote, so that the
// demo can prove no 422 reached the server and no refused write was sent
// again.
type wire struct {
	base http.RoundTripper

	mu      sync.Mutex
	answers map[int]int       // status code → answers
	patches int               // PATCHes sent
	writes  map[rrset.Key]int // PATCHes that wrote each key
}

var _ http.RoundTripper = (*wire)(nil)

func newWire() *wire {
	return &wire{base: http.DefaultTransport, answers: make(map[int]int), writes: make(map[rrset.Key]int)}
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPatch {
		var keys []rrset.Key
		keys, req = patchedKeys(req)
		w.mu.Lock()
		w.patches++
		for _, k := range keys {
			w.writes[k]++
		}
		w.mu.Unlock()
	}
	resp, err := w.base.RoundTrip(req)
	if err == nil {
		w.mu.Lock()
		w.answers[resp.StatusCode]++
		w.mu.Unlock()
	}
	return resp, err
}

// patchedKeys returns the keys a PATCH body replaces, and the request to
// send: the same one, or a copy with its body restored when it had to be
// read.
func patchedKeys(req *http.Request) ([]rrset.Key, *http.Request) {
	var body []byte
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return nil, req
	case req.GetBody != nil:
		rc, err := req.GetBody()
		if err != nil {
			return nil, req
		}
		body, _ = io.ReadAll(rc)
		rc.Close()
	default:
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		body = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		if err != nil {
			return nil, req
		}
	}
	var patch struct {
		RRsets []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			ChangeType string `json:"changetype"`
		} `json:"rrsets"`
	}
	if json.Unmarshal(body, &patch) != nil {
		return nil, req
	}
	var keys []rrset.Key
	for _, rr := range patch.RRsets {
		if strings.EqualFold(rr.ChangeType, "REPLACE") {
			keys = append(keys, rrset.Key{Name: strings.ToLower(rr.Name), Type: strings.ToUpper(rr.Type)})
		}
	}
	return keys, req
}

// Patches returns the PATCHes sent so far.
func (w *wire) Patches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.patches
}

// Answers returns the answers with status code.
func (w *wire) Answers(code int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.answers[code]
}

// Refusals returns the 4xx answers.
func (w *wire) Refusals() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for code, count := range w.answers {
		if code >= 400 && code < 500 {
			n += count
		}
	}
	return n
}

// Writes returns how many PATCHes wrote k.
func (w *wire) Writes(k rrset.Key) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes[k]
}
