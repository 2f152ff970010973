package bench

import (
	"context"
	"fmt"
	"net/http"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// ApplyWriter is a per-object controller built on the library: for each
// object it reconciles, Reconciler.Apply of its RRset, or Reconciler.Remove
// of its key for a deleted object, one after another, as controller-runtime
// does with its default of one concurrent reconcile. It records no object
// owner (WithOwner), so that it leaves the same zone as every other writer.
type ApplyWriter struct {
	rec     *reconcile.Reconciler
	counter *Counter
}

var _ Writer = (*ApplyWriter)(nil)

// NewApplyWriter returns an ApplyWriter for the server at url.
func NewApplyWriter(url, apiKey string, base http.RoundTripper, maxPatchBytes int) (*ApplyWriter, error) {
	counter := NewCounter(base)
	rec, err := newReconciler(url, apiKey, &http.Client{Transport: counter}, maxPatchBytes, reconcile.OwnershipAuto)
	if err != nil {
		return nil, err
	}
	return &ApplyWriter{rec: rec, counter: counter}, nil
}

// ID implements Writer.
func (w *ApplyWriter) ID() WriterID { return Apply }

// Counter implements Writer.
func (w *ApplyWriter) Counter() *Counter { return w.counter }

// Prepare implements Writer.
func (w *ApplyWriter) Prepare(_ context.Context, c Case) (func(context.Context) error, error) {
	type object struct {
		rr  rrset.RRset
		key rrset.Key
		del bool
	}
	objects := make([]object, len(c.Objects))
	for i, o := range c.Objects {
		objects[i] = object{rr: desiredOf([]Spec{o.Spec})[0], key: rrset.Key{Name: o.Spec.FQDN(), Type: o.Spec.Type}, del: o.Delete}
	}
	want := len(c.Changes)
	return func(ctx context.Context) error {
		applied := 0
		for _, o := range objects {
			var res reconcile.Result
			var err error
			if o.del {
				res, err = w.rec.Remove(ctx, Zone, o.key)
			} else {
				res, err = w.rec.Apply(ctx, Zone, o.rr)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", o.key.Name, o.key.Type, err)
			}
			if n := len(res.Blocked) + len(res.Refused) + len(res.Deferred) + len(res.Postponed); n > 0 {
				return fmt.Errorf("%s %s: blocked %d, refused %d, deferred %d, postponed %d",
					o.key.Name, o.key.Type, len(res.Blocked), len(res.Refused), len(res.Deferred), len(res.Postponed))
			}
			applied += len(res.Applied)
		}
		if applied != want {
			return fmt.Errorf("the objects' operations applied %d changes, want %d", applied, want)
		}
		return nil
	}, nil
}
