// Package zonejson decodes the PowerDNS API's answer to GET /zones/{zone}
// into the few fields a reconciler reads: each RRset's name, type, TTL,
// records and comments.
//
// It exists for speed. encoding/json into go-powerdns's structs, where every
// field is a pointer, is most of what a no-op sync of a large zone costs the
// client; this decoder walks the bytes once and allocates little more than
// the strings it returns. It accepts exactly the JSON encoding/json accepts
// (RFC 8259), decodes strings as encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD), matches keys as encoding/json matches them to
// struct fields (exactly, else case-insensitively), and fails where
// encoding/json would fail to decode into the same fields. A fuzz test holds
// it to that.
package zonejson

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Zone is a decoded zone.
type Zone struct {
	Name   string
	RRsets []RRset
	// SOAEditAPI and SOAEdit are the zone's soa_edit_api and soa_edit:
	// whether and how PowerDNS rewrites the serial of an SOA written
	// through the API (rrset.SOASerialRewritten).
	SOAEditAPI, SOAEdit string
}

// RRset is one RRset of a zone.
type RRset struct {
	Name     string
	Type     string
	TTL      uint32
	Records  []Record
	Comments []Comment
}

// Record is one record of an RRset.
type Record struct {
	Content  string
	Disabled bool
}

// Comment is one comment of an RRset.
type Comment struct {
	Content    string
	Account    string
	ModifiedAt uint64
}

// SyntaxError is JSON that is not well formed, at byte Offset.
type SyntaxError struct {
	Offset int
	msg    string
	// cut is true when the input ended before the JSON did: an answer cut
	// short, which Unwrap reports as io.ErrUnexpectedEOF.
	cut bool
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("zone JSON: %s at offset %d", e.msg, e.Offset)
}

