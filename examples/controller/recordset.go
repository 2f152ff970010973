package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	// The library's root package is named reconcile too, and exports
	// Reconciler and Result as controller-runtime's pkg/reconcile does:
	// import it under another name, and keep "reconcile" for
	// controller-runtime, as generated controllers do.
	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// recordSetFinalizer keeps a DNSRecordSet until its RRset is removed from
// PowerDNS, or handed to another object asking for it.
const recordSetFinalizer = "dns.example.com/powerdns-rrset"

// rrsetKeyField indexes DNSRecordSets by the RRset they ask for, spelled
// canonically, so that objects spelling one name "www", "WWW.example.com"
// and "www.example.com." find each other.
const rrsetKeyField = "spec.rrsetKey"

// RecordSetReconciler programs one DNSRecordSet at a time into PowerDNS,
// through the library's per-object calls: Apply on create and update,
// Remove from the finalizer. Several objects may ask for one RRset; the
// oldest owns it, and the controller, not the library, decides which that
// is: all of them write as the same writer, so to the library a change of
// object is a handover, never a conflict.
type RecordSetReconciler struct {
	client client.Client
	pdns   *pdnsreconcile.Reconciler
	events record.EventRecorder
	turns  rrsetTurns
}

// Workers is how many objects the controller reconciles at once. Objects
// asking for one RRset take turns (rrsetTurns); an Apply with nothing to
// send does not wait for another object's write to the zone.
const Workers = 8

var _ reconcile.Reconciler = (*RecordSetReconciler)(nil)

// NewRecordSetReconciler returns a RecordSetReconciler writing through
// pdns; events gets an event for each handover.
func NewRecordSetReconciler(c client.Client, pdns *pdnsreconcile.Reconciler, events record.EventRecorder) *RecordSetReconciler {
	return &RecordSetReconciler{client: c, pdns: pdns, events: events}
}

// SetupWithManager registers the controller and the index it looks up
// other objects asking for an RRset with.
func (r *RecordSetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &DNSRecordSet{}, rrsetKeyField, indexRRsetKey); err != nil {
		return fmt.Errorf("index DNSRecordSets by RRset: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&DNSRecordSet{}).
		// A change or deletion of one object wakes the others asking for
		// its RRset: when the owner goes, the next oldest takes over.
		Watches(&DNSRecordSet{}, handler.EnqueueRequestsFromMapFunc(r.otherClaimants)).
		// Several objects at once; those asking for one RRset take turns
		// in Reconcile.
		WithOptions(controller.Options{MaxConcurrentReconciles: Workers}).
		Complete(r)
}

// Reconcile makes PowerDNS hold the object's RRset, or tells why not.
func (r *RecordSetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var obj DNSRecordSet
	if err := r.client.Get(ctx, req.NamespacedName, &obj); err != nil {
		// Errors of the Kubernetes API do go back to controller-runtime:
		// its rate limiter is made for them. PowerDNS's never do (below).
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	// Choosing the oldest object asking for the RRset and writing as it
	// must not interleave with another such object's reconcile. An object
	// whose zone or name cannot be spelled is never written, and needs no
	// turn.
	if key := indexRRsetKey(&obj); len(key) == 1 {
		release, err := r.turns.take(ctx, key[0])
		if err != nil {
			return reconcile.Result{}, err
		}
		defer release()
	}
	if !obj.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &obj)
	}
	if controllerutil.AddFinalizer(&obj, recordSetFinalizer) {
		if err := r.client.Update(ctx, &obj); err != nil {
			return reconcile.Result{}, err
		}
	}

	owner, err := r.owner(ctx, &obj)
	if err != nil {
		return reconcile.Result{}, err
	}
	if owner != obj.Ref() {
		// An older object owns the RRset: nothing is sent. No requeue
		// either: the owner's change or deletion wakes this object.
		_, key, _ := rrsetKey(&obj) // spelled, or obj would be alone
		cond := pdnsreconcile.Condition{
			Reason:  pdnsreconcile.ReasonNotOwner,
			Message: fmt.Sprintf("%s %s is owned by %s, the oldest DNSRecordSet asking for it", key.Name, key.Type, owner),
		}
		return reconcile.Result{}, publish(ctx, r.client, &obj, &obj.Status.Conditions, cond)
	}

	// The spec goes to Apply as written: the library canonicalises names
	// and contents, and bad data comes back as an *InputError, which
	// ConditionFor reports as InvalidInput.
	rr := rrset.RRset{Name: obj.Spec.Name, Type: obj.Spec.Type, TTL: obj.Spec.TTL, Records: obj.Spec.Records}
	res, err := r.pdns.Apply(ctx, obj.Spec.Zone, rr, pdnsreconcile.WithOwner(obj.Ref()))
	for _, h := range res.Handovers {
		r.events.Event(&obj, corev1.EventTypeNormal, "HandedOver", h.String())
	}
	cond := pdnsreconcile.ConditionFor(res, err)
	if err != nil {
		log.FromContext(ctx).Error(err, "apply RRset", "zone", obj.Spec.Zone, "reason", cond.Reason)
	}
	if err := publish(ctx, r.client, &obj, &obj.Status.Conditions, cond); err != nil {
		return reconcile.Result{}, err
	}
	// The error is not handed to controller-runtime: res.RequeueAfter
	// already says when trying again can help — the refusal interval (10
	// minutes) after a conflict or a refusal, growing waits after
	// transient failures, 0 for bad input (editing the object requeues
	// it), the jittered resync when in sync. An error would put the object
	// on the rate-limited queue as well, which ignores RequeueAfter,
	// retries a conflict within milliseconds and counts every attempt as a
	// reconcile error: the hot loop and the alert this library exists to
	// prevent. The condition carries the error to the user.
	return reconcile.Result{RequeueAfter: res.RequeueAfter}, nil
}

