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

// ZoneReconciler creates a DNSZone's zone with EnsureZone, keeps it as the
// spec says (UpdateZone), and deletes it with DeleteZone from the
// finalizer. The library records the DNSZone that created the zone as its
// maker: only that object changes or deletes it, whoever holds its apex
// SOA and NS (the zone's "soa" and "ns" DNSRecordSets, see
// RecordSetReconciler), and a second DNSZone of the same name, in another
// namespace, changes nothing and deletes nothing.
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
	// The object is the maker of a zone it creates: another DNSZone
	// naming the same zone (in another namespace) finds it another's
	// (NotOwner), changes nothing, and its deletion leaves the zone to
	// this one.
	zr, err := r.pdns.EnsureZone(ctx, z.Spec.DomainName,
		pdnsreconcile.ZoneSpec{Kind: z.Spec.Kind, Nameservers: z.Spec.Nameservers, Account: z.Spec.Account},
		pdnsreconcile.WithOwner(z.Ref()), pdnsreconcile.UpdateZone())
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
// or another DNSZone made it, then releases the object. The zone's own
// DNSRecordSets (its "soa" and "ns" among them) do not hold it back: they
// are this writer's, and go with the zone.
func (r *ZoneReconciler) finalize(ctx context.Context, z *DNSZone, key string) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(z, zoneFinalizer) {
		return reconcile.Result{}, nil
	}
	err := r.pdns.DeleteZone(ctx, z.Spec.DomainName, pdnsreconcile.WithOwner(z.Ref()))
	var inUse *pdnsreconcile.ZoneInUseError
	cond := pdnsreconcile.ConditionFor(pdnsreconcile.Result{}, err)
	switch {
	case err == nil, cond.Reason == pdnsreconcile.ReasonInvalidInput: // deleted, or never created
	case errors.As(err, &inUse) && inUse.NotOwner():
		// Another DNSZone made the zone, or no object did (made by
		// hand): it is not this object's to delete, and this object
		// goes without it.
		log.FromContext(ctx).Info("zone left to the object that made it", "zone", z.Spec.DomainName, "madeBy", inUse.MadeBy)
	case errors.As(err, &inUse):
		// Other writers' records stay, and so does the zone
		// (ZoneInUse): their removal wakes nothing here, so come back
		// after the refusal interval.
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

// zoneCondition is the Programmed condition of a DNSZone after EnsureZone:
// a zone another object made is NotOwner, whether or not the spec differs
// from it.
func zoneCondition(zr pdnsreconcile.ZoneResult, err error) pdnsreconcile.Condition {
	if err != nil {
		return pdnsreconcile.ConditionFor(pdnsreconcile.Result{Zone: zr.Zone}, err)
	}
	if !zr.Mine {
		return pdnsreconcile.Condition{Reason: pdnsreconcile.ReasonNotOwner,
			Message: fmt.Sprintf("zone %s was made by %s, not by this object: it is left as it is", zr.Zone, madeBy(zr))}
	}
	msg := "zone exists"
	if zr.Created {
		msg = "zone created"
	}
	if len(zr.Changed) > 0 {
		changed := make([]string, len(zr.Changed))
		for i, d := range zr.Changed {
			changed[i] = d.Field
		}
		msg += "; changed: " + strings.Join(changed, ", ")
	}
	if len(zr.Differences) > 0 {
		// What UpdateZone does not change (signing, kind), reported.
		diffs := make([]string, len(zr.Differences))
		for i, d := range zr.Differences {
			diffs[i] = d.String()
		}
		msg += fmt.Sprintf("; it differs from the spec, and is left as it is: %s", strings.Join(diffs, "; "))
	}
	return pdnsreconcile.Condition{Programmed: true, Reason: pdnsreconcile.ReasonProgrammed, Message: msg}
}

// madeBy names the maker of a zone in a condition's message.
func madeBy(zr pdnsreconcile.ZoneResult) string {
	switch {
	case zr.MadeByWriter == "":
		return "no object known"
	case zr.MadeBy == "":
		return zr.MadeByWriter
	}
	return zr.MadeBy
}
