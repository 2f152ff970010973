package rrset_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/pdnskit/reconcile/rrset"
)

// The zone benchmarks run at 1k, 10k and 100k RRsets and report ns/rrset,
// so that the growth of the cost per RRset shows: flat for canonicalisation,
// at most log n for Diff (map lookups, then sorting the changes).
var benchSizes = []int{1_000, 10_000, 100_000}

const benchZone = "example.com."

func BenchmarkCanonicalName(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"canonical", "api.example.com."},
		{"relative", "api"},
		{"mixed-case", "API.Example.COM"},
		{"escaped", `a\.b\065.example.com.`},
		{"idn", "bücher.example.com."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rrset.CanonicalName(benchZone, bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, n := range benchSizes {
		names := make([]string, n)
		for i := range names {
			names[i] = "Host-" + strconv.Itoa(i)
		}
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, name := range names {
					if _, err := rrset.CanonicalName(benchZone, name); err != nil {
						b.Fatal(err)
					}
				}
			}
			perRRset(b, n)
		})
	}
}

func BenchmarkNew(b *testing.B) {
	for _, bc := range []struct{ name, typ, content string }{
		{"A", "A", "192.0.2.1"},
		{"AAAA", "AAAA", "2001:db8::1"},
		{"CNAME", "CNAME", "target.example.net."},
		{"MX", "MX", "10 mail.example.net."},
		{"TXT", "TXT", `"v=spf1 include:_spf.example.net ~all"`},
		{"TXT-raw", "TXT", "v=spf1 include:_spf.example.net ~all"},
		{"CAA", "CAA", `0 issue "letsencrypt.org"`},
		{"HTTPS", "HTTPS", "1 . alpn=h2,h3 port=443"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rrset.New(benchZone, "www", bc.typ, 300, bc.content); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A desired zone: New for every RRset, added to a Set.
	for _, n := range benchSizes {
		data := zoneData(n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buildSet(b, data, "", rrset.New)
			}
			perRRset(b, n)
		})
	}
}

// BenchmarkNewLive canonicalises a whole zone as read from a server and
// builds its Set: the per-reconcile cost on the live side.
func BenchmarkNewLive(b *testing.B) {
	for _, n := range benchSizes {
		data := zoneData(n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buildSet(b, data, "", rrset.NewLive)
			}
			perRRset(b, n)
		})
	}
}

func BenchmarkDiff(b *testing.B) {
	for _, n := range benchSizes {
		data := zoneData(n)
		live := buildSet(b, data, "bench", rrset.NewLive)
		for _, change := range []struct {
			name  string
			every int
		}{{"nochange", 0}, {"1pct", 100}} {
			desired := buildSet(b, changed(data, change.every), "", rrset.New)
			b.Run(fmt.Sprintf("n=%d/%s", n, change.name), func(b *testing.B) {
				b.ReportAllocs()
				var plan rrset.Plan
				for b.Loop() {
					plan = rrset.Diff(desired, live, "bench")
				}
				if want := changes(n, change.every); len(plan.Changes) != want {
					b.Fatalf("%d changes, want %d", len(plan.Changes), want)
				}
				perRRset(b, n)
			})
		}
	}
}

func perRRset(b *testing.B, n int) {
	b.Helper()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rrset")
}

// rrsetData is one RRset of a synthetic zone.
type rrsetData struct {
	name, typ, content string
	ttl                uint32
}

// zoneData is n RRsets in the proportions of a real zone: mostly A and
// AAAA, some CNAME, TXT and MX, contents spelled as PowerDNS prints them.
func zoneData(n int) []rrsetData {
	out := make([]rrsetData, n)
	for i := range n {
		d := rrsetData{name: "host-" + strconv.Itoa(i) + "." + benchZone, ttl: 300}
		switch i % 10 {
		case 0, 1, 2, 3:
			d.typ, d.content = "A", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		case 4, 5:
			d.typ, d.content = "AAAA", fmt.Sprintf("2001:db8::%x:%x", i>>16, i&0xffff)
		case 6, 7:
			d.typ, d.content = "CNAME", fmt.Sprintf("host-%d.%s", i-1, benchZone)
		case 8:
			d.typ, d.content = "TXT", fmt.Sprintf(`"v=spf1 ip4:10.0.%d.0/24 -all"`, i&255)
		default:
			d.typ, d.content = "MX", fmt.Sprintf("10 mx-%d.%s", i, benchZone)
		}
		out[i] = d
	}
	return out
}

// changed alters one RRset in every: half of those get a new TTL (an
// update), the other half a new name (a create and a delete).
func changed(data []rrsetData, every int) []rrsetData {
	out := make([]rrsetData, len(data))
	copy(out, data)
	if every == 0 {
		return out
	}
	for i := 0; i < len(out); i += every {
		if (i/every)%2 == 0 {
			out[i].ttl = 600
		} else {
			out[i].name = "renamed-" + out[i].name
		}
	}
	return out
}

func changes(n, every int) int {
	if every == 0 {
		return 0
	}
	altered := (n + every - 1) / every
	renamed := altered / 2
	return altered + renamed
}

func buildSet(b *testing.B, data []rrsetData, managedBy string,
	build func(zone, name, typ string, ttl uint32, contents ...string) (rrset.RRset, error),
) *rrset.Set {
	b.Helper()
	s, err := rrset.NewSet(benchZone)
	if err != nil {
		b.Fatal(err)
	}
	s.Grow(len(data))
	for _, d := range data {
		rr, err := build(benchZone, d.name, d.typ, d.ttl, d.content)
		if err != nil {
			b.Fatal(err)
		}
		rr.ManagedBy = managedBy
		if err := s.Add(rr); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkMapBaseline is the floor under Diff: n lookups of n keys in a Go
// map, the one operation Diff does per RRset. Its cost per lookup grows with
// n only as the map outgrows the processor's caches; Diff's cost per RRset
// should follow it, not n·log n.
func BenchmarkMapBaseline(b *testing.B) {
	for _, n := range benchSizes {
		keys := make([]rrset.Key, n)
		m := make(map[rrset.Key]int, n)
		for i, d := range zoneData(n) {
			keys[i] = rrset.Key{Name: d.name, Type: d.typ}
			m[keys[i]] = i
		}
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			sum := 0
			for b.Loop() {
				for _, k := range keys {
					sum += m[k]
				}
			}
			if sum == 0 {
				b.Fatal("no lookups")
			}
			perRRset(b, n)
		})
	}
}

// BenchmarkNewLiveOne is NewLive on one RRset as PowerDNS prints it: the
// per-RRset floor of reading a zone.
func BenchmarkNewLiveOne(b *testing.B) {
	for _, bc := range []struct{ typ, content string }{
		{"A", "192.0.2.1"},
		{"CNAME", "target.example.net."},
		{"TXT", `"v=spf1 include:_spf.example.net ~all"`},
	} {
		b.Run(bc.typ, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rrset.NewLive(benchZone, "www.example.com.", bc.typ, 300, bc.content); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
