package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// field prints one labelled field of a step, first on the label's line,
// more on the lines below it.
func (d *demo) field(label, first string, more ...string) {
	fmt.Fprintf(d.out, "   %-9s%s\n", label, first)
	for _, m := range more {
		fmt.Fprintf(d.out, "   %-9s%s\n", "", m)
	}
}

// fieldList prints a field holding a list, or nothing for an empty one.
func (d *demo) fieldList(label string, items []string) {
	if len(items) > 0 {
		d.field(label, items[0], items[1:]...)
	}
}

// report prints what one Sync did.
func (d *demo) report(res reconcile.Result, patches, refusals int) {
	var written []string
	for _, c := range res.Applied {
		written = append(written, d.change(c))
	}
	if len(written) == 0 {
		written = []string{"nothing"}
	}
	d.fieldList("written", written)

	var blocked []string
	for _, c := range res.Blocked {
		why := strings.TrimPrefix(c.String(), c.Key.Name+" "+c.Key.Type+" blocked: ")
		blocked = append(blocked, d.rel(c.Key.Name)+" "+c.Key.Type+": "+why)
	}
	d.fieldList("blocked", blocked)

	var refused []string
	for _, r := range res.Refused {
		msgs := make([]string, 0, len(r.Problems))
		for _, p := range r.Problems {
			msgs = append(msgs, p.Message)
		}
		line := d.rel(r.Change.Key().Name) + " " + r.Change.Key().Type + ": " + strings.Join(msgs, "; ")
		if r.Remembered {
			line += " (refused before; not sent again)"
		}
		refused = append(refused, line)
	}
	d.fieldList("refused", refused)

	var deferred []string
	for _, df := range res.Deferred {
		deferred = append(deferred, "delete of "+d.rel(df.RRset.Name)+" "+df.RRset.Type+": "+deferReason(df.Reason))
	}
	d.fieldList("deferred", deferred)

	if len(res.Postponed) > 0 {
		d.field("postponed", fmt.Sprintf("%d change(s): %s writing to the zone", len(res.Postponed), strings.Join(res.PostponedFor, ", ")))
	}

	next := "requeue after " + res.RequeueAfter.String()
	if res.Condition().Programmed {
		// In sync: the controller comes back at the resync interval,
		// jittered, to repair what changed behind its back.
		next = "resync in about " + res.RequeueAfter.Round(10*time.Minute).String()
	}
	answer := "no refusal from PowerDNS"
	if refusals > 0 {
		answer = plural(refusals, "refusal", "refusals") + " from PowerDNS"
	}
	d.field("outcome", fmt.Sprintf("%s; %s, %s; %s",
		res.Condition().Reason, plural(patches, "PATCH", "PATCHes"), answer, next))
}

func deferReason(r reconcile.DeferReason) string {
	switch r {
	case reconcile.DeferGate:
		return fmt.Sprintf("held, not yet absent on %d syncs spanning %s (deletion gate)",
			reconcile.DefaultDeleteChecks, reconcile.DefaultDeleteSpan)
	case reconcile.DeferGuard:
		return "held, the sync would delete too much of the writer's data at once (delete guard)"
	case reconcile.DeferUpsertOnly:
		return "held, the writer never deletes"
	default:
		return "held, " + string(r)
	}
}

// change renders an applied change with a relative owner name.
func (d *demo) change(c rrset.Change) string {
	k := c.Key()
	name := d.rel(k.Name)
	switch {
	case c.Op == rrset.OpCreate && c.New != nil:
		return "+ " + name + " " + k.Type + " " + joinRecords(c.New.Records)
	case c.Op == rrset.OpDelete && c.Old != nil:
		return "- " + name + " " + k.Type + " " + joinRecords(c.Old.Records)
	case c.Op == rrset.OpUpdate && c.Old != nil && c.New != nil:
		return "~ " + name + " " + k.Type + " " + joinRecords(c.Old.Records) + " -> " + joinRecords(c.New.Records)
	default:
		return c.Op.String() + " " + name + " " + k.Type
	}
}

// rel spells name relative to the zone.
func (d *demo) rel(name string) string {
	if r, err := rrset.RelativeName(d.zone, name); err == nil {
		return r
	}
	return name
}

func joinRecords(records []string) string { return strings.Join(records, ", ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
