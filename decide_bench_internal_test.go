package reconcile

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/joeig/go-powerdns/v3"

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
				obs, err := observe(zone, z, nil, "bench", readScope{}, nil, func(string, ...any) {})
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

// BenchmarkFirstNoopSyncCPU is the client's work in the first no-op Sync
// after a write, besides the GET: the writer changed one RRset (and
// PowerDNS the SOA's serial), then the next Sync with the same desired
// RRsets canonicalises them, decodes the zone, reads it into a Set and
// decides that nothing is to be sent, as Sync does, through the zone's
// memory. Each iteration reads one of two answers that differ in those
// two RRsets, so that every read follows a change. raw-decode is what a
// raw GET costs the client besides the request: go-powerdns decoding the
// same answer.
func BenchmarkFirstNoopSyncCPU(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		zone := "bench.example."
		var desired []rrset.RRset
		bodies := make([][]byte, 2)
		for v := range bodies {
			sets := []map[string]any{{"name": zone, "type": "SOA", "ttl": 3600, "records": []map[string]any{
				{"content": fmt.Sprintf("ns1.example.net. hostmaster.example.net. %d 10800 3600 604800 3600", 1+v), "disabled": false}}}}
			for i := range n {
				ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
				if i == 0 {
					ip = fmt.Sprintf("192.0.2.%d", 1+v)
				}
				sets = append(sets, map[string]any{"name": fmt.Sprintf("host-%d.%s", i, zone), "type": "A", "ttl": 300,
					"records":  []map[string]any{{"content": ip, "disabled": false}},
					"comments": []map[string]any{{"content": "managed-by=bench", "account": commentAccount, "modified_at": 1700000000}}})
				if v == 0 {
					desired = append(desired, rrset.RRset{Name: fmt.Sprintf("host-%d", i), Type: "A", TTL: 300, Records: []string{ip}})
				}
			}
			bodies[v], _ = json.Marshal(map[string]any{"name": zone, "rrsets": sets, "soa_edit_api": "DEFAULT", "serial": 1 + v})
		}
		b.Run(fmt.Sprintf("%d/sync", n), func(b *testing.B) {
			r, _ := New("http://127.0.0.1:9", WithManagedBy("bench"))
			step := func(body []byte) decision {
				o, err := r.syncOp("sync", zone, desired, nil, writes)
				if err != nil {
					b.Fatal(err)
				}
				o.store = OwnershipComments
				z, err := zonejson.Decode(body)
				if err != nil {
					b.Fatal(err)
				}
				obs, err := o.observe(z, nil)
				if err != nil {
					b.Fatal(err)
				}
				d := o.decide(obs)
				o.keepMemo(z, d)
				return d
			}
			for i := 0; i < b.N; i++ {
				// The write: its Sync asks for the new address and
				// reads the zone before it.
				b.StopTimer()
				desired[0] = rrset.RRset{Name: "host-0", Type: "A", TTL: 300, Records: []string{fmt.Sprintf("192.0.2.%d", 1+(i+1)%2)}}
				if d := step(bodies[i%2]); len(d.plan.Changes) != 1 {
					b.Fatal(d.plan.Changes)
				}
				b.StartTimer()
				if d := step(bodies[(i+1)%2]); len(d.plan.Changes) != 0 {
					b.Fatal(d.plan.Changes)
				}
			}
		})
		b.Run(fmt.Sprintf("%d/raw-decode", n), func(b *testing.B) {
			for b.Loop() {
				var z powerdns.Zone
				if err := json.Unmarshal(bodies[0], &z); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
