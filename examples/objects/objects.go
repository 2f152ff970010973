package main

import (
	"maps"
	"slices"
	"sort"
)

// RecordSet stands in for a DNSRecordSet object: one RRset of one zone, as
// a controller writes it into the cluster for another controller
// (dns-operator) to program into PowerDNS. Nothing here is Kubernetes: the
// fields are what the checks need.
type RecordSet struct {
	Namespace, Name string
	// Zone is the zone the object's DNSZone reference resolves to.
	Zone string
	// Owner is the owner name as the writer spelled it: relative ("v4.gw")
	// or absolute, with or without the trailing dot, in any case.
	Owner string
	Type  string
	TTL   uint32
	// Contents are the record contents. An object holding its data in
	// structured fields leaves them empty: the conflict rules only need to
	// know that data of its type is there.
	Contents []string
	// ManagedBy is the controller that writes the object (its
	// app.kubernetes.io/managed-by label).
	ManagedBy string
	// Source is the object the record is for (the Gateway), for garbage
	// collection.
	Source string
	// Annotations hold what must survive a restart of the writer.
	Annotations map[string]string
}

// Ref is the object's reference, namespace/name.
func (o *RecordSet) Ref() string { return o.Namespace + "/" + o.Name }

// Cluster stands in for the API server: the objects, and a record of every
// write, so that the story can tell what each step changed.
type Cluster struct {
	objects map[string]*RecordSet
	events  []Event
}

// Event is one write to the cluster.
type Event struct {
	Verb string // "create", "update" or "delete"
	Ref  string
}

// NewCluster returns a cluster holding objects.
func NewCluster(objects ...RecordSet) *Cluster {
	c := &Cluster{objects: make(map[string]*RecordSet)}
	for _, o := range objects {
		c.objects[o.Ref()] = clone(o)
	}
	return c
}

// Get returns a copy of the object at ref.
func (c *Cluster) Get(ref string) (RecordSet, bool) {
	o, ok := c.objects[ref]
	if !ok {
		return RecordSet{}, false
	}
	return *clone(*o), true
}

// List returns copies of every object, by reference.
func (c *Cluster) List() []RecordSet {
	out := make([]RecordSet, 0, len(c.objects))
	for _, ref := range slices.Sorted(maps.Keys(c.objects)) {
		out = append(out, *clone(*c.objects[ref]))
	}
	return out
}

// Apply creates o or, when it differs from what the cluster holds,
// updates it; an identical object is no write.
func (c *Cluster) Apply(o RecordSet) {
	ref := o.Ref()
	old, ok := c.objects[ref]
	switch {
	case !ok:
		c.events = append(c.events, Event{"create", ref})
	case equal(*old, o):
		return
	default:
		c.events = append(c.events, Event{"update", ref})
	}
	c.objects[ref] = clone(o)
}

// Delete deletes the object at ref.
func (c *Cluster) Delete(ref string) {
	if _, ok := c.objects[ref]; ok {
		delete(c.objects, ref)
		c.events = append(c.events, Event{"delete", ref})
	}
}

// Events returns the writes since the last call, and forgets them.
func (c *Cluster) Events() []Event {
	out := c.events
	c.events = nil
	return out
}

func clone(o RecordSet) *RecordSet {
	o.Contents = slices.Clone(o.Contents)
	o.Annotations = maps.Clone(o.Annotations)
	return &o
}

func equal(a, b RecordSet) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name && a.Zone == b.Zone && a.Owner == b.Owner &&
		a.Type == b.Type && a.TTL == b.TTL && slices.Equal(a.Contents, b.Contents) &&
		a.ManagedBy == b.ManagedBy && a.Source == b.Source && maps.Equal(a.Annotations, b.Annotations)
}

// refs returns the references of events of one verb, sorted.
func refs(events []Event, verb string) []string {
	var out []string
	for _, e := range events {
		if e.Verb == verb {
			out = append(out, e.Ref)
		}
	}
	sort.Strings(out)
	return out
}
