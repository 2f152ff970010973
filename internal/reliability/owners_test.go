package reliability_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// snapshot is a zone as read straight from the server: its data, and who
// owns each RRset by the records the library keeps (an RRset comment
// "managed-by=<writer>" of account pdnskit/reconcile, or, failing that, the
// earliest claim in zone metadata kinds X-PDNSKIT-OWNER-…).
type snapshot struct {
	state  zoneState
	owners map[rrset.Key]string
	// quiet is true when no writer held the zone lock or took it while
	// the snapshot was read: the metadata read before and after the zone
	// are the same and no lock is held. PowerDNS replaces a metadata kind
	// (PUT) by deleting its values and inserting the new ones, so a read
	// while a writer replaces its claims may see them missing for a
	// moment; writers read only under the zone lock, which keeps them
	// from that, and ownership is checked on quiet snapshots alone.
	quiet bool
}

func takeSnapshot(t *testing.T, srv *pdnstest.Server, zone string) snapshot {
	t.Helper()
	list := func() []powerdns.Metadata {
		var md []powerdns.Metadata
		harnessRead(t, func(ctx context.Context) error {
			var err error
			md, err = srv.Client.Metadata.List(ctx, zone)
			return err
		})
		return md
	}
	before := list()
	// The zone before the claims: a claim is written before its RRset, so
	// every RRset of this read has its claim in the later read.
	z := readZone(t, srv, zone)
	md := list()
	quiet := metadataString(before) == metadataString(md) && !strings.Contains(metadataString(md), "state held")

	type claim struct {
		writer string
		since  int64
	}
	claims := make(map[rrset.Key]claim)
	for _, m := range md {
		if m.Kind == nil || !strings.HasPrefix(string(*m.Kind), "X-PDNSKIT-OWNER-") {
			continue
		}
		writer := ""
		for _, v := range m.Metadata {
			if w, ok := strings.CutPrefix(v, "writer "); ok {
				writer = w
			}
		}
		for _, v := range m.Metadata {
			f := strings.Fields(strings.TrimPrefix(v, "claim "))
			if !strings.HasPrefix(v, "claim ") || len(f) != 3 {
				continue
			}
			since, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				continue
			}
			k := rrset.Key{Name: strings.ToLower(f[0]), Type: strings.ToUpper(f[1])}
			cur, ok := claims[k]
			if !ok || since < cur.since || (since == cur.since && writer < cur.writer) {
				claims[k] = claim{writer, since}
			}
		}
	}

	s := snapshot{state: make(zoneState), owners: make(map[rrset.Key]string), quiet: quiet}
	for _, rr := range z.RRsets {
		if rr.Type == nil || rr.Name == nil || string(*rr.Type) == "SOA" {
			continue
		}
		k := rrset.Key{Name: *rr.Name, Type: string(*rr.Type)}
		var contents []string
		for _, r := range rr.Records {
			contents = append(contents, *r.Content)
		}
		sort.Strings(contents)
		s.state[k] = contents
		for _, c := range rr.Comments {
			if c.Account != nil && *c.Account == "pdnskit/reconcile" && c.Content != nil {
				if w, ok := strings.CutPrefix(*c.Content, "managed-by="); ok {
					s.owners[k] = w
				}
			}
		}
		if _, ok := s.owners[k]; !ok {
			if c, ok := claims[k]; ok {
				s.owners[k] = c.writer
			}
		}
	}
	return s
}

// metadataString renders a metadata listing in one stable spelling.
func metadataString(md []powerdns.Metadata) string {
	var lines []string
	for _, m := range md {
		if m.Kind != nil {
			lines = append(lines, string(*m.Kind)+"="+strings.Join(m.Metadata, "|"))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// typesAt lists the types held at each name.
func (s snapshot) typesAt() map[string][]string {
	out := make(map[string][]string)
	for k := range s.state {
		out[k.Name] = append(out[k.Name], k.Type)
	}
	return out
}

// cnameNextToAddress names a name that holds a CNAME next to an A or AAAA,
// "" when none does.
func (s snapshot) cnameNextToAddress() string {
	for name, types := range s.typesAt() {
		joined := "," + strings.Join(types, ",") + ","
		if strings.Contains(joined, ",CNAME,") && (strings.Contains(joined, ",A,") || strings.Contains(joined, ",AAAA,")) {
			return name
		}
	}
	return ""
}
