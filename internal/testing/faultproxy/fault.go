package faultproxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Fault is what the proxy does to a request instead of passing it on. Make
// one with Status, Reset, Hang, Truncate, Pad, Trail, Flood, Echo or
// Redirect.
type Fault struct {
	kind    kind
	forward bool

	status      int
	contentType string
	body        []byte
	n           int
	location    string
}

type kind int

const (
	kindStatus kind = iota + 1
	kindReset
	kindHang
	kindTruncate
	kindPad
	kindRedirect
	kindTrail
	kindFlood
	kindEcho
)

// Status answers code with body, of contentType when not "", without asking
// the server: a 5xx of a proxy in between, a refusal in a shape PowerDNS
// never wrote, a 200 with a body that is not a zone.
func Status(code int, contentType string, body []byte) Fault {
	return Fault{kind: kindStatus, status: code, contentType: contentType, body: body}
}

// Reset reads the request and closes the connection with a TCP reset,
// answering nothing.
func Reset() Fault { return Fault{kind: kindReset} }

// Hang reads the request and answers nothing until the client gives up or
// the proxy is closed: an answer that never comes.
func Hang() Fault { return Fault{kind: kindHang} }

// Truncate passes the request on, then sends the server's status and
// headers with a Content-Length promising its whole body, only the first
// keep bytes of it, and closes the connection.
func Truncate(keep int) Fault { return Fault{kind: kindTruncate, forward: true, n: keep} }

// Pad passes the request on, then sends the server's answer with n bytes of
// white space before its body: a valid JSON document, larger than any bound.
func Pad(n int) Fault { return Fault{kind: kindPad, forward: true, n: n} }

// Trail passes the request on, then sends the server's answer, whatever
// its status, with n bytes of white space after its body: a JSON answer
// stays valid JSON, larger than any bound, its meaning at its start. For
// an answer with a body (not a 204).
func Trail(n int) Fault { return Fault{kind: kindTrail, forward: true, n: n} }

// Flood answers code with prefix followed by n bytes of filler ('x'),
// written as they go, without asking the server: a body of any size that
// costs the proxy no memory.
func Flood(code int, contentType string, prefix []byte, n int) Fault {
	return Fault{kind: kindFlood, status: code, contentType: contentType, body: prefix, n: n}
}

// Echo answers code with a JSON refusal that quotes the request line and
// every request header, API key included, as a misconfigured proxy might,
// without asking the server.
func Echo(code int) Fault { return Fault{kind: kindEcho, status: code} }

// Redirect answers code (a 3xx) with a Location of base followed by the
// request's path and query, without asking the server.
func Redirect(code int, base string) Fault {
	return Fault{kind: kindRedirect, status: code, location: base}
}

// AfterForwarding makes a Status, Reset or Hang fault pass the request on
// first: the server acts on it (a PATCH is committed) and its answer is
// lost.
func (f Fault) AfterForwarding() Fault {
	f.forward = true
	return f
}

// String names the fault, e.g. "status 503" or "reset after forwarding".
func (f Fault) String() string {
	var s string
	switch f.kind {
	case kindStatus:
		s = "status " + strconv.Itoa(f.status)
	case kindReset:
		s = "reset"
	case kindHang:
		s = "hang"
	case kindTruncate:
		return fmt.Sprintf("truncate to %d bytes", f.n)
	case kindPad:
		return fmt.Sprintf("pad with %d bytes", f.n)
	case kindRedirect:
		return fmt.Sprintf("redirect %d to %s", f.status, f.location)
	case kindTrail:
		return fmt.Sprintf("trail with %d bytes", f.n)
	case kindFlood:
		return fmt.Sprintf("status %d with %d bytes", f.status, len(f.body)+f.n)
	case kindEcho:
		return fmt.Sprintf("status %d echoing the request", f.status)
	default:
		return "none"
	}
	if f.forward {
		s += " after forwarding"
	}
	return s
}

