package faultproxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxRequestBody bounds what the proxy reads of one request: far more than
// any PATCH a server accepts.
const maxRequestBody = 64 << 20

// Proxy is a running fault-injecting proxy. It is safe for concurrent use.
type Proxy struct {
	// URL is where the proxy listens, e.g. http://127.0.0.1:40123, in
	// place of the server's URL.
	URL string

	target   *url.URL
	upstream *http.Transport
	srv      *http.Server
	ca       *authority
	done     chan struct{}
	closed   sync.Once

	mu    sync.Mutex
	rules []*rule
	log   []Request
}

// Option configures Start.
type Option func(*options)

type options struct {
	tls bool
}

// WithTLS makes the proxy speak HTTPS with a certificate for 127.0.0.1 and
// localhost, signed by a certificate authority of its own: only a client
// that trusts CertPool can talk to it.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// Start starts a proxy on a free loopback port in front of the server at
// target (e.g. "http://127.0.0.1:8081"). Close stops it.
func Start(target string, opts ...Option) (*Proxy, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q: want http(s)://host:port", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{
		target: u,
		upstream: &http.Transport{
			MaxIdleConnsPerHost:   16,
			ResponseHeaderTimeout: 5 * time.Minute,
		},
		done: make(chan struct{}),
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: time.Minute,
		// HTTP/1.1 only: a reset or a cut body is a connection's fate.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		// A client that refuses the certificate is what a TLS test
		// wants; the server's complaint about it is noise.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	scheme := "http"
	if o.tls {
		if p.ca, err = newAuthority(); err != nil {
			_ = ln.Close()
			return nil, err
		}
		ln = tls.NewListener(ln, &tls.Config{
			Certificates: []tls.Certificate{p.ca.leaf},
			MinVersion:   tls.VersionTLS12,
		})
		scheme = "https"
	}
	p.URL = scheme + "://" + ln.Addr().String()
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops the proxy: hanging requests are let go (their connections
// reset) and every connection is closed.
func (p *Proxy) Close() error {
	var err error
	p.closed.Do(func() {
		close(p.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = p.srv.Shutdown(ctx); err != nil {
			err = p.srv.Close()
		}
		p.upstream.CloseIdleConnections()
	})
	return err
}

// Inject adds rules. A request gets the fault of the first rule it
// matches; requests no rule matches pass on to the server.
func (p *Proxy) Inject(rules ...Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range rules {
		p.rules = append(p.rules, &rule{Rule: r})
	}
}

// Clear removes every rule; requests pass on from now on.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	if err != nil {
		reset(w)
		return
	}
	fault, faulted, seq := p.match(r, body)
	if faulted {
		fault.serve(p, w, r, body, seq)
		return
	}
	up, err := p.forward(r, body)
	if err != nil {
		p.upstreamFailed(w, err)
		return
	}
	p.answered(seq, up.status)
	for k, vs := range up.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(up.status)
	_, _ = w.Write(up.body)
}

// match finds the request's fault and records the request, returning its
// place in the log.
func (p *Proxy) match(r *http.Request, body []byte) (Fault, bool, int) {
	sum := sha256.Sum256(body)
	rec := Request{
		Method:     r.Method,
		Path:       r.URL.Path,
		Header:     r.Header.Clone(),
		BodyDigest: hex.EncodeToString(sum[:]),
		BodySize:   len(body),
		At:         time.Now(),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var (
		fault Fault
		found bool
	)
	for _, ru := range p.rules {
		if ru.take(r) {
			fault, found = ru.Fault, true
			rec.Fault = fault.String()
			break
		}
	}
	p.log = append(p.log, rec)
	return fault, found, len(p.log) - 1
}

// answered records the server's status for the request at seq.
func (p *Proxy) answered(seq, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if seq < len(p.log) {
		p.log[seq].Status = status
	}
}

// upstreamAnswer is the server's answer, read whole.
type upstreamAnswer struct {
	status int
	header http.Header
	body   []byte
}

// forward sends the request to the server and reads its answer.
func (p *Proxy) forward(r *http.Request, body []byte) (*upstreamAnswer, error) {
	u := *p.target
	u.Path = strings.TrimSuffix(p.target.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Connection")
	resp, err := p.upstream.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	h := resp.Header.Clone()
	h.Del("Content-Length")
	h.Del("Connection")
	h.Del("Transfer-Encoding")
	return &upstreamAnswer{status: resp.StatusCode, header: h, body: b}, nil
}

// upstreamFailed answers a request the server could not be asked, as a
// reverse proxy would: 502, unless the client itself went away.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = io.WriteString(w, "faultproxy: upstream: "+err.Error())
}
