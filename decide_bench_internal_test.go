package reconcile

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/rrset"
)

// BenchmarkNoopSyncCPU is the work a no-op Sync of n RRsets does besides
// the GET: canonicalising the desired RRsets, decoding the answer, reading
// it into a Set, and deciding.
func BenchmarkNoopSyncCPU(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		zone := "bench.example."
		type rec struct {
			Content  string `json:"content"`
			Disabled bool   `json:"disabled"`
		}
		type com struct {
			Content string `json:"content"`
			Account string `json:"account"`
		}
		type rs struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			TTL      int    `json:"ttl"`
			Records  []rec  `json:"records"`
			Comments []com  `json:"comments"`
		}
		var sets []rs
		var desired []rrset.RRset
		sets = append(sets, rs{Name: zone, Type: "SOA", TTL: 3600, Records: []rec{{Content: "ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"}}})
		for i := range n {
			name := fmt.Sprintf("host-%d.%s", i, zone)
			ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
			sets = append(sets, rs{Name: name, Type: "A", TTL: 300, Records: []rec{{Content: ip}}, Comments: []com{{Content: "managed-by=bench", Account: commentAccount}}})
			desired = append(desired, rrset.RRset{Name: fmt.Sprintf("host-%d", i), Type: "A", TTL: 300, Records: []string{ip}})
		}
		body, _ := json.Marshal(map[string]any{"name": zone, "rrsets": sets, "soa_edit_api": "DEFAULT"})
		r, _ := New("http://127.0.0.1:9", WithManagedBy("bench"))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				want, err := stamp{writer: "bench"}.desiredSet(zone, desired)
				if err != nil {
					b.Fatal(err)
				}
				z, err := zonejson.Decode(body)
				if err != nil {
					b.Fatal(err)
				}
				obs, err := observe(zone, z, nil, "bench", readScope{}, func(string, ...any) {})
				if err != nil {
					b.Fatal(err)
				}
				d := decide(intent{desired: want}, obs, r.cfg.rules(), &memory{})
				if len(d.plan.Changes) != 0 {
					b.Fatal(len(d.plan.Changes))
				}
			}
		})
	}
}
