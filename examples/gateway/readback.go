package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/miekg/dns"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// row is one RRset of the final zone, as the API and DNS give it.
type row struct {
	rr     rrset.RRset // from the API, canonical; ManagedBy is its writer
	served string      // what DNS answered, compared with rr
}

// readBack reads the zone over the API, with each RRset's writer as the
// writers' Reconciler sees it (Reconciler.Live), and asks the DNS service
// for every RRset but the SOA, whose serial PowerDNS rewrites.
func (d *demo) readBack(ctx context.Context) (rows []row, store string, err error) {
	live, err := d.ext.rec.Live(ctx, d.zone)
	if err != nil {
		return nil, "", fmt.Errorf("read zone %s back: %w", d.zone, d.srv.explain(err))
	}
	where, err := d.ext.rec.OwnershipStore(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("read zone %s back: %w", d.zone, d.srv.explain(err))
	}
	store = map[reconcile.OwnershipStore]string{reconcile.OwnershipComments: "RRset comments", reconcile.OwnershipMetadata: "zone metadata"}[where]
	for _, rr := range live {
		if rr.Type == "SOA" {
			continue
		}
		rows = append(rows, row{rr: rr, served: d.served(ctx, rr)})
	}
	slices.SortFunc(rows, func(a, b row) int {
		return compareNames(d.rel(a.rr.Name), d.rel(b.rr.Name), a.rr.Type, b.rr.Type)
	})
	return rows, store, nil
}

// compareNames orders the apex first, then by relative name and type.
func compareNames(a, b, ta, tb string) int {
	switch {
	case a == b:
		return strings.Compare(ta, tb)
	case a == "@":
		return -1
	case b == "@":
		return 1
	}
	return strings.Compare(a, b)
}

// served asks the DNS service for rr and says how the answer compares.
func (d *demo) served(ctx context.Context, rr rrset.RRset) string {
	qtype, ok := dns.StringToType[rr.Type]
	if !ok {
		return "not asked"
	}
	msg := new(dns.Msg).SetQuestion(rr.Name, qtype)
	msg.SetEdns0(1232, false)
	resp, _, err := (&dns.Client{Net: "udp", Timeout: 5 * time.Second}).ExchangeContext(ctx, msg, d.srv.dnsAddr)
	if err == nil && resp.Truncated {
		resp, _, err = (&dns.Client{Net: "tcp", Timeout: 5 * time.Second}).ExchangeContext(ctx, msg, d.srv.dnsAddr)
	}
	if err != nil {
		return "no answer: " + err.Error()
	}
	var ttl uint32
	var contents []string
	for _, ans := range resp.Answer {
		h := ans.Header()
		if strings.EqualFold(h.Name, rr.Name) && h.Rrtype == qtype {
			ttl = h.Ttl
			contents = append(contents, strings.TrimPrefix(ans.String(), h.String()))
		}
	}
	if len(contents) == 0 {
		return "missing (" + dns.RcodeToString[resp.Rcode] + ")"
	}
	got, err := rrset.NewLive(d.zone, rr.Name, rr.Type, ttl, contents...)
	if err != nil {
		return "unreadable answer: " + err.Error()
	}
	if got.EqualData(rr) {
		return "same"
	}
	return "differs: ttl " + strconv.FormatUint(uint64(got.TTL), 10) + " " + joinRecords(got.Records)
}

// printTable prints the final zone.
func (d *demo) printTable(rows []row, store string) {
	if store == "" {
		store = "nowhere"
	}
	fmt.Fprintf(d.out, "\nThe zone now, read back over the API (writers recorded in %s) and over DNS\n", store)
	tw := tabwriter.NewWriter(d.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "   NAME\tTYPE\tTTL\tRECORDS\tWRITER\tOVER DNS")
	for _, r := range rows {
		writer := r.rr.ManagedBy
		if writer == "" {
			writer = "-"
		}
		fmt.Fprintf(tw, "   %s\t%s\t%d\t%s\t%s\t%s\n", d.rel(r.rr.Name), r.rr.Type, r.rr.TTL, joinRecords(r.rr.Records), writer, r.served)
	}
	tw.Flush()
}