// serve applies the fault to the request at seq of the log, whose body was
// already read.
func (f Fault) serve(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte, seq int) {
	var up *upstreamAnswer
	if f.forward {
		var err error
		if up, err = p.forward(r, body); err != nil {
			p.upstreamFailed(w, err)
			return
		}
		p.answered(seq, up.status)
	}
	switch f.kind {
	case kindStatus:
		if f.contentType != "" {
			w.Header().Set("Content-Type", f.contentType)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
		w.WriteHeader(f.status)
		_, _ = w.Write(f.body)
	case kindReset:
		reset(w)
	case kindHang:
		select {
		case <-r.Context().Done():
		case <-p.done:
			reset(w)
		}
	case kindTruncate:
		truncate(w, up, f.n)
	case kindPad:
		pad(w, up, f.n)
	case kindRedirect:
		w.Header().Set("Location", f.location+r.URL.RequestURI())
		w.WriteHeader(f.status)
	case kindTrail:
		trail(w, up, f.n)
	case kindFlood:
		flood(w, f)
	case kindEcho:
		echo(w, r, f.status)
	}
}

// blanks is white space to write from; never written to.
var blanks = func() []byte {
	b := make([]byte, 32<<10)
	for i := range b {
		b[i] = ' '
	}
	return b
}()

// filler is the filler Flood writes; never written to.
var filler = func() []byte {
	b := make([]byte, 32<<10)
	for i := range b {
		b[i] = 'x'
	}
	return b
}()

// writeRepeated writes n bytes of chunk's kind; it stops when the client
// stops reading.
func writeRepeated(w io.Writer, chunk []byte, n int) {
	for left := n; left > 0; {
		c := chunk[:min(left, len(chunk))]
		if _, err := w.Write(c); err != nil {
			return
		}
		left -= len(c)
	}
}

func trail(w http.ResponseWriter, up *upstreamAnswer, n int) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	writeHead(buf, up, len(up.body)+n)
	if _, err := buf.Write(up.body); err != nil {
		return
	}
	writeRepeated(buf, blanks, n)
	_ = buf.Flush()
}

func flood(w http.ResponseWriter, f Fault) {
	if f.contentType != "" {
		w.Header().Set("Content-Type", f.contentType)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(f.body)+f.n))
	w.WriteHeader(f.status)
	if _, err := w.Write(f.body); err != nil {
		return
	}
	writeRepeated(w, filler, f.n)
}

func echo(w http.ResponseWriter, r *http.Request, status int) {
	var b strings.Builder
	b.WriteString(r.Method + " " + r.URL.RequestURI() + " refused;")
	names := make([]string, 0, len(r.Header))
	for name := range r.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b.WriteString(" " + name + ": " + strings.Join(r.Header[name], ", ") + ";")
	}
	body, _ := json.Marshal(map[string]string{"error": b.String()})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// reset closes the request's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := underlying(conn).(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
		_ = tc.Close()
	}
	_ = conn.Close()
}

// underlying returns the TCP connection beneath a TLS one.
func underlying(c net.Conn) net.Conn {
	if nc, ok := c.(interface{ NetConn() net.Conn }); ok {
		return nc.NetConn()
	}
	return c
}

func truncate(w http.ResponseWriter, up *upstreamAnswer, keep int) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	keep = max(0, min(keep, len(up.body)))
	writeHead(buf, up, len(up.body))
	_, _ = buf.Write(up.body[:keep])
	_ = buf.Flush()
}

func pad(w http.ResponseWriter, up *upstreamAnswer, n int) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	writeHead(buf, up, n+len(up.body))
	writeRepeated(buf, blanks, n)
	_, _ = buf.Write(up.body)
	_ = buf.Flush()
}

// writeHead writes the server's status line and headers, with a
// Content-Length of length and the connection marked for closing.
func writeHead(buf *bufio.ReadWriter, up *upstreamAnswer, length int) {
	_, _ = fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\n", up.status, http.StatusText(up.status))
	h := up.header.Clone()
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", strconv.Itoa(length))
	h.Set("Connection", "close")
	_ = h.Write(buf)
	_, _ = io.WriteString(buf, "\r\n")
}
