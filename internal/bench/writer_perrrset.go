package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/joeig/go-powerdns/v3"
)

// PerRRsetWriter writes the way a per-object controller does without the
// library: each object it reconciles is one RRset, read with a filtered
// GET (?rrset_name=…&rrset_type=…, through go-powerdns's Records.Get) to
// see whether it is already right and whose it is, then written or
// deleted with one PATCH of its own when it is not. Objects are reconciled
// one after another, as controller-runtime does with its default of one
// concurrent reconcile. Without reads (PerRRsetWrites), every object's
// PATCH is sent blind, as dns-operator sends it. Ownership is the
// comments the library writes where it writes comments; where it keeps
// ownership in metadata, this writer records none (a controller without
// the library has no claim records).
type PerRRsetWriter struct {
	id      WriterID
	client  *powerdns.Client
	counter *Counter
	owner   []powerdns.Comment // the ownership comments, none outside the comments store
}

var _ Writer = (*PerRRsetWriter)(nil)

// NewPerRRsetWriter returns a PerRRsetWriter for the server at url that
// writes owner's comments with every RRset; id is PerRRset or
// PerRRsetWrites.
func NewPerRRsetWriter(id WriterID, url, apiKey string, base http.RoundTripper, own Ownership) *PerRRsetWriter {
	owner := own.comments()
	counter := NewCounter(base)
	client := powerdns.New(url, "localhost", powerdns.WithAPIKey(apiKey),
		powerdns.WithHTTPClient(&http.Client{Transport: counter}))
	return &PerRRsetWriter{id: id, client: client, counter: counter, owner: owner}
}

// ID implements Writer.
func (w *PerRRsetWriter) ID() WriterID { return w.id }

// Counter implements Writer.
func (w *PerRRsetWriter) Counter() *Counter { return w.counter }

type object struct {
	name  string
	typ   powerdns.RRType
	entry powerdns.RRset
	del   bool
	want  string // describe() of the RRset when it is right
}

// Prepare implements Writer.
func (w *PerRRsetWriter) Prepare(_ context.Context, c Case) (func(context.Context) error, error) {
	objects := make([]object, len(c.Objects))
	for i, o := range c.Objects {
		objects[i] = object{
			name:  o.Spec.FQDN(),
			typ:   powerdns.RRType(o.Spec.Type),
			entry: ChangeEntry(o, w.owner),
			del:   o.Delete,
			want:  describe(o.Spec.TTL, o.Spec.Records, w.owner),
		}
	}
	return func(ctx context.Context) error {
		for i := range objects {
			if err := w.reconcile(ctx, &objects[i]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// reconcile is one object's reconcile.
func (w *PerRRsetWriter) reconcile(ctx context.Context, o *object) error {
	if w.id == PerRRsetWrites {
		return w.write(ctx, o)
	}
	answer, err := w.client.Records.Get(ctx, Zone, o.name, &o.typ)
	if err != nil {
		return fmt.Errorf("read %s %s: %w", o.name, o.typ, err)
	}
	live, found := find(answer, o.name, o.typ)
	if o.del {
		if !found || !w.owns(live) {
			return nil
		}
		return w.write(ctx, o)
	}
	if found && describeLive(live) == o.want {
		return nil
	}
	return w.write(ctx, o)
}

// find picks the object's RRset out of a filtered GET's answer. PowerDNS
// 4.7 answers such a GET with the RRset asked for and, besides, an entry
// without records for every other RRset of the zone that has comments.
func find(answer []powerdns.RRset, name string, typ powerdns.RRType) (powerdns.RRset, bool) {
	for _, rr := range answer {
		if rr.Name != nil && strings.EqualFold(*rr.Name, name) && rr.Type != nil && *rr.Type == typ && len(rr.Records) > 0 {
			return rr, true
		}
	}
	return powerdns.RRset{}, false
}

// write sends the object's one PATCH: its RRset, or its delete.
func (w *PerRRsetWriter) write(ctx context.Context, o *object) error {
	if o.del {
		if err := w.client.Records.Delete(ctx, Zone, o.name, o.typ); err != nil {
			return fmt.Errorf("delete %s %s: %w", o.name, o.typ, err)
		}
		return nil
	}
	if err := w.client.Records.Patch(ctx, Zone, &powerdns.RRsets{Sets: []powerdns.RRset{o.entry}}); err != nil {
		return fmt.Errorf("write %s %s: %w", o.name, o.typ, err)
	}
	return nil
}

// owns reports whether rr carries the writer's ownership comments.
func (w *PerRRsetWriter) owns(rr powerdns.RRset) bool {
	return describe(0, nil, rr.Comments) == describe(0, nil, w.owner)
}

func describeLive(rr powerdns.RRset) string {
	var ttl uint32
	if rr.TTL != nil {
		ttl = *rr.TTL
	}
	records := make([]string, 0, len(rr.Records))
	for _, r := range rr.Records {
		if r.Content != nil && (r.Disabled == nil || !*r.Disabled) {
			records = append(records, *r.Content)
		}
	}
	return describe(ttl, records, rr.Comments)
}
