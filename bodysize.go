package reconcile

import (
	"strconv"
	"unicode/utf8"

	"github.com/joeig/go-powerdns/v3"
)

// patchEntrySize is the number of bytes rr takes when go-powerdns encodes it
// in a PATCH body, computed without encoding it: sizing every entry of a
// 100,000-RRset zone by marshalling it would cost as much as the encoding
// go-powerdns does anyway. A test holds it equal to encoding/json's output.
func patchEntrySize(rr powerdns.RRset) int {
	var o object
	if rr.Name != nil {
		o.field("name", jsonStringLen(*rr.Name))
	}
	if rr.Type != nil {
		o.field("type", jsonStringLen(string(*rr.Type)))
	}
	if rr.TTL != nil {
		o.field("ttl", len(strconv.FormatUint(uint64(*rr.TTL), 10)))
	}
	if rr.ChangeType != nil {
		o.field("changetype", jsonStringLen(string(*rr.ChangeType)))
	}
	if rr.Records == nil {
		o.field("records", len("null"))
	} else {
		o.field("records", arraySize(rr.Records, recordSize))
	}
	if len(rr.Comments) > 0 {
		o.field("comments", arraySize(rr.Comments, commentSize))
	}
	return o.size()
}

func arraySize[T any](items []T, size func(T) int) int {
	n := len(`[]`)
	for i, it := range items {
		if i > 0 {
			n++
		}
		n += size(it)
	}
	return n
}

func recordSize(r powerdns.Record) int {
	var o object
	if r.Content != nil {
		o.field("content", jsonStringLen(*r.Content))
	}
	if r.Disabled != nil {
		o.field("disabled", boolLen(*r.Disabled))
	}
	if r.SetPTR != nil {
		o.field("set-ptr", boolLen(*r.SetPTR))
	}
	return o.size()
}

func commentSize(c powerdns.Comment) int {
	var o object
	if c.Content != nil {
		o.field("content", jsonStringLen(*c.Content))
	}
	if c.Account != nil {
		o.field("account", jsonStringLen(*c.Account))
	}
	if c.ModifiedAt != nil {
		o.field("modified_at", len(strconv.FormatUint(*c.ModifiedAt, 10)))
	}
	return o.size()
}

// object sizes a JSON object field by field.
type object struct{ n, fields int }

func (o *object) field(name string, valueLen int) {
	if o.fields > 0 {
		o.n++
	}
	o.fields++
	o.n += len(`"`) + len(name) + len(`":`) + valueLen
}

func (o *object) size() int { return len(`{}`) + o.n }

func boolLen(b bool) int {
	if b {
		return len("true")
	}
	return len("false")
}

// jsonStringLen is the length of s encoded as a JSON string by
// encoding/json, which escapes HTML characters, control characters, U+2028,
// U+2029 and invalid UTF-8.
func jsonStringLen(s string) int {
	n := 2 // quotes
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6 // \u00XX
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
