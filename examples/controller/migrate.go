package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	pdnsreconcile "github.com/pdnskit/reconcile"
)

// report writes who holds each RRset of zone, as the library sees it: the
// writer and the object recorded for it, "-" where none is. A controller
// migrating from its own PowerDNS client runs it to see what it has adopted
// and what is still nobody's (the apex SOA and NS stay so).
func report(ctx context.Context, w io.Writer, pdns *pdnsreconcile.Reconciler, zone string) error {
	live, err := pdns.Live(ctx, zone)
	if err != nil {
		return fmt.Errorf("read %s: %w", zone, err)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tWRITER\tOWNER")
	for _, rr := range live {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", rr.Name, rr.Type, orDash(rr.ManagedBy), orDash(rr.Owner))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
