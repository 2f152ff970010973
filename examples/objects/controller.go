package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// Gateway stands in for the object a controller writes DNS records for: a
// CNAME at each of its hostnames, to its canonical name.
type Gateway struct {
	Namespace, Name string
	Zone            string
	// Hostnames are owner names as the gateway spells them: absolute,
	// with or without the final dot.
	Hostnames []string
	// Target is what the CNAMEs point to.
	Target string
}

// Ref is the gateway's reference, namespace/name.
func (g Gateway) Ref() string { return g.Namespace + "/" + g.Name }

// The reasons of a hostname's status, as conditions would carry them.
const (
	Programmed   = "Programmed"
	Conflict     = "Conflict"
	InvalidInput = "InvalidInput"
	NoAuthority  = "NoAuthority"
)

// Status is what the controller reports for one hostname.
type Status struct {
	Hostname string
	Reason   string
	Message  string
}

// Result is what one reconcile of a gateway comes to: its hostnames'
// statuses, and when to reconcile it again, as controller-runtime's
// ctrl.Result{RequeueAfter: res.RequeueAfter} would carry it.
type Result struct {
	Statuses []Status
	// RequeueAfter is when the next check of an object awaiting collection
	// counts (backoff.Gate's NextIn, on the Gate's own clock): sooner, the
	// check would change nothing. 0 when no object awaits collection.
	RequeueAfter time.Duration
}

// Controller writes one RecordSet object per hostname of a gateway and
// collects the objects of hostnames it no longer wants. It never talks to
// PowerDNS; it uses the library's pure packages:
//
//   - rrset, for one canonical key per owner name, from which the object's
//     name and spelling derive, so that respelling a hostname is no new
//     object;
//   - conflict.Against, to refuse an object whose RRset could not be
//     written beside what the other objects claim, each object being its
//     own writer (its reference), so that every claimant is named;
//   - backoff.Gate, so that an object is collected only once its hostname
//     has been missing on several checks over minutes, with the streak
//     kept in the object so that a restart does not start it again
//     (Gate.ObserveStored), and the gateway requeued when the next check
//     counts (Observation.NextIn).
//
// With Naive set it behaves as such a controller did before: object names
// from the hostname as spelled, conflicts looked for only among objects of
// the same owner and type under another writer, and collection on the first
// check that misses a hostname. The story runs both.
type Controller struct {
	Writer  string // the controller's managed-by value
	Cluster *Cluster
	Gate    *backoff.Gate
	Naive   bool
}

// Reconcile makes the cluster hold the gateway's objects. authority is
// whether the zone's delegation check passed: without it no hostname is
// wanted, as in the controller this replays.
func (c *Controller) Reconcile(gw Gateway, authority bool) Result {
	var statuses []Status
	wanted := make(map[string]bool)
	if authority {
		for _, host := range gw.Hostnames {
			st, ref := c.ensure(gw, host)
			statuses = append(statuses, st)
			if ref != "" {
				wanted[ref] = true
			}
		}
	} else {
		for _, host := range gw.Hostnames {
			statuses = append(statuses, Status{host, NoAuthority, "the zone's nameservers are not ours"})
		}
	}
	return Result{Statuses: statuses, RequeueAfter: c.collect(gw, wanted)}
}

