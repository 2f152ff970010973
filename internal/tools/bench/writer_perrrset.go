package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/internal/claimrec"
)

// PerRRsetWriter writes the way a per-object controller does without the
// library: each object it reconciles is one RRset, read with a filtered
// GET (?rrset_name=…&rrset_type=…, through go-powerdns's Records.Get) to
// see whether it is already right and whose it is, then written or
// deleted with one PATCH of its own when it is not. Objects are reconciled
// one after another, as controller-runtime does with its default of one
// concurrent reconcile. Without reads (PerRRsetWrites), every object's
// PATCH is sent blind, as dns-operator sends it. Ownership is recorded as
// the library records it on the server: the comments, in the PATCH; or,
// where the library keeps ownership in zone metadata, a read of the zone's
// metadata with every object (go-powerdns's Metadata.List: whose it is
// lives there), a claim record posted before the PATCH that creates an
// RRset and a release record after the one that deletes it (blind writes
// record no claims: they read nothing).
type PerRRsetWriter struct {
	id      WriterID
	client  *powerdns.Client
	counter *Counter
	owner   []powerdns.Comment // the ownership comments, none outside the comments store
	meta    bool               // ownership lives in zone metadata
	posted  int                // metadata records posted in this run, to name the next
}

var _ Writer = (*PerRRsetWriter)(nil)

// NewPerRRsetWriter returns a PerRRsetWriter for the server at url that
// records ownership own; id is PerRRset or PerRRsetWrites.
func NewPerRRsetWriter(id WriterID, url, apiKey string, base http.RoundTripper, own Ownership) *PerRRsetWriter {
	counter := NewCounter(base)
	client := powerdns.New(url, "localhost", powerdns.WithAPIKey(apiKey),
		powerdns.WithHTTPClient(&http.Client{Transport: counter}))
	return &PerRRsetWriter{id: id, client: client, counter: counter, owner: own.comments(),
		meta: own.Store == StoreMetadata && id == PerRRset}
}

// ID implements Writer.
func (w *PerRRsetWriter) ID() WriterID { return w.id }

// Counter implements Writer.
func (w *PerRRsetWriter) Counter() *Counter { return w.counter }

type object struct {
	spec  Spec
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
			spec:  o.Spec,
			name:  o.Spec.FQDN(),
			typ:   powerdns.RRType(o.Spec.Type),
			entry: ChangeEntry(o, w.owner),
			del:   o.Delete,
			want:  describe(o.Spec.TTL, o.Spec.Records, w.owner),
		}
	}
	return func(ctx context.Context) error {
		w.posted = 0
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
	if w.meta {
		if _, err := w.client.Metadata.List(ctx, Zone); err != nil {
			return fmt.Errorf("read the metadata of %s: %w", Zone, err)
		}
	}
	live, found := find(answer, o.name, o.typ)
	if o.del {
		if !found || !w.owns(live) {
			return nil
		}
		if err := w.write(ctx, o); err != nil {
			return err
		}
		// The claim on a deleted RRset is the seed's: the start state's
		// claim record holds every claim.
		return w.record(ctx, claimrec.ReleasePrefix, ReleaseValues([]Spec{o.spec}, SeedClaimKind))
	}
	if found && describeLive(live) == o.want {
		return nil
	}
	if !found {
		if err := w.record(ctx, claimrec.ClaimPrefix, ClaimValues([]Spec{o.spec}, time.Now().UnixNano())); err != nil {
			return err
		}
	}
	return w.write(ctx, o)
}

// record posts a metadata record of prefix, a kind of its own, where
// ownership lives in metadata.
func (w *PerRRsetWriter) record(ctx context.Context, prefix string, values []string) error {
	if !w.meta {
		return nil
	}
	w.posted++
	kind := powerdns.MetadataKind(fmt.Sprintf("%sBENCHOBJ-%d", prefix, w.posted))
	if _, err := w.client.Metadata.Create(ctx, Zone, kind, values); err != nil {
		return fmt.Errorf("post %s: %w", kind, err)
	}
	return nil
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

// owns reports whether rr carries the writer's ownership comments; where
// ownership lives in metadata the claims read are taken as the writer's,
// as the start state's are.
func (w *PerRRsetWriter) owns(rr powerdns.RRset) bool {
	return w.meta || describe(0, nil, rr.Comments) == describe(0, nil, w.owner)
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
