package faultproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// Fault is what the proxy does to a request instead of passing it on. Make
// one with Status, Reset, Hang, Truncate, Pad or Redirect.
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
	default:
		return "none"
	}
	if f.forward {
		s += " after forwarding"
	}
	return s
}

// serve applies the fault to one request whose body was already read.
func (f Fault) serve(p *Proxy, w http.ResponseWriter, r *http.Request, body []byte) {
	var up *upstreamAnswer
	if f.forward {
		var err error
		if up, err = p.forward(r, body); err != nil {
			p.upstreamFailed(w, err)
			return
		}
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
	}
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
	spaces := make([]byte, 32<<10)
	for i := range spaces {
		spaces[i] = ' '
	}
	for left := n; left > 0; {
		chunk := spaces[:min(left, len(spaces))]
		if _, err := buf.Write(chunk); err != nil {
			return // the client stopped reading
		}
		left -= len(chunk)
	}
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