// finalize removes the RRset from PowerDNS when no other object asks for
// it, then releases the object.
func (r *RecordSetReconciler) finalize(ctx context.Context, obj *DNSRecordSet) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(obj, recordSetFinalizer) {
		return reconcile.Result{}, nil
	}
	// A spec whose zone or name cannot be spelled was never written.
	if zone, key, err := rrsetKey(obj); err == nil {
		owner, err := r.owner(ctx, obj)
		if err != nil {
			return reconcile.Result{}, err
		}
		// With another object asking for the RRset it stays: the oldest
		// of them takes it over when it is reconciled (Result.Handovers),
		// so the name never goes NXDOMAIN in between. Without one, it
		// goes.
		// An apex SOA or NS (the zone's "soa" and "ns" objects) is let
		// go, not removed: a zone keeps its SOA and NS as long as it
		// exists (the library may refuse their Remove), and they go with
		// the zone when its DNSZone deletes it, its maker whoever holds
		// them.
		if owner == "" && !apexOfZone(zone, key) {
			res, err := r.pdns.Remove(ctx, zone, key)
			cond := pdnsreconcile.ConditionFor(res, err)
			switch cond.Reason {
			case pdnsreconcile.ReasonProgrammed, // removed, or already absent
				pdnsreconcile.ReasonNotOwner,     // another writer's, or nobody's: not ours to delete
				pdnsreconcile.ReasonInvalidInput, // cannot have been written
				pdnsreconcile.ReasonZoneNotFound: // went with its zone
			default:
				// Still there: keep the object, and come back when
				// the library says trying again can help.
				if err != nil {
					log.FromContext(ctx).Error(err, "remove RRset", "zone", zone, "name", key.Name, "type", key.Type)
				}
				return reconcile.Result{RequeueAfter: res.RequeueAfter}, publish(ctx, r.client, obj, &obj.Status.Conditions, cond)
			}
		}
	}
	controllerutil.RemoveFinalizer(obj, recordSetFinalizer)
	return reconcile.Result{}, r.client.Update(ctx, obj)
}

// owner returns the reference of the oldest object that asks for obj's
// RRset and is not being deleted, obj included unless it is being deleted:
// "" when there is none. Ties in age go to the first reference in
// lexical order, so that every reconcile picks the same one.
func (r *RecordSetReconciler) owner(ctx context.Context, obj *DNSRecordSet) (string, error) {
	claimants, err := r.claimants(ctx, obj)
	if err != nil {
		return "", err
	}
	var live []*DNSRecordSet
	for i := range claimants {
		if claimants[i].DeletionTimestamp.IsZero() {
			live = append(live, &claimants[i])
		}
	}
	if len(live) == 0 {
		return "", nil
	}
	oldest := slices.MinFunc(live, func(a, b *DNSRecordSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Ref(), b.Ref())
	})
	return oldest.Ref(), nil
}

// claimants lists the objects asking for obj's RRset, obj included (as
// read now: the cache may not list an object just created).
func (r *RecordSetReconciler) claimants(ctx context.Context, obj *DNSRecordSet) ([]DNSRecordSet, error) {
	values := indexRRsetKey(obj)
	if len(values) == 0 {
		return []DNSRecordSet{*obj}, nil
	}
	var list DNSRecordSetList
	if err := r.client.List(ctx, &list, client.MatchingFields{rrsetKeyField: values[0]}); err != nil {
		return nil, fmt.Errorf("list DNSRecordSets of %s: %w", values[0], err)
	}
	out := []DNSRecordSet{*obj}
	for _, o := range list.Items {
		if o.Ref() != obj.Ref() {
			out = append(out, o)
		}
	}
	return out, nil
}

// otherClaimants maps an object to the other objects asking for its RRset,
// for the watch that wakes them when it changes or goes.
func (r *RecordSetReconciler) otherClaimants(ctx context.Context, o client.Object) []reconcile.Request {
	obj, ok := o.(*DNSRecordSet)
	if !ok {
		return nil
	}
	claimants, err := r.claimants(ctx, obj)
	if err != nil {
		log.FromContext(ctx).Error(err, "find the other objects of an RRset", "object", obj.Ref())
		return nil
	}
	var out []reconcile.Request
	for _, c := range claimants[1:] {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
	}
	return out
}

// rrsetKey spells the object's zone and key canonically.
func rrsetKey(o *DNSRecordSet) (string, rrset.Key, error) {
	zone, err := rrset.CanonicalZone(o.Spec.Zone)
	if err != nil {
		return "", rrset.Key{}, err
	}
	name, err := rrset.CanonicalName(zone, o.Spec.Name)
	if err != nil {
		return "", rrset.Key{}, err
	}
	return zone, rrset.Key{Name: name, Type: strings.ToUpper(strings.TrimSpace(o.Spec.Type))}, nil
}

// indexRRsetKey is the index function of rrsetKeyField. An object whose
// zone or name cannot be spelled is not indexed: Apply reports it as
// InvalidInput.
func indexRRsetKey(o client.Object) []string {
	obj, ok := o.(*DNSRecordSet)
	if !ok {
		return nil
	}
	zone, key, err := rrsetKey(obj)
	if err != nil {
		return nil
	}
	return []string{zone + " " + key.Name + " " + key.Type}
}

// apexOfZone reports whether key is the SOA or the NS at the apex of zone.
func apexOfZone(zone string, key rrset.Key) bool {
	return key.Name == zone && (key.Type == "SOA" || key.Type == "NS")
}
