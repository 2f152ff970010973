package pdnsapi

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// Transport is an http.RoundTripper for the PowerDNS API. For every request
// it:
//
//   - sends Accept: application/json, without which PowerDNS 4.x answers
//     401, 404, 409 and 400 in plain text;
//   - sets X-API-Key only when the request goes to the configured server
//     (same scheme, host and port), and removes it otherwise, so that a
//     redirect elsewhere never carries the key;
//   - for a non-2xx answer, reads the body (at most pdnserrors.MaxBodySize
//     bytes) into the Capture of the request's context, and hands the same
//     bytes on to the caller, so go-powerdns still reads its "error" field.
//
// The base RoundTripper does the actual work; it is never replaced. Build a
// Transport with NewTransport.
type Transport struct {
	base    http.RoundTripper
	server  string // canonical scheme://host[:port]
	key     func() string
	observe func(method string, statusCode int)
	// maxResponse bounds the bytes read of a successful answer.
	maxResponse int64
}

var _ http.RoundTripper = (*Transport)(nil)

// redacted stands for the API key wherever something is printed.
const redacted = "[redacted]"

// secret holds the API key in a closure: fmt prints a func as an address
// whatever the verb and however deep, where it would print a string field,
// even an unexported one behind a pointer.
func secret(key string) func() string { return func() string { return key } }

// Option configures NewTransport and NewClient.
type Option func(*options)

type options struct {
	observe     func(method string, statusCode int)
	maxResponse int64
}

// DefaultMaxResponseBytes bounds how much of a successful answer is read:
// far more than the largest zone (a 100,000-RRset zone reads as about 15
// MB), far less than what would exhaust a controller's memory.
const DefaultMaxResponseBytes = 512 << 20

// WithMaxResponseBytes bounds how much of a successful answer is read; a
// larger answer fails with *ResponseTooLargeError. 0 or less means
// DefaultMaxResponseBytes.
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) { o.maxResponse = n }
}

// WithObserver has the Transport call fn once per round trip with the
// request's method and the answer's status, 0 when there was no answer (a
// transport error). Counts.Observe fits.
func WithObserver(fn func(method string, statusCode int)) Option {
	return func(o *options) { o.observe = fn }
}

// NewTransport returns a Transport that talks to the PowerDNS server at
// serverURL (checked as NewClient checks it) through base, or through
// http.DefaultTransport when base is nil.
func NewTransport(base http.RoundTripper, serverURL, apiKey string, opts ...Option) (*Transport, error) {
	u, err := parseServerURL(serverURL, apiKey)
	if err != nil {
		return nil, err
	}
	if err := checkAPIKey(apiKey); err != nil {
		return nil, err
	}
	return newTransport(base, u, apiKey, opts), nil
}

func newTransport(base http.RoundTripper, u *url.URL, apiKey string, opts []Option) *Transport {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if base == nil {
		base = http.DefaultTransport
	}
	if o.maxResponse <= 0 {
		o.maxResponse = DefaultMaxResponseBytes
	}
	return &Transport{
		base:        base,
		server:      origin(u),
		key:         secret(apiKey),
		observe:     o.observe,
		maxResponse: o.maxResponse,
	}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	capture := captureFrom(req.Context())
	out := req.Clone(req.Context())
	out.Header.Set("Accept", "application/json")
	if origin(req.URL) == t.server {
		if key := t.key(); key != "" {
			out.Header.Set("X-API-Key", key)
		}
	} else {
		out.Header.Del("X-API-Key")
	}

	resp, err := t.base.RoundTrip(out)
	if err != nil {
		capture.clear()
		t.notify(req.Method, 0)
		return nil, err
	}
	t.notify(req.Method, resp.StatusCode)
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		capture.clear()
		if t.maxResponse > 0 {
			resp.Body = &boundedBody{rc: resp.Body, left: t.maxResponse, limit: t.maxResponse}
		}
		return resp, nil
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, pdnserrors.MaxBodySize))
	capture.set(resp.StatusCode, body)
	switch {
	case readErr != nil:
		_ = resp.Body.Close()
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), errReader{readErr}), nopClose}
	case len(body) < pdnserrors.MaxBodySize:
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	default:
		// Larger than what is worth keeping: the caller still gets all of
		// it, from the bytes read and then from the connection.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body.Close}
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the base
// RoundTripper, when it keeps any.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *Transport) notify(method string, status int) {
	if t.observe != nil {
		t.observe(method, status)
	}
}

// String describes the Transport without its API key.
func (t Transport) String() string {
	return "pdnsapi.Transport{server: " + t.server + ", api key: " + redacted + "}"
}

// GoString is String, so that %#v does not print the key either.
func (t Transport) GoString() string { return t.String() }

// Format prints String for every verb.
func (t Transport) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, t.String()) }

// ResponseTooLargeError is the read error of a successful answer larger
// than the Transport reads.
type ResponseTooLargeError struct{ Limit int64 }

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("powerdns answer larger than %d bytes: not read further", e.Limit)
}

// boundedBody fails reads past its limit instead of truncating silently: a
// cut-off zone must never look like a smaller zone.
type boundedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a larger one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, &ResponseTooLargeError{Limit: b.limit}
		}
		return b.rc.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

func nopClose() error { return nil }

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// origin renders scheme://host[:port] of u in one spelling: lower case, and
// without the scheme's default port.
func origin(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		return scheme + "://[" + host + "]"
	}
	return scheme + "://" + host
}
