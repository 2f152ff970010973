package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/miekg/dns"

	"github.com/pdnskit/reconcile/rrset"
)

// zoneFile is the desired state a zone file gives.
type zoneFile struct {
	desired []rrset.RRset
	// skipped are records zonesync leaves to the server: the SOA and the
	// apex NS.
	skipped []skipped
}

type skipped struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// group gathers the records of one RRset, in file order.
type group struct {
	name, typ string
	ttl       uint32
	line      int // where the RRset's first record is
	contents  []string
}

// readZoneFile parses path with the zone as the initial $ORIGIN: relative
// names, @, $ORIGIN and $TTL work as in any zone file; $INCLUDE is refused.
// Records are grouped into RRsets by canonical name and type. Every error
// names the file and the line.
func readZoneFile(path, zone string) (*zoneFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-file: %w", err)
	}
	defer f.Close()

	lr := &lineReader{r: bufio.NewReader(f), line: 1}
	zp := dns.NewZoneParser(lr, zone, path)
	out := &zoneFile{}
	var groups []*group
	index := make(map[rrset.Key]*group)
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		h := rr.Header()
		line := lr.last
		at := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
		}
		typ := dns.Type(h.Rrtype).String()
		if h.Class != dns.ClassINET {
			return nil, at("%s %s: class %s: only IN is supported", h.Name, typ, dns.Class(h.Class))
		}
		name, err := rrset.CanonicalName(zone, h.Name)
		if err != nil {
			var ne *rrset.NameError
			if errors.As(err, &ne) && ne.Reason == rrset.ReasonOutOfZone {
				return nil, at("%s is outside zone %s (-zone)", h.Name, zone)
			}
			return nil, at("%s", strings.TrimPrefix(err.Error(), "rrset: "))
		}
		if name == zone && (typ == "SOA" || typ == "NS") {
			out.skipped = append(out.skipped, skipped{Name: name, Type: typ, Line: line,
				Reason: "the server keeps the zone's " + map[string]string{"SOA": "SOA", "NS": "apex NS"}[typ]})
			continue
		}
		k := rrset.Key{Name: name, Type: typ}
		g := index[k]
		if g == nil {
			g = &group{name: name, typ: typ, ttl: h.Ttl, line: line}
			index[k] = g
			groups = append(groups, g)
		} else if g.ttl != h.Ttl {
			return nil, at("%s %s has TTL %d, but %d on line %d: the records of an RRset share one TTL",
				h.Name, typ, h.Ttl, g.ttl, g.line)
		}
		g.contents = append(g.contents, strings.TrimPrefix(rr.String(), h.String()))
	}
	if err := zp.Err(); err != nil {
		return nil, parseError(err)
	}
	out.desired = make([]rrset.RRset, 0, len(groups))
	for _, g := range groups {
		rr, err := rrset.New(zone, g.name, g.typ, g.ttl, g.contents...)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, g.line, strings.TrimPrefix(err.Error(), "rrset: "))
		}
		out.desired = append(out.desired, rr)
	}
	return out, nil
}

// miekg/dns reports "FILE: dns: MESSAGE: "TOKEN" at line: L:C"; it is
// rewritten in the usual FILE:L:C: form.
var parseErrorForm = regexp.MustCompile(`^(?s)(?:(.*): )?dns: (.*) at line: (\d+):(\d+)$`)

func parseError(err error) error {
	m := parseErrorForm.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("-file: %w", err)
	}
	return fmt.Errorf("%s:%s:%s: %s", m[1], m[3], m[4], m[2])
}

// lineReader counts lines for the zone parser, which reads one byte at a
// time through it and reads no further than the newline that ends a
// record: after a record, last is the line the record ended on.
type lineReader struct {
	r    *bufio.Reader
	line int // the line of the next byte
	last int // the line of the last byte read
}

var _ io.ByteReader = (*lineReader)(nil)

func (l *lineReader) ReadByte() (byte, error) {
	b, err := l.r.ReadByte()
	if err != nil {
		return b, err
	}
	l.last = l.line
	if b == '\n' {
		l.line++
	}
	return b, nil
}

func (l *lineReader) Read(p []byte) (int, error) {
	for i := range p {
		b, err := l.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = b
	}
	return len(p), nil
}
