package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// What controller-gen would generate: every kind is a runtime.Object, whose
// DeepCopyObject the client and the cache call on every read.

var (
	_ runtime.Object = (*DNSRecordSet)(nil)
	_ runtime.Object = (*DNSRecordSetList)(nil)
	_ runtime.Object = (*DNSZone)(nil)
	_ runtime.Object = (*DNSZoneList)(nil)
)

// DeepCopyInto copies s into out.
func (s *Status) DeepCopyInto(out *Status) {
	*out = *s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies o into out.
func (o *DNSRecordSet) DeepCopyInto(out *DNSRecordSet) {
	*out = *o
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Records = append([]string(nil), o.Spec.Records...)
	o.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of o.
func (o *DNSRecordSet) DeepCopy() *DNSRecordSet {
	if o == nil {
		return nil
	}
	out := new(DNSRecordSet)
	o.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (o *DNSRecordSet) DeepCopyObject() runtime.Object { return o.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *DNSRecordSetList) DeepCopyInto(out *DNSRecordSetList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]DNSRecordSet, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (l *DNSRecordSetList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(DNSRecordSetList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies z into out.
func (z *DNSZone) DeepCopyInto(out *DNSZone) {
	*out = *z
	z.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Nameservers = append([]string(nil), z.Spec.Nameservers...)
	z.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of z.
func (z *DNSZone) DeepCopy() *DNSZone {
	if z == nil {
		return nil
	}
	out := new(DNSZone)
	z.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (z *DNSZone) DeepCopyObject() runtime.Object { return z.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *DNSZoneList) DeepCopyInto(out *DNSZoneList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]DNSZone, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (l *DNSZoneList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(DNSZoneList)
	l.DeepCopyInto(out)
	return out
}
