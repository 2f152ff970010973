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
	// truncated: the body held more than was kept, or broke off.
	truncated bool
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
func (c *Capture) set(status int, body []byte, truncated bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok, c.status, c.body, c.truncated = true, status, body, truncated
}

// clear records a 2xx answer, or no answer.
func (c *Capture) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok, c.status, c.body, c.truncated = false, 0, nil, false
}

// Response returns the status and body (at most pdnserrors.MaxBodySize
// bytes, the API key and password redacted) of the last answer when it was
// not a 2xx, and false otherwise.
func (c *Capture) Response() (statusCode int, body []byte, ok bool) {
	status, body, _, ok := c.response()
	return status, body, ok
}

func (c *Capture) response() (statusCode int, body []byte, truncated, ok bool) {
	if c == nil {
		return 0, nil, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.body, c.truncated, c.ok
}

// APIError returns the classified last answer, or nil when it was a 2xx or
// there was none. Its Truncated is set when the body held more than was
// kept.
func (c *Capture) APIError() *pdnserrors.APIError {
	return c.apiError(nil)
}

func (c *Capture) apiError(cause error) *pdnserrors.APIError {
	status, body, truncated, ok := c.response()
	if !ok {
		return nil
	}
	e := pdnserrors.FromResponse(status, body, cause)
	e.Truncated = e.Truncated || truncated
	return e
}

// Err turns the error a call returned into the library's: a
// *pdnserrors.APIError with every problem of the captured answer, which
// keeps err reachable through errors.Is and errors.As. A write answered
// with a redirect (*RedirectError) becomes an APIError of that status,
// whose one problem is pdnserrors.InvalidRequest: not retryable, and never
// a success. Err returns err unchanged when nothing was captured, and when
// err says the answer never arrived whole or did not count: a transport
// error (*url.Error), a cancelled or expired context. It returns nil for
// nil.
func (c *Capture) Err(err error) error {
	if err == nil {
		return nil
	}
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		return pdnserrors.FromResponse(redirect.StatusCode, []byte(redirect.Error()), err)
	}
	if _, _, _, ok := c.response(); !ok {
		return err
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return c.apiError(err)
}

// Call runs fn with a context that captures its answer, and returns fn's
// error as Capture.Err does.
func Call(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, c := WithCapture(ctx)
	return c.Err(fn(ctx))
}
