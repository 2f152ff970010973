package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/rrset"
)

const (
	zone   = "example.com."
	writer = "gateway-dns"
)

// storyStart is when the story begins, on a fake clock: the Gate's minutes
// pass when the story says so.
var storyStart = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

// Step is what one reconcile did.
type Step struct {
	Title    string
	At       time.Time
	Statuses []Status
	// RequeueAfter is the reconcile's requeue: when the next check of an
	// object awaiting collection counts.
	RequeueAfter time.Duration
	Events       []Event
	// Objects is what the cluster holds afterwards.
	Objects []RecordSet
}

// Check is one promise the story verifies.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Outcome is the whole story.
type Outcome struct {
	Steps  []Step
	Checks []Check
}

// Failed returns the names of the checks that failed.
func (o Outcome) Failed() []string {
	var out []string
	for _, c := range o.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

// replay runs the story with the controller built on the library, or with
// the naive one, and checks it.
func replay(naive bool) Outcome {
	clock := backofftest.NewClock(storyStart)
	cluster := NewCluster(
		// Another path writes the gateway's addresses, as FQDNs...
		RecordSet{Namespace: "infra", Name: "gw-v4", Zone: "example.com", Owner: "v4.gw.example.com.", Type: "A",
			TTL: 60, Contents: []string{"192.0.2.10"}, ManagedBy: "edge-addresses"},
		RecordSet{Namespace: "infra", Name: "gw-v6", Zone: "example.com", Owner: "v6.gw.example.com.", Type: "AAAA",
			TTL: 60, Contents: []string{"2001:db8::10"}, ManagedBy: "edge-addresses"},
		// ...and someone once wrote one by hand, relative, its data in
		// fields the rules do not need.
		RecordSet{Namespace: "infra", Name: "gw-v4-legacy", Zone: "Example.COM.", Owner: "V4.GW", Type: "a"},
	)
	gw := Gateway{
		Namespace: "default", Name: "web", Zone: zone, Target: "gw.example.com.",
		Hostnames: []string{"v4.gw.example.com.", "v6.gw.example.com.", "www.example.com.", "api.example.com."},
	}
	start := func() *Controller {
		return &Controller{Writer: writer, Cluster: cluster, Gate: backoff.NewGate(3, 2*time.Minute, backoff.WithClock(clock)), Naive: naive}
	}
	ctl := start()

	var out Outcome
	step := func(title string, authority bool) {
		res := ctl.Reconcile(gw, authority)
		st := Step{Title: title, At: clock.Now(), Statuses: res.Statuses, RequeueAfter: res.RequeueAfter}
		st.Events = cluster.Events()
		st.Objects = cluster.List()
		out.Steps = append(out.Steps, st)
		// The next reconcile comes when the controller asked for it, or a
		// minute later when it asked for none (a watch event).
		if res.RequeueAfter > 0 {
			clock.Advance(res.RequeueAfter)
		} else {
			clock.Advance(time.Minute)
		}
	}
	step("gateway default/web wants CNAMEs at its four hostnames", true)
	step("a nameserver flap: one check without authority", false)
	step("authority is back", true)
	step("authority lost: first check", false)
	step("authority lost: second check", false)
	ctl = start()
	step("the manager restarted (a new Gate); authority lost: third check", false)
	step("authority is back: the objects are recreated", true)
	gw.Hostnames = []string{"v4.gw.example.com", "V6.GW.example.com", "WWW.Example.COM", "api.example.com"}
	step("the gateway respells its hostnames: no final dot, any case", true)

	out.Checks = check(out.Steps)
	return out
}

// check holds the story to its promises.
func check(steps []Step) []Check {
	at := func(i int) Step { return steps[i] }
	var checks []Check
	add := func(name string, ok bool, format string, args ...any) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}

	// 1. The CNAMEs at v4. and v6. are refused beside the other path's
	// addresses, and the reason names the objects in the way.
	v4, v6 := statusOf(at(0), "v4.gw.example.com."), statusOf(at(0), "v6.gw.example.com.")
	add("cname-blocked-naming-the-other-objects",
		v4.Reason == Conflict && strings.Contains(v4.Message, "infra/gw-v4,") && strings.Contains(v4.Message, "infra/gw-v4-legacy") &&
			v6.Reason == Conflict && strings.Contains(v6.Message, "infra/gw-v6"),
		"v4: %s %q; v6: %s %q", v4.Reason, v4.Message, v6.Reason, v6.Message)

	// 2. No name ever holds a CNAME object beside an object of another
	// type.
	var clashes []string
	for i, st := range steps {
		for _, c := range cnameClashes(st.Objects) {
			clashes = append(clashes, fmt.Sprintf("after step %d: %s", i+1, c))
		}
	}
	add("never-a-cname-beside-other-data", len(clashes) == 0, "%s", orNone(clashes))

	// 3. A flap collects nothing.
	flapDeletes := slices.Concat(refs(at(1).Events, "delete"), refs(at(2).Events, "delete"))
	add("a-flap-collects-nothing", len(flapDeletes) == 0 && len(ours(at(2).Objects)) == 2,
		"deleted during the flap: %s; objects of %s after it: %d", orNone(flapDeletes), writer, len(ours(at(2).Objects)))

	// 4. The streak is kept in the objects.
	var kept []string
	ok := len(ours(at(4).Objects)) == 2
	for _, o := range ours(at(4).Objects) {
		s, stored := storedStreak(&o)
		kept = append(kept, fmt.Sprintf("%s: since %s, %d checks", o.Ref(), s.Since.Format(time.TimeOnly), s.Checks))
		ok = ok && stored && s.Since.Equal(at(3).At) && s.Checks == 2
	}
	add("the-streak-is-kept-in-the-objects", ok, "%s", orNone(kept))

	// 5. A sustained loss collects, on schedule: on the third check, two
	// minutes after the first, though the manager restarted in between.
	early := slices.Concat(refs(at(3).Events, "delete"), refs(at(4).Events, "delete"))
	collected := refs(at(5).Events, "delete")
	add("a-sustained-loss-collects-across-a-restart", len(early) == 0 && len(collected) == 2 && len(ours(at(5).Objects)) == 0,
		"deleted before the third check: %s; on it: %s", orNone(early), orNone(collected))

	// 6. Recreating after the loss brings no CNAME beside A/AAAA back.
	recreated := refs(at(6).Events, "create")
	v4, v6 = statusOf(at(6), "v4.gw.example.com."), statusOf(at(6), "v6.gw.example.com.")
	add("recreate-brings-no-cname-beside-addresses",
		len(recreated) == 2 && v4.Reason == Conflict && v6.Reason == Conflict && len(cnameClashes(at(6).Objects)) == 0,
		"created: %s; v4: %s; v6: %s", orNone(recreated), v4.Reason, v6.Reason)

	// 7. Respelling the hostnames writes nothing new and deletes nothing.
	respelled := at(7)
	dups := duplicates(respelled.Objects)
	add("respelling-writes-nothing",
		len(respelled.Events) == 0 && len(dups) == 0 &&
			slices.Equal(names(ours(at(6).Objects)), names(ours(respelled.Objects))),
		"created: %s; updated: %s; deleted: %s; keys held twice: %s", orNone(refs(respelled.Events, "create")),
		orNone(refs(respelled.Events, "update")), orNone(refs(respelled.Events, "delete")), orNone(dups))
	return checks
}

