package reconcile

import (
	"strconv"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/jsonlen"
)

// patchEntrySize is the number of bytes rr takes when go-powerdns encodes it
// in a PATCH body, computed without encoding it: sizing every entry of a
// 100,000-RRset zone by marshalling it would cost as much as the encoding
// go-powerdns does anyway. A test holds it equal to encoding/json's output.
func patchEntrySize(rr powerdns.RRset) int {
	var o object
	if rr.Name != nil {
		o.field("name", jsonlen.String(*rr.Name))
	}
	if rr.Type != nil {
		o.field("type", jsonlen.String(string(*rr.Type)))
	}
	if rr.TTL != nil {
		o.field("ttl", len(strconv.FormatUint(uint64(*rr.TTL), 10)))
	}
	if rr.ChangeType != nil {
		o.field("changetype", jsonlen.String(string(*rr.ChangeType)))
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
		o.field("content", jsonlen.String(*r.Content))
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
		o.field("content", jsonlen.String(*c.Content))
	}
	if c.Account != nil {
		o.field("account", jsonlen.String(*c.Account))
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
