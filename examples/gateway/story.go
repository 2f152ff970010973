package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/rrset"
)

// demo is one replay of the incident.
type demo struct {
	out    io.Writer
	srv    *server
	zone   string
	clock  *backofftest.Clock
	ext    *writer // external-dns
	gw     *writer // gateway-dns
	checks checks
	step   int
}

// flapTime is how far the simulated clock moves between the flap and the
// sync that sees authority again: the pace Result.RequeueAfter asks for
// while deletes are held.
const flapTime = time.Minute

func newDemo(out io.Writer, srv *server, zone string) (*demo, error) {
	// A fake clock: the deletion gate counts syncs and the time they
	// span, so the replay runs in seconds and the clock moves only when
	// the story says so.
	clock := backofftest.NewClock(time.Now())
	d := &demo{out: out, srv: srv, zone: zone, clock: clock}
	var err error
	if d.ext, err = newWriter(srv, "external-dns", clock); err != nil {
		return nil, err
	}
	if d.gw, err = newWriter(srv, "gateway-dns", clock); err != nil {
		return nil, err
	}
	return d, nil
}

// close frees the zone locks the writers keep between writes.
func (d *demo) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.ext.rec.Close(ctx)
	_ = d.gw.rec.Close(ctx)
}

// replay tells the story; an error means PowerDNS could not be asked, not
// that a check failed.
func (d *demo) replay(ctx context.Context) error {
	defer d.close()
	fmt.Fprintf(d.out, "The gateway incident, replayed in zone %s\n", d.zone)
	fmt.Fprintln(d.out, d.srv)
	fmt.Fprintf(d.out, "Writers: %s and %s, each a Reconciler of its own.\n", d.ext.name, d.gw.name)
	fmt.Fprintf(d.out, "Time is simulated: a delete waits until the RRset was absent on %d syncs spanning %s\n"+
		"(the deletion gate), and the clock moves only when the story says so, so the replay takes seconds.\n",
		reconcile.DefaultDeleteChecks, reconcile.DefaultDeleteSpan)

	everything := addresses(d.zone, false)

	d.begin("external-dns writes A and AAAA at the gateway names, owner names spelled as FQDNs")
	if _, err := d.sync(ctx, d.ext, addresses(d.zone, true), ""); err != nil {
		return err
	}

	d.begin("gateway-dns wants CNAMEs to the apex at the same names, and its own hosts")
	if _, err := d.sync(ctx, d.gw, aliases(), ""); err != nil {
		return err
	}

	d.begin("gateway-dns syncs again, when its controller requeues")
	if _, err := d.sync(ctx, d.gw, aliases(), "the same as in step 2"); err != nil {
		return err
	}

	d.begin("external-dns respells its owner names relative to the zone")
	if _, err := d.sync(ctx, d.ext, everything, ""); err != nil {
		return err
	}

	d.begin("nameserver flap: for one sync external-dns sees no authority for gw2, so gw2's names drop out")
	res, err := d.sync(ctx, d.ext, addresses(d.zone, false, "gw1"), "")
	if err != nil {
		return err
	}
	if err := d.checks.keptThroughFlap(ctx, d, res, everything); err != nil {
		return err
	}

	d.clock.Advance(flapTime)
	d.begin("a minute later (simulated): authority is back, and so are gw2's names")
	if _, err := d.sync(ctx, d.ext, everything, "the same as in step 4"); err != nil {
		return err
	}
	d.field("note", "the deletes held in step 5 are forgotten: a later absence starts counting again")
	return nil
}

func (d *demo) begin(title string) {
	d.step++
	fmt.Fprintf(d.out, "\n%d. %s\n", d.step, title)
}

// sync runs one Sync of w, prints what happened, and checks the zone
// after it. asked, when not empty, stands for the desired RRsets.
func (d *demo) sync(ctx context.Context, w *writer, desired []rrset.RRset, asked string) (reconcile.Result, error) {
	patches, refusals := w.wire.Patches(), w.wire.Refusals()
	if asked != "" {
		d.field("asks", asked)
	} else {
		lines := make([]string, 0, len(desired))
		for _, rr := range desired {
			lines = append(lines, rr.Name+" "+rr.Type+" "+joinRecords(rr.Records))
		}
		d.fieldList("asks", lines)
	}
	res, err := w.rec.Sync(ctx, d.zone, desired)
	if err != nil {
		return res, fmt.Errorf("step %d: %s: %w", d.step, w.name, err)
	}
	for _, c := range res.Blocked {
		w.turnedDown[c.Key] = true
	}
	for _, r := range res.Refused {
		w.turnedDown[r.Change.Key()] = true
	}
	d.report(res, w.wire.Patches()-patches, w.wire.Refusals()-refusals)
	return res, d.checks.noCNAMENextToAddress(ctx, d)
}
