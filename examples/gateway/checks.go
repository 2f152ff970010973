package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// checks are what the demo promises. Each records what broke it; a broken
// check makes the demo exit non-zero.
type checks struct {
	cnameWithAddress []string // names that held a CNAME next to A/AAAA
	deletedInFlap    []string // wanted RRsets gone after the flap
}

// noCNAMENextToAddress reads the zone over the API and notes every name
// holding a CNAME next to an A or AAAA: the state the incident left behind.
func (c *checks) noCNAMENextToAddress(ctx context.Context, d *demo) error {
	z, err := d.srv.admin.Zones.Get(ctx, d.zone)
	if err != nil {
		return fmt.Errorf("read zone %s: %w", d.zone, d.srv.explain(err))
	}
	types := make(map[string][]string)
	for _, p := range z.RRsets {
		// A disabled RRset is not served, and PowerDNS allows it anywhere.
		if slices.ContainsFunc(p.Records, func(r powerdns.Record) bool { return r.Disabled == nil || !*r.Disabled }) {
			if p.Name != nil && p.Type != nil {
				name := strings.ToLower(*p.Name)
				types[name] = append(types[name], string(*p.Type))
			}
		}
	}
	for name, ts := range types {
		if slices.Contains(ts, "CNAME") && (slices.Contains(ts, "A") || slices.Contains(ts, "AAAA")) {
			slices.Sort(ts)
			c.cnameWithAddress = append(c.cnameWithAddress,
				fmt.Sprintf("after step %d, %s held %s", d.step, d.rel(name), strings.Join(ts, " and ")))
		}
	}
	return nil
}

// keptThroughFlap notes every RRset of wanted that the flap's Sync deleted
// or that is no longer in the zone as wanted.
func (c *checks) keptThroughFlap(ctx context.Context, d *demo, res reconcile.Result, wanted []rrset.RRset) error {
	for _, ch := range res.Applied {
		if ch.Op == rrset.OpDelete {
			c.deletedInFlap = append(c.deletedInFlap, "deleted "+d.rel(ch.Key().Name)+" "+ch.Key().Type)
		}
	}
	rows, _, err := d.readBack(ctx)
	if err != nil {
		return err
	}
	for _, w := range wanted {
		want, err := rrset.New(d.zone, w.Name, w.Type, w.TTL, w.Records...)
		if err != nil {
			return err
		}
		kept := slices.ContainsFunc(rows, func(r row) bool { return r.rr.EqualData(want) })
		if !kept {
			c.deletedInFlap = append(c.deletedInFlap, "lost "+d.rel(want.Name)+" "+want.Type)
		}
	}
	return nil
}

// report prints the checks and reports whether all of them held.
func (c *checks) report(d *demo) bool {
	fmt.Fprintln(d.out, "\nChecks")
	ok := true
	check := func(held bool, text string, broken []string) {
		mark := "ok  "
		if !held {
			mark, ok = "FAIL", false
		}
		fmt.Fprintf(d.out, "   %s  %s\n", mark, text)
		for _, b := range broken {
			fmt.Fprintf(d.out, "         %s\n", b)
		}
	}
	check(len(c.cnameWithAddress) == 0, "no name held a CNAME next to an A or AAAA, after any step", c.cnameWithAddress)
	check(len(c.deletedInFlap) == 0, "no wanted record was deleted during the flap", c.deletedInFlap)

	answered422 := d.ext.wire.Answers(http.StatusUnprocessableEntity) + d.gw.wire.Answers(http.StatusUnprocessableEntity)
	refusals := d.ext.wire.Refusals() + d.gw.wire.Refusals()
	answers := "it answered no 4xx at all"
	if refusals > 0 {
		answers = fmt.Sprintf("%s, %s in all", plural(answered422, "422 answer", "422 answers"), plural(refusals, "4xx answer", "4xx answers"))
	}
	check(answered422 == 0, "no 422 reached PowerDNS: "+answers, nil)

	turnedDown, sent := 0, 0
	var resent []string
	for _, w := range []*writer{d.ext, d.gw} {
		keys := make([]rrset.Key, 0, len(w.turnedDown))
		for k := range w.turnedDown {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b rrset.Key) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			n := w.wire.Writes(k)
			turnedDown++
			sent += n
			if n > 1 {
				resent = append(resent, fmt.Sprintf("%s sent %s %s %d times", w.name, d.rel(k.Name), k.Type, n))
			}
		}
	}
	check(len(resent) == 0, fmt.Sprintf("no refused write was sent more than once: %s blocked or refused, sent %s",
		plural(turnedDown, "write", "writes"), plural(sent, "time", "times")), resent)
	return ok
}