// statusOf returns the status of the hostname whose canonical name is name.
func statusOf(st Step, name string) Status {
	for _, s := range st.Statuses {
		if c, err := rrset.CanonicalName(zone, s.Hostname); err == nil && c == name {
			return s
		}
	}
	return Status{Hostname: name, Reason: "none"}
}

// canonicalKey is an object's key, as PowerDNS would hold it.
func canonicalKey(o RecordSet) rrset.Key {
	name, err := rrset.CanonicalName(o.Zone, o.Owner)
	if err != nil {
		name = strings.ToLower(o.Owner)
	}
	return rrset.Key{Name: name, Type: strings.ToUpper(o.Type)}
}

// cnameClashes lists the names where a CNAME object sits beside an object
// of another type: what PowerDNS refuses ("Conflicts with pre-existing
// RRset").
func cnameClashes(objects []RecordSet) []string {
	types := make(map[string][]string)
	for _, o := range objects {
		k := canonicalKey(o)
		types[k.Name] = append(types[k.Name], k.Type+" "+o.Ref())
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(types)) {
		ts := types[name]
		slices.Sort(ts)
		hasCNAME := slices.ContainsFunc(ts, func(t string) bool { return strings.HasPrefix(t, "CNAME ") })
		hasOther := slices.ContainsFunc(ts, func(t string) bool { return !strings.HasPrefix(t, "CNAME ") })
		if hasCNAME && hasOther {
			out = append(out, name+" holds "+strings.Join(ts, ", "))
		}
	}
	return out
}

// duplicates lists the keys that more than one object of the writer holds.
func duplicates(objects []RecordSet) []string {
	seen := make(map[rrset.Key]string)
	var out []string
	for _, o := range ours(objects) {
		k := canonicalKey(o)
		if first, dup := seen[k]; dup {
			out = append(out, k.String()+" by "+first+" and "+o.Ref())
			continue
		}
		seen[k] = o.Ref()
	}
	return out
}

// ours returns the objects the controller writes.
func ours(objects []RecordSet) []RecordSet {
	var out []RecordSet
	for _, o := range objects {
		if o.ManagedBy == writer {
			out = append(out, o)
		}
	}
	return out
}

func names(objects []RecordSet) []string {
	out := make([]string, 0, len(objects))
	for _, o := range objects {
		out = append(out, o.Ref())
	}
	return out
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}
