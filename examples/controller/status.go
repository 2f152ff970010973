package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pdnsreconcile "github.com/pdnskit/reconcile"
)

// publish records cond as obj's Programmed condition and writes the status
// when the condition changed, so that a steady-state reconcile writes
// nothing to the API server either.
func publish(ctx context.Context, c client.Client, obj client.Object, conds *[]metav1.Condition, cond pdnsreconcile.Condition) error {
	changed := meta.SetStatusCondition(conds, metav1.Condition{
		Type:               pdnsreconcile.ConditionType,
		Status:             metav1.ConditionStatus(cond.Status()),
		Reason:             string(cond.Reason),
		Message:            cond.Message,
		ObservedGeneration: obj.GetGeneration(),
	})
	if !changed {
		return nil
	}
	if err := c.Status().Update(ctx, obj); err != nil {
		return fmt.Errorf("update status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
