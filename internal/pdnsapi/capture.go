package pdnsapi

import (
	"context"
	"errors"
	"net/url"
	"sync"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// Capture holds the last non-2xx answer of one API call, recorded by the
// Transport. Make one per call with WithCapture; it is safe for concurrent
// use, but concurrent calls through one Capture overwrite each other.
type Capture struct {
	mu     sync.Mutex
	ok     bool
	status int
	body   []byte
}

type captureKey struct{}

// WithCapture returns a context whose requests through a Transport record
// their answer in the returned Capture.
func WithCapture(ctx context.Context) (context.Context, *Capture) {
	c := new(Capture)
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *Capture {
	c, _ := ctx.Value(captureKey{}).(*Capture)
	return c
}

// set records a non-2xx answer. Every round trip overwrites the last one,
// so that after a redirect only the final answer counts.
func (c *Capture) set(status int, body []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok, c.status, c.body = true, status, body
}

// clear records a 2xx answer, or no answer.
func (c *Capture) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok, c.status, c.body = false, 0, nil
}

// Response returns the status and body (at most pdnserrors.MaxBodySize
// bytes) of the last answer when it was not a 2xx, and false otherwise.
func (c *Capture) Response() (statusCode int, body []byte, ok bool) {
	if c == nil {
		return 0, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.body, c.ok
}

// APIError returns the classified last answer, or nil when it was a 2xx or
// there was none.
func (c *Capture) APIError() *pdnserrors.APIError {
	status, body, ok := c.Response()
	if !ok {
		return nil
	}
	return pdnserrors.Parse(status, body)
}

// Err turns the error a call returned into the library's: a
// *pdnserrors.APIError with every problem of the captured answer, which
// keeps err reachable through errors.Is and errors.As. It returns err
// unchanged when nothing was captured, and when err says the answer never
// arrived whole or did not count: a transport error (*url.Error), a
// cancelled or expired context. It returns nil for nil.
func (c *Capture) Err(err error) error {
	if err == nil {
		return nil
	}
	status, body, ok := c.Response()
	if !ok {
		return err
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return pdnserrors.FromResponse(status, body, err)
}

// Call runs fn with a context that captures its answer, and returns fn's
// error as Capture.Err does.
func Call(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, c := WithCapture(ctx)
	return c.Err(fn(ctx))
}
