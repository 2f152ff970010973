package main

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/rrset"
)

// The gateways: each has the names v4.<host> and v6.<host>.
var gateways = []string{"gw1", "gw2"}

// writer is one controller writing to the zone through its own Reconciler.
type writer struct {
	name string
	rec  *reconcile.Reconciler
	wire *wire
	// turned down collects the keys of writes ever blocked or refused.
	turnedDown map[rrset.Key]bool
}

func newWriter(srv *server, name string, clock backoff.Clock) (*writer, error) {
	w := &writer{name: name, wire: newWire(), turnedDown: make(map[rrset.Key]bool)}
	rec, err := reconcile.New(srv.url,
		reconcile.WithAPIKey(srv.apiKey),
		reconcile.WithManagedBy(name),
		reconcile.WithHTTPClient(&http.Client{Transport: w.wire, Timeout: 30 * time.Second}),
		reconcile.WithDNSAddr(srv.dnsAddr),
		reconcile.WithClock(clock),
		// The story's clock moves only when the story says so, and a
		// zone lock kept after a write is kept on that clock: the other
		// writer would find the zone locked until the story moved it.
		// Each writer frees the lock when its write is done instead.
		reconcile.WithLockHold(0),
	)
	if err != nil {
		return nil, err
	}
	w.rec = rec
	return w, nil
}

// addresses is what external-dns wants: A at v4.<host>, AAAA at v6.<host>,
// with owner names spelled as FQDNs (as it first wrote them) or relative
// to the zone (as it writes them after the respelling). The RRsets are
// literals, spelled as given: Sync canonicalises them.
func addresses(zone string, fqdn bool, hosts ...string) []rrset.RRset {
	var out []rrset.RRset
	for i, h := range gateways {
		if len(hosts) > 0 && !slices.Contains(hosts, h) {
			continue
		}
		v4, v6 := "v4."+h, "v6."+h
		if fqdn {
			v4, v6 = v4+"."+zone, v6+"."+zone
		}
		out = append(out,
			rrset.RRset{Name: v4, Type: "A", TTL: 300, Records: []string{fmt.Sprintf("192.0.2.%d", i+1)}},
			rrset.RRset{Name: v6, Type: "AAAA", TTL: 300, Records: []string{fmt.Sprintf("2001:db8::%d", i+1)}})
	}
	return out
}

// aliases is what gateway-dns wants: CNAMEs to the apex at the same
// gateway names, and an address for each gateway host of its own.
func aliases() []rrset.RRset {
	var out []rrset.RRset
	for _, h := range gateways {
		out = append(out,
			rrset.RRset{Name: "v4." + h, Type: "CNAME", TTL: 300, Records: []string{"@"}},
			rrset.RRset{Name: "v6." + h, Type: "CNAME", TTL: 300, Records: []string{"@"}})
	}
	for i, h := range gateways {
		out = append(out, rrset.RRset{Name: h, Type: "A", TTL: 300, Records: []string{fmt.Sprintf("198.51.100.%d", i+1)}})
	}
	return out
}
