package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group of the two object kinds. A real operator
// generates its types with controller-gen; these are written by hand, with
// just what controller-runtime needs (TypeMeta, ObjectMeta, DeepCopyObject),
// so that the example stays small.
var GroupVersion = schema.GroupVersion{Group: "dns.example.com", Version: "v1alpha1"}

// AddToScheme registers the kinds, for a manager's scheme or a fake client's.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &DNSRecordSet{}, &DNSRecordSetList{}, &DNSZone{}, &DNSZoneList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// DNSRecordSet asks for one RRset: one name and type in one zone. Several
// objects may ask for the same RRset; the oldest owns it.
type DNSRecordSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DNSRecordSetSpec `json:"spec"`
	Status Status           `json:"status,omitempty"`
}

// DNSRecordSetSpec is the RRset as the user spells it: names relative or
// absolute, in any case, contents as PowerDNS or as people write them. The
// library canonicalises it; the controller does not validate it first.
// Zone, Name and Type are immutable, as the CRD would enforce (a CEL rule
// self == oldSelf): an object whose key changed would leave its old RRset
// behind.
type DNSRecordSetSpec struct {
	// Zone is the DNS name of the zone, e.g. "example.com".
	Zone string `json:"zone"`
	// Name is the owner name: "@", "www", "www.example.com."...
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	TTL     uint32   `json:"ttl"`
	Records []string `json:"records"`
}

// DNSZone asks for a zone on the PowerDNS server.
type DNSZone struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DNSZoneSpec `json:"spec"`
	Status Status      `json:"status,omitempty"`
}

// DNSZoneSpec is what the zone is created with, and kept as: a change of
// its nameservers or account is made to the zone (UpdateZone), by the
// DNSZone that made it only.
type DNSZoneSpec struct {
	// DomainName is the zone's DNS name, e.g. "example.com".
	DomainName  string   `json:"domainName"`
	Kind        string   `json:"kind,omitempty"`
	Nameservers []string `json:"nameservers,omitempty"`
	// Account is PowerDNS's account of the zone.
	Account string `json:"account,omitempty"`
}

// Status is the status of both kinds: the Programmed condition.
type Status struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// DNSRecordSetList is a list of DNSRecordSets, for List and the cache.
type DNSRecordSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DNSRecordSet `json:"items"`
}

// DNSZoneList is a list of DNSZones.
type DNSZoneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DNSZone `json:"items"`
}

// Ref is the object's reference, namespace/name: the owner the library
// records next to the writer.
func (o *DNSRecordSet) Ref() string { return o.Namespace + "/" + o.Name }

// Ref is the object's reference, namespace/name: the owner the library
// records as the maker of a zone the object creates.
func (o *DNSZone) Ref() string { return o.Namespace + "/" + o.Name }