// Unwrap returns io.ErrUnexpectedEOF for JSON that was cut short, so that
// callers treat it as the transport failure it most likely is.
func (e *SyntaxError) Unwrap() error {
	if e.cut {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// TypeError is well-formed JSON with a value of the wrong kind for a field.
type TypeError struct {
	Field  string
	Offset int
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("zone JSON: %s has a value of the wrong kind at offset %d", e.Field, e.Offset)
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// Decode decodes a zone. A JSON null decodes to an empty Zone, as it does
// with encoding/json.
func Decode(data []byte) (Zone, error) {
	d := decoder{data: data}
	var z Zone
	d.ws()
	if d.literal("null") {
		d.ws()
		return z, d.end()
	}
	err := d.object("zone", func(key []byte) error {
		switch {
		case keyIs(key, "name"):
			return d.stringInto(&z.Name, "zone name")
		case keyIs(key, "soa_edit_api"):
			return d.stringInto(&z.SOAEditAPI, "zone soa_edit_api")
		case keyIs(key, "soa_edit"):
			return d.stringInto(&z.SOAEdit, "zone soa_edit")
		case keyIs(key, "rrsets"):
			// A served RRset takes some 200 bytes: size the slice once
			// rather than grow it a dozen times on a large zone.
			z.RRsets = make([]RRset, 0, len(d.data)/256)
			return d.array("rrsets", func() error {
				rr, err := d.rrset()
				z.RRsets = append(z.RRsets, rr)
				return err
			})
		default:
			return d.skip(1)
		}
	})
	if err != nil {
		return Zone{}, err
	}
	d.ws()
	if err := d.end(); err != nil {
		return Zone{}, err
	}
	return z, nil
}

type decoder struct {
	data []byte
	pos  int
	// buf is reused to unescape keys, which are compared, never kept.
	buf []byte
	// interned holds the values internInto shares.
	interned map[string]string
}

func (d *decoder) rrset() (RRset, error) {
	var rr RRset
	err := d.object("rrset", func(key []byte) error {
		switch {
		case keyIs(key, "name"):
			return d.stringInto(&rr.Name, "rrset name")
		case keyIs(key, "type"):
			return d.internInto(&rr.Type, "rrset type")
		case keyIs(key, "ttl"):
			return d.uintInto(func(v uint64) { rr.TTL = uint32(v) }, 32, "rrset ttl")
		case keyIs(key, "records"):
			rr.Records = rr.Records[:0:0]
			return d.array("records", func() error {
				var rec Record
				err := d.object("record", func(key []byte) error {
					switch {
					case keyIs(key, "content"):
						return d.stringInto(&rec.Content, "record content")
					case keyIs(key, "disabled"):
						return d.boolInto(&rec.Disabled, "record disabled")
					default:
						return d.skip(1)
					}
				})
				rr.Records = append(rr.Records, rec)
				return err
			})
		case keyIs(key, "comments"):
			rr.Comments = rr.Comments[:0:0]
			return d.array("comments", func() error {
				var c Comment
				err := d.object("comment", func(key []byte) error {
					switch {
					case keyIs(key, "content"):
						return d.internInto(&c.Content, "comment content")
					case keyIs(key, "account"):
						return d.internInto(&c.Account, "comment account")
					case keyIs(key, "modified_at"):
						return d.uintInto(func(v uint64) { c.ModifiedAt = v }, 64, "comment modified_at")
					default:
						return d.skip(1)
					}
				})
				rr.Comments = append(rr.Comments, c)
				return err
			})
		default:
			return d.skip(1)
		}
	})
	return rr, err
}

// keyIs matches a key to a field name as encoding/json does: exactly, or
// else under Unicode case folding.
func keyIs(key []byte, name string) bool {
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}

func (d *decoder) syntax(msg string) error {
	return &SyntaxError{Offset: d.pos, msg: msg, cut: d.pos >= len(d.data)}
}

func (d *decoder) end() error {
	if d.pos != len(d.data) {
		return d.syntax("data after the top-level value")
	}
	return nil
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) literal(lit string) bool {
	if bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
		d.pos += len(lit)
		return true
	}
	return false
}

// object decodes an object, or a null (which leaves what it would have set
// alone), calling field for each key with the decoder at its value.
func (d *decoder) object(what string, field func(key []byte) error) error {
	if more, err := d.open(what, '{', '}'); !more {
		return err
	}
	var typeErr error
	for {
		d.ws()
		if d.peek() != '"' {
			return d.syntax("expected a key")
		}
		key, err := d.str(true)
		if err != nil {
			return err
		}
		d.ws()
		if d.peek() != ':' {
			return d.syntax("expected ':' after a key")
		}
		d.pos++
		if err := keepTypeError(&typeErr, field(key)); err != nil {
			return err
		}
		if done, err := d.next('}', "expected ',' or '}' in an object"); done || err != nil {
			return cmp.Or(err, typeErr)
		}
	}
}

// array decodes an array, or a null, calling elem for each element with the
// decoder at it.
func (d *decoder) array(what string, elem func() error) error {
	if more, err := d.open(what, '[', ']'); !more {
		return err
	}
	var typeErr error
	for {
		if err := keepTypeError(&typeErr, elem()); err != nil {
			return err
		}
		if done, err := d.next(']', "expected ',' or ']' in an array"); done || err != nil {
			return cmp.Or(err, typeErr)
		}
	}
}

// open steps into an array or object that opener begins, or over a null;
// more is false when there is nothing inside (null, empty, or an error).
func (d *decoder) open(what string, opener, closer byte) (more bool, err error) {
	d.ws()
	if d.literal("null") {
		return false, nil
	}
	if d.peek() != opener {
		return false, d.wrongKind(what)
	}
	d.pos++
	d.ws()
	if d.peek() == closer {
		d.pos++
		return false, nil
	}
	return true, nil
}

// keepTypeError returns err unless it is a TypeError, which it keeps in
// *kept if it is the first: encoding/json reports a value of the wrong kind
// only once the whole document proved well formed.
func keepTypeError(kept *error, err error) error {
	if err == nil {
		return nil // before te, which escapes: no allocation per value
	}
	var te *TypeError
	if !errors.As(err, &te) {
		return err
	}
	if *kept == nil {
		*kept = err
	}
	return nil
}

// next steps over the ',' after an element or member, or over closer,
// which ends the array or object (done).
func (d *decoder) next(closer byte, malformed string) (done bool, err error) {
	d.ws()
	switch d.peek() {
	case ',':
		d.pos++
		return false, nil
	case closer:
		d.pos++
		return true, nil
	default:
		return false, d.syntax(malformed)
	}
}

// wrongKind skips a well-formed value of the wrong kind and reports it as a
// TypeError; a malformed one is a SyntaxError.
func (d *decoder) wrongKind(what string) error {
	at := d.pos
	if err := d.skip(1); err != nil {
		return err
	}
	return &TypeError{Field: what, Offset: at}
}

func (d *decoder) stringInto(dst *string, what string) error {
	b, ok, err := d.stringValue(what)
	if ok {
		*dst = string(b)
	}
	return err
}

// internInto is stringInto for values that repeat across a zone (types,
// comment accounts and contents): each distinct short value is allocated
// once.
func (d *decoder) internInto(dst *string, what string) error {
	b, ok, err := d.stringValue(what)
	if !ok {
		return err
	}
	if len(b) > maxInterned {
		*dst = string(b)
		return nil
	}
	if v, ok := d.interned[string(b)]; ok {
		*dst = v
		return nil
	}
	v := string(b)
	if d.interned == nil {
		d.interned = make(map[string]string)
	}
	if len(d.interned) < maxInternedValues {
		d.interned[v] = v
	}
	*dst = v
	return nil
}

// stringValue reads a string value, unescaped; the bytes may alias the
// input, so callers copy what they keep. ok is false for null (which leaves
// the field as it is) and on error.
func (d *decoder) stringValue(what string) (b []byte, ok bool, err error) {
	d.ws()
	switch {
	case d.literal("null"):
		return nil, false, nil
	case d.peek() != '"':
		return nil, false, d.wrongKind(what)
	}
	b, err = d.str(false)
	return b, err == nil, err
}

// Interning bounds: short values only, and not too many of them, so that a
// zone of unique comments costs no more than without interning.
const (
	maxInterned       = 64
	maxInternedValues = 256
)

func (d *decoder) boolInto(dst *bool, what string) error {
	d.ws()
	switch {
	case d.literal("null"):
	case d.literal("true"):
		*dst = true
	case d.literal("false"):
		*dst = false
	default:
		return d.wrongKind(what)
	}
	return nil
}

func (d *decoder) uintInto(set func(uint64), bits int, what string) error {
	d.ws()
	if d.literal("null") {
		return nil
	}
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		return d.wrongKind(what)
	}
	at := d.pos
	if err := d.number(); err != nil {
		return err
	}
	v, err := strconv.ParseUint(string(d.data[at:d.pos]), 10, bits)
	if err != nil {
		return &TypeError{Field: what, Offset: at}
	}
	set(v)
	return nil
}

// number scans a JSON number.
func (d *decoder) number() error {
	if d.peek() == '-' {
		d.pos++
	}
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		for d.pos++; isDigit(d.peek()); d.pos++ {
		}
	default:
		return d.syntax("malformed number")
	}
	if d.peek() == '.' {
		d.pos++
		if !isDigit(d.peek()) {
			return d.syntax("malformed number")
		}
		for isDigit(d.peek()) {
			d.pos++
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if !isDigit(d.peek()) {
			return d.syntax("malformed number")
		}
		for isDigit(d.peek()) {
			d.pos++
		}
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skip scans any value, checking it is well formed.
func (d *decoder) skip(depth int) error {
	if depth > maxDepth {
		return d.syntax("nested too deeply")
	}
	d.ws()
	switch c := d.peek(); {
	case c == '{':
		return d.object("object", func([]byte) error { return d.skip(depth + 1) })
	case c == '[':
		return d.array("array", func() error { return d.skip(depth + 1) })
	case c == '"':
		_, err := d.str(true)
		return err
	case c == '-' || isDigit(c):
		return d.number()
	case d.literal("true"), d.literal("false"), d.literal("null"):
		return nil
	default:
		return d.syntax("expected a value")
	}
}

// str scans a string at d.pos and returns its decoded bytes. When scratch is
// true the result lives in a buffer the next call reuses.
func (d *decoder) str(scratch bool) ([]byte, error) {
	d.pos++ // the opening quote
	start := d.pos
	// Fast path: up to the next quote, no escape, no control character,
	// valid UTF-8. bytes.IndexByte is vectorised; most strings of a zone
	// are plain ASCII names and contents.
	end := bytes.IndexByte(d.data[start:], '"')
	if end < 0 {
		return d.slowStr(start, scratch)
	}
	seg := d.data[start : start+end]
	ascii := true
	for _, c := range seg {
		if c < 0x20 || c == '\\' {
			return d.slowStr(start, scratch)
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(seg) {
		return d.slowStr(start, scratch)
	}
	d.pos = start + end + 1
	return seg, nil
}

func (d *decoder) slowStr(start int, scratch bool) ([]byte, error) {
	var out []byte
	if scratch {
		out = d.buf[:0]
	}
	out = append(out, d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if scratch {
				d.buf = out
			}
			return out, nil
		case c < 0x20:
			return nil, d.syntax("control character in a string")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return nil, d.syntax("unterminated string")
			}
			e := d.data[d.pos]
			d.pos++
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return nil, d.syntax("malformed \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; anything else is U+FFFD, and
					// a following escape is read on its own.
					if bytes.HasPrefix(d.data[d.pos:], []byte(`\u`)) {
						save := d.pos
						d.pos += 2
						if r2, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								continue
							}
						}
						d.pos = save
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, d.syntax("malformed escape")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
		}
	}
	return nil, d.syntax("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	d.pos += 4
	return r, true
}
