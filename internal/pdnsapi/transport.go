package pdnsapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

// Transport is an http.RoundTripper for the PowerDNS API. For every request
// it:
//
//   - sends Accept: application/json, without which PowerDNS 4.x answers
//     401, 404, 409 and 400 in plain text;
//   - sets X-API-Key, and the user and password of the server URL as basic
//     authentication, only when the request goes to the configured server
//     (same scheme, host and port), and removes the key otherwise, so that
//     a redirect elsewhere never carries them;
//   - for a non-2xx answer, reads at most pdnserrors.MaxBodySize bytes of
//     the body, closes it (a longer body's connection is dropped, never
//     read on), replaces every occurrence of the API key and the password
//     with "[redacted]", keeps the result in the Capture of the request's
//     context and hands the same bytes on to the caller, so go-powerdns
//     still reads its "error" field and never more than those bytes;
//   - fails a write (any method but GET and HEAD) answered with a redirect
//     (301, 302, 303, 307, 308) with a *RedirectError, which net/http does
//     not follow: it would send a 301, 302 or 303 on as a GET, whose 200
//     would make a write that never happened look applied;
//   - bounds a successful answer at WithMaxResponseBytes.
//
// The base RoundTripper does the actual work; it is never replaced. Build a
// Transport with NewTransport.
type Transport struct {
	base   http.RoundTripper
	server string // canonical scheme://host[:port]
	key    func() string
	// user returns the user information of the server URL, nil for none.
	user    func() *url.Userinfo
	observe func(method string, statusCode int)
	timing  func(method string, statusCode int, took time.Duration)
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

// secretUser holds user information in a closure, as secret does the key.
func secretUser(u *url.Userinfo) func() *url.Userinfo { return func() *url.Userinfo { return u } }

// Option configures NewTransport and NewClient.
type Option func(*options)

type options struct {
	observe     func(method string, statusCode int)
	timing      func(method string, statusCode int, took time.Duration)
	maxResponse int64
}

// DefaultMaxResponseBytes bounds how much of a successful answer is read.
// Measured on 4.7, 4.9 and 5.1 (TestIntegrationLargeZoneRead): a zone of
// 100,000 RRsets (A, AAAA, CNAME, TXT, MX) reads as 15.9 MiB, and decoding
// it allocates 47 MiB; 100,000 owned names, each with an ownership comment
// and an external-dns TXT registry record beside it (200,000 RRsets), read
// as 51.4 MiB and allocate 131 MiB. 128 MiB reads that zone with room to
// grow by half, and a plain zone of some 800,000 RRsets, while a server
// that answers without end costs a controller 128 MiB, not 512.
//
// The doc of reconcile.WithMaxResponseBytes states it: change both.
const DefaultMaxResponseBytes = 128 << 20

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

// WithTiming has the Transport call fn once per round trip, as
// WithObserver's fn, with the time from sending the request to the
// answer's headers (or to the transport error).
func WithTiming(fn func(method string, statusCode int, took time.Duration)) Option {
	return func(o *options) { o.timing = fn }
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
		user:        secretUser(u.User),
		observe:     o.observe,
		timing:      o.timing,
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
		if u := t.user(); u != nil && out.Header.Get("Authorization") == "" {
			password, _ := u.Password()
			out.SetBasicAuth(u.Username(), password)
		}
	} else {
		out.Header.Del("X-API-Key")
	}

	sent := time.Now()
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		capture.clear()
		t.notify(req.Method, 0, time.Since(sent))
		return nil, err
	}
	t.notify(req.Method, resp.StatusCode, time.Since(sent))
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		capture.clear()
		if t.maxResponse > 0 {
			resp.Body = &boundedBody{rc: resp.Body, left: t.maxResponse, limit: t.maxResponse}
		}
		return resp, nil
	}

	body, truncated, readErr := readErrorBody(resp.Body)
	body = t.redact(body, truncated)
	if len(body) > pdnserrors.MaxBodySize {
		// "[redacted]" is longer than a short key it replaced.
		body, truncated = body[:pdnserrors.MaxBodySize], true
	}
	if isWrite(req.Method) && isRedirect(resp.StatusCode) {
		redirect := &RedirectError{Method: req.Method, StatusCode: resp.StatusCode,
			Location: t.scrub(resp.Header.Get("Location"))}
		capture.set(resp.StatusCode, []byte(redirect.Error()), false)
		return nil, redirect
	}
	capture.set(resp.StatusCode, body, truncated)
	if readErr != nil {
		// The caller sees the body break off where it did.
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), errReader{readErr}), nopClose}
	} else {
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// readErrorBody reads what is worth keeping of a non-2xx body and closes
// it: at most pdnserrors.MaxBodySize bytes, one more to tell whether there
// was more (truncated), in which case net/http drops the connection rather
// than read the rest. A body that broke off is truncated too.
func readErrorBody(rc io.ReadCloser) (body []byte, truncated bool, err error) {
	body, err = io.ReadAll(io.LimitReader(rc, pdnserrors.MaxBodySize+1))
	_ = rc.Close()
	if len(body) > pdnserrors.MaxBodySize {
		return body[:pdnserrors.MaxBodySize], true, nil
	}
	return body, err != nil, err
}

// isWrite reports whether a request changes something on the server.
func isWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead
}

// isRedirect reports whether net/http follows a status as a redirect.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// ErrWriteRedirected matches a *RedirectError with errors.Is.
var ErrWriteRedirected = errors.New("powerdns answered a write with a redirect")

// RedirectError is a write (PATCH, POST, PUT, DELETE) that the server
// answered with a redirect. It is not followed: net/http would send a 301,
// 302 or 303 on as a GET, and a 307 or 308 would send the write to wherever
// the redirect points. The write is not known to have been applied.
type RedirectError struct {
	Method     string
	StatusCode int
	// Location is where the server pointed, without user information,
	// query or API key.
	Location string
}

func (e *RedirectError) Error() string {
	msg := "powerdns answered " + e.Method + " with a redirect (" + strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode) + ")"
	if e.Location != "" {
		msg += " to " + e.Location
	}
	return msg + ": a write is never followed; point the server URL at PowerDNS itself"
}

// Is reports whether target is ErrWriteRedirected.
func (e *RedirectError) Is(target error) bool { return target == ErrWriteRedirected }

// CloseIdleConnections closes the idle connections of the base
// RoundTripper, when it keeps any.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *Transport) notify(method string, status int, took time.Duration) {
	if t.timing != nil {
		t.timing(method, status, took)
	}
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
