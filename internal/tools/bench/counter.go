package bench

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Counter is an http.RoundTripper that counts the requests through it, the
// body bytes sent and received, and the time each kind of request took.
// Headers are not counted: they are the same few hundred bytes for every
// writer's request.
type Counter struct {
	base http.RoundTripper

	mu       sync.Mutex
	requests map[string]int
	calls    map[string]int
	times    map[string]time.Duration
	sent     int64
	received int64
	largest  int64
}

var _ http.RoundTripper = (*Counter)(nil)

// NewCounter counts what goes through base.
func NewCounter(base http.RoundTripper) *Counter {
	c := &Counter{base: base}
	c.Reset()
	return c
}

// Counts is what a Counter saw.
type Counts struct {
	// Requests counts requests by method.
	Requests map[string]int
	// Calls and Times count the requests and add up their durations by
	// endpoint: method and what it addresses ("GET zone", "PUT
	// metadata"). A request lasts from when it is sent until its answer's
	// body is read to its end or closed, so the time of a GET includes
	// decoding the answer when the caller decodes as it reads.
	Calls map[string]int
	Times map[string]time.Duration
	// Sent and Received are request and response body bytes;
	// LargestBody is the largest request body.
	Sent, Received, LargestBody int64
}

// Total is the number of requests of any method.
func (c Counts) Total() int {
	n := 0
	for _, v := range c.Requests {
		n += v
	}
	return n
}

// endpoint names what a request addresses: its method and "zone",
// "metadata" or "server".
func endpoint(req *http.Request) string {
	p := req.URL.Path
	switch {
	case strings.Contains(p, "/metadata"):
		return req.Method + " metadata"
	case strings.Contains(p, "/zones/"):
		return req.Method + " zone"
	default:
		return req.Method + " server"
	}
}

// RoundTrip implements http.RoundTripper.
func (c *Counter) RoundTrip(req *http.Request) (*http.Response, error) {
	key := endpoint(req)
	c.mu.Lock()
	c.requests[req.Method]++
	c.calls[key]++
	c.mu.Unlock()
	began := time.Now()
	out := req
	if req.ContentLength > 0 {
		c.mu.Lock()
		c.largest = max(c.largest, req.ContentLength)
		c.mu.Unlock()
	}
	if req.Body != nil && req.Body != http.NoBody {
		out = req.Clone(req.Context())
		out.Body = &countingBody{ReadCloser: req.Body, c: c, sent: true}
	}
	resp, err := c.base.RoundTrip(out)
	if err != nil {
		c.done(key, began)
		return nil, err
	}
	if resp.ContentLength == 0 || resp.StatusCode == http.StatusNoContent {
		// Nothing to read: callers need not close such a body (go-powerdns
		// does not), so the request is over now.
		c.done(key, began)
		return resp, nil
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, c: c, end: func() { c.done(key, began) }}
	return resp, nil
}

func (c *Counter) done(key string, began time.Time) {
	took := time.Since(began)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.times[key] += took
}

// Counts returns what the Counter saw since the last Reset.
func (c *Counter) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := Counts{
		Requests:    make(map[string]int, len(c.requests)),
		Calls:       make(map[string]int, len(c.calls)),
		Times:       make(map[string]time.Duration, len(c.times)),
		Sent:        c.sent,
		Received:    c.received,
		LargestBody: c.largest,
	}
	for k, v := range c.requests {
		out.Requests[k] = v
	}
	for k, v := range c.calls {
		out.Calls[k] = v
	}
	for k, v := range c.times {
		out.Times[k] = v
	}
	return out
}

// Reset forgets every count.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = make(map[string]int)
	c.calls = make(map[string]int)
	c.times = make(map[string]time.Duration)
	c.sent, c.received, c.largest = 0, 0, 0
}

func (c *Counter) add(sent bool, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sent {
		c.sent += int64(n)
	} else {
		c.received += int64(n)
	}
}

// countingBody counts the bytes read through it; for an answer's body, it
// calls end once, at its end or when it is closed.
type countingBody struct {
	io.ReadCloser
	c    *Counter
	sent bool
	end  func()
	once sync.Once
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.add(b.sent, n)
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *countingBody) Close() error {
	b.finish()
	return b.ReadCloser.Close()
}

func (b *countingBody) finish() {
	if b.end != nil {
		b.once.Do(b.end)
	}
}
