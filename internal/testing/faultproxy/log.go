package faultproxy

import (
	"net/http"
	"regexp"
	"time"
)

// Request is one request the proxy received.
type Request struct {
	Method string
	Path   string
	// Header is the request's header as received. It holds the API key
	// when the client sent one: compare it, never print it.
	Header http.Header
	// BodyDigest is a SHA-256 of the body, hex-encoded, to tell whether
	// two requests sent the same body.
	BodyDigest string
	// BodySize is the body's length in bytes.
	BodySize int
	// Fault is the fault the request got, "" when it was passed on.
	Fault string
	// Status is the status of the server's answer to a request passed
	// on, also when a fault after forwarding replaced that answer; 0 when
	// there was none (a fault before forwarding, or no answer from the
	// server).
	Status int
	// At is when the request arrived.
	At time.Time
}

// ServerError reports whether the server itself answered the request with
// a 5xx, as PowerDNS does under load (4.7.3 on gsqlite3: "database is
// locked"), whatever a fault then made of the answer.
func (r Request) ServerError() bool { return r.Status >= 500 }

// Requests returns every request received so far, in order.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Count returns how many requests with method ("" for any) and a path path
// matches (nil for any) the proxy received.
func (p *Proxy) Count(method string, path *regexp.Regexp) int {
	n := 0
	for _, r := range p.Requests() {
		if (method == "" || r.Method == method) && (path == nil || path.MatchString(r.Path)) {
			n++
		}
	}
	return n
}

// Faulted returns how many requests got a fault.
func (p *Proxy) Faulted() int {
	n := 0
	for _, r := range p.Requests() {
		if r.Fault != "" {
			n++
		}
	}
	return n
}