// ensure writes the object for one hostname, unless it would conflict, and
// returns its status and its reference ("" when not written).
func (c *Controller) ensure(gw Gateway, host string) (Status, string) {
	if c.Naive {
		return c.ensureNaive(gw, host)
	}
	// A gateway spells absolute names, with or without the final dot:
	// Hostname reads "api.example.org" in zone example.com. as outside it,
	// where a zone file's reading would make it api.example.org.example.com.
	name, err := rrset.Hostname(gw.Zone, host)
	if err != nil {
		return Status{host, InvalidInput, err.Error()}, ""
	}
	want, err := rrset.New(gw.Zone, name, "CNAME", 300, gw.Target)
	if err != nil {
		return Status{host, InvalidInput, err.Error()}, ""
	}
	obj := RecordSet{
		Namespace: gw.Namespace,
		Name:      objectName(gw, want.Key()),
		Zone:      gw.Zone,
		Type:      want.Type,
		TTL:       want.TTL,
		Contents:  want.Records,
		ManagedBy: c.Writer,
		Source:    gw.Ref(),
	}
	// One spelling per name: the relative form of the canonical name.
	if obj.Owner, err = rrset.RelativeName(gw.Zone, want.Name); err != nil {
		return Status{host, InvalidInput, err.Error()}, ""
	}
	if conflicts := conflict.Against(want, obj.Ref(), c.claims(gw.Zone), conflict.WithZone(gw.Zone)); len(conflicts) > 0 {
		msgs := make([]string, len(conflicts))
		for i, x := range conflicts {
			msgs[i] = x.String()
		}
		return Status{host, Conflict, strings.Join(msgs, "; ")}, ""
	}
	if old, ok := c.Cluster.Get(obj.Ref()); ok {
		obj.Annotations = old.Annotations
	}
	c.Cluster.Apply(obj)
	return Status{host, Programmed, "CNAME " + obj.Owner + " -> " + gw.Target}, obj.Ref()
}

// claims returns what every object in zone claims, each object its own
// writer. Names, types and contents go as the objects spell them: Against
// canonicalises them.
func (c *Controller) claims(zone string) []rrset.RRset {
	z, _ := rrset.CanonicalZone(zone)
	var out []rrset.RRset
	for _, o := range c.Cluster.List() {
		if oz, err := rrset.CanonicalZone(o.Zone); err != nil || oz != z {
			continue
		}
		out = append(out, rrset.RRset{Name: o.Owner, Type: o.Type, TTL: o.TTL, Records: o.Contents, ManagedBy: o.Ref()})
	}
	return out
}

// objectName derives an object's name from its canonical key, so that every
// spelling of a hostname names one object.
func objectName(gw Gateway, k rrset.Key) string {
	sum := sha256.Sum256([]byte(k.String()))
	return gw.Name + "-" + strings.ToLower(k.Type) + "-" + hex.EncodeToString(sum[:5])
}

// collect deletes the gateway's objects that are not wanted, once the Gate
// says they have been missing long enough, and returns when the next check
// of one still waiting counts (0 for none).
func (c *Controller) collect(gw Gateway, wanted map[string]bool) (requeueAfter time.Duration) {
	for _, o := range c.Cluster.List() {
		if o.ManagedBy != c.Writer || o.Source != gw.Ref() {
			continue
		}
		ref := o.Ref()
		if c.Naive {
			if !wanted[ref] {
				c.Cluster.Delete(ref)
			}
			continue
		}
		collect, wait := observeMissing(c.Gate, &o, !wanted[ref])
		if collect {
			c.Cluster.Delete(ref)
			continue
		}
		c.Cluster.Apply(o)
		if wait > 0 && (requeueAfter == 0 || wait < requeueAfter) {
			requeueAfter = wait
		}
	}
	return requeueAfter
}

// ensureNaive is ensure as it was before: the object named after the
// hostname as spelled, and a conflict only with an object of the same
// spelling and type under another writer.
func (c *Controller) ensureNaive(gw Gateway, host string) (Status, string) {
	obj := RecordSet{
		Namespace: gw.Namespace,
		Name:      gw.Name + "-" + strings.NewReplacer(".", "-", "@", "apex").Replace(strings.ToLower(strings.TrimSuffix(host, "."))),
		Zone:      gw.Zone,
		Owner:     host,
		Type:      "CNAME",
		TTL:       300,
		Contents:  []string{gw.Target},
		ManagedBy: c.Writer,
		Source:    gw.Ref(),
	}
	for _, o := range c.Cluster.List() {
		if o.Owner == host && o.Type == obj.Type && o.ManagedBy != c.Writer {
			return Status{host, Conflict, "held by " + o.Ref()}, ""
		}
	}
	c.Cluster.Apply(obj)
	return Status{host, Programmed, "CNAME " + host + " -> " + gw.Target}, obj.Ref()
}
