// Package zonejson decodes the PowerDNS API's answer to GET /zones/{zone}
// into the few fields a reconciler reads: the zone's name and SOA-EDIT-API
// setting, and each RRset's name, type, TTL, records and comments.
//
// It exists for speed. encoding/json into go-powerdns's structs, where every
// field is a pointer, is most of what a no-op sync of a large zone costs the
// client; github.com/goccy/go-json into these flat types costs a fraction of
// it (BenchmarkDecode). goccy/go-json decodes as encoding/json does, and a
// fuzz test holds this package to encoding/json's acceptance: Decode accepts
// exactly the JSON encoding/json accepts (RFC 8259, at most 10,000 levels of
// nesting), decodes strings as encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD), matches keys as encoding/json matches them to
// struct fields (exactly, else case-insensitively), lets the last of
// duplicate keys win, skips unknown keys, leaves a field alone on null, and
// fails where encoding/json would fail to decode into the same fields (a TTL
// out of uint32's range, a number with a fraction or exponent where an
// integer is expected, a value of the wrong kind).
package zonejson

import (
	"errors"
	"fmt"
	"io"

	json "github.com/goccy/go-json"
)

// Zone is a decoded zone.
type Zone struct {
	Name   string  `json:"name"`
	RRsets []RRset `json:"rrsets"`
	// SOAEditAPI and SOAEdit are the zone's soa_edit_api and soa_edit:
	// whether and how PowerDNS rewrites the serial of an SOA written
	// through the API (rrset.SOASerialRewritten).
	SOAEditAPI string `json:"soa_edit_api"`
	SOAEdit    string `json:"soa_edit"`
	// Serial is the zone's SOA serial as PowerDNS reports it with the
	// zone's properties, also in a read without RRsets.
	Serial uint32 `json:"serial"`
}

// RRset is one RRset of a zone.
type RRset struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	TTL      uint32    `json:"ttl"`
	Records  []Record  `json:"records"`
	Comments []Comment `json:"comments"`
}

// Record is one record of an RRset.
type Record struct {
	Content  string `json:"content"`
	Disabled bool   `json:"disabled"`
}

// Comment is one comment of an RRset.
type Comment struct {
	Content    string `json:"content"`
	Account    string `json:"account"`
	ModifiedAt uint64 `json:"modified_at"`
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

// TypeError is well-formed JSON with a value of the wrong kind for a field,
// or a number out of the field's range.
type TypeError struct {
	// Field is the path to the field from the zone, e.g. "rrsets.0.ttl"
	// ("" for the zone itself).
	Field  string
	Offset int
	// value describes what was found, e.g. "number -1" or "string".
	value string
}

func (e *TypeError) Error() string {
	field := e.Field
	if field == "" {
		field = "the zone"
	}
	return fmt.Sprintf("zone JSON: %s has a value of the wrong kind (%s) at offset %d", field, e.value, e.Offset)
}

// Decode decodes a zone. A JSON null decodes to an empty Zone, as it does
// with encoding/json. A malformed answer is a *SyntaxError (one cut short
// also matches io.ErrUnexpectedEOF); a well-formed one with a value of the
// wrong kind is a *TypeError, reported only once the whole answer proved
// well formed, as encoding/json reports it.
func Decode(data []byte) (Zone, error) {
	var z Zone
	if err := json.UnmarshalOf(data, &z); err != nil {
		return Zone{}, decodeError(data, err)
	}
	return z, nil
}

// endOfInput is the message of the syntax error of JSON cut short, as
// goccy/go-json and encoding/json word it.
const endOfInput = "unexpected end of JSON input"

// decodeError turns goccy/go-json's errors into this package's, which do
// not tie callers to the decoder.
func decodeError(data []byte, err error) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &se):
		// The offset alone cannot tell: an offending last byte has the
		// input's length as its offset too.
		cut := se.Error() == endOfInput && se.Offset >= int64(len(data))
		return &SyntaxError{Offset: int(se.Offset), msg: se.Error(), cut: cut}
	case errors.As(err, &te):
		return &TypeError{Field: te.Field, Offset: int(te.Offset), value: te.Value}
	default:
		return fmt.Errorf("zone JSON: %w", err)
	}
}
