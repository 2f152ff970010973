package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
)

// zoneFinalizer keeps a DNSZone until its zone is deleted from PowerDNS.
const zoneFinalizer = "dns.example.com/powerdns-zone"

// ReasonZoneInUse is the reason the controller itself gives a DNSZone being
// deleted while other writers still hold RRsets in its zone.
const ReasonZoneInUse pdnsreconcile.ConditionReason = "ZoneInUse"

// ZoneReconciler creates a DNSZone's zone with EnsureZone and deletes it
// with DeleteZone from the finalizer.
type ZoneReconciler struct {
	client client.Client
	pdns   *pdnsreconcile.Reconciler
	// requeue says when to come back after a failure: zone operations
	// return no Result, so the controller keeps the per-object streaks
	// that Apply and Remove keep for record sets.
	requeue *backoff.Requeue
}

var _ reconcile.Reconciler = (*ZoneReconciler)(nil)

// NewZoneReconciler returns a ZoneReconciler writing through pdns.
func NewZoneReconciler(c client.Client, pdns *pdnsreconcile.Reconciler) *ZoneReconciler {
	return &ZoneReconciler{client: c, pdns: pdns, requeue: backoff.NewRequeue()}
}

// SetupWithManager registers the controller.
func (r *ZoneReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&DNSZone{}).Complete(r)
}

// Reconcile makes sure the zone exists, or deletes it when the object goes.
func (r *ZoneReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var z DNSZone
	if err := r.client.Get(ctx, req.NamespacedName, &z); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	key := req.String()
	if !z.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &z, key)
	}
	if controllerutil.AddFinalizer(&z, zoneFinalizer) {
		if err := r.client.Update(ctx, &z); err != nil {
			return reconcile.Result{}, err
		}
	}
	// The object is the owner of the apex of a zone it creates: another
	// DNSZone naming the same zone (in another namespace) finds it
	// existing, and its deletion leaves the zone to this one.
	zr, err := r.pdns.EnsureZone(ctx, z.Spec.DomainName,
		pdnsreconcile.ZoneSpec{Kind: z.Spec.Kind, Nameservers: z.Spec.Nameservers},
		pdnsreconcile.WithOwner(z.Ref()))
	cond := zoneCondition(zr, err)
	// As for record sets, PowerDNS's errors stay out of controller-runtime's
	// rate limiter: the condition carries them, and the requeue waits as
	// long as trying again needs.
	after := r.after(key, cond, err)
	if err != nil {
		log.FromContext(ctx).Error(err, "ensure zone", "zone", z.Spec.DomainName, "reason", cond.Reason)
	}
	return reconcile.Result{RequeueAfter: after}, publish(ctx, r.client, &z, &z.Status.Conditions, cond)
}

// finalize deletes the zone, unless other writers still hold RRsets in it
// or another DNSZone created it, then releases the object.
func (r *ZoneReconciler) finalize(ctx context.Context, z *DNSZone, key string) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(z, zoneFinalizer) {
		return reconcile.Result{}, nil
	}
	err := r.pdns.DeleteZone(ctx, z.Spec.DomainName, pdnsreconcile.WithOwner(z.Ref()))
	var inUse *pdnsreconcile.ZoneInUseError
	cond := pdnsreconcile.ConditionFor(pdnsreconcile.Result{}, err)
	switch {
	case err == nil, cond.Reason == pdnsreconcile.ReasonInvalidInput: // deleted, or never created
	case errors.As(err, &inUse) && inUse.Owner != "":
		// Another DNSZone created the zone (its SOA is recorded for
		// that object): the zone is its to delete, and this object
		// goes without it.
		log.FromContext(ctx).Info("zone left to the object that created it", "zone", z.Spec.DomainName, "owner", inUse.Owner)
	case errors.As(err, &inUse):
		// Other writers' records stay, and so does the zone: their
		// removal wakes nothing here, so come back after the refusal
		// interval.
		cond = pdnsreconcile.Condition{Reason: ReasonZoneInUse, Message: err.Error()}
		return reconcile.Result{RequeueAfter: r.requeue.After(key, err)}, publish(ctx, r.client, z, &z.Status.Conditions, cond)
	default:
		log.FromContext(ctx).Error(err, "delete zone", "zone", z.Spec.DomainName)
		return reconcile.Result{RequeueAfter: r.requeue.After(key, err)}, publish(ctx, r.client, z, &z.Status.Conditions, cond)
	}
	r.requeue.Forget(key)
	controllerutil.RemoveFinalizer(z, zoneFinalizer)
	return reconcile.Result{}, r.client.Update(ctx, z)
}

// after is the requeue after EnsureZone: none once the zone exists, and
// none for a spec that cannot be created (editing it requeues the object).
func (r *ZoneReconciler) after(key string, cond pdnsreconcile.Condition, err error) time.Duration {
	if cond.Reason == pdnsreconcile.ReasonInvalidInput {
		r.requeue.Forget(key)
		return 0
	}
	return r.requeue.After(key, err)
}

// zoneCondition is the Programmed condition of a DNSZone after EnsureZone.
func zoneCondition(zr pdnsreconcile.ZoneResult, err error) pdnsreconcile.Condition {
	if err != nil {
		return pdnsreconcile.ConditionFor(pdnsreconcile.Result{Zone: zr.Zone}, err)
	}
	msg := "zone exists"
	if zr.Created {
		msg = "zone created"
	}
	if len(zr.Differences) > 0 {
		// Reported, never changed: changing a live zone is for an
		// operator to decide.
		diffs := make([]string, len(zr.Differences))
		for i, d := range zr.Differences {
			diffs[i] = d.String()
		}
		msg += fmt.Sprintf("; it differs from the spec, and is left as it is: %s", strings.Join(diffs, "; "))
	}
	return pdnsreconcile.Condition{Programmed: true, Reason: pdnsreconcile.ReasonProgrammed, Message: msg}
}
