package conflict_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// benchZone builds a zone of n RRsets, most held by "bench", one in ten by
// another writer, and a desired Set for "bench" that changes 1% of them:
// new data, a type change from an address to a CNAME (which collides when
// the other writer holds data at the name), and a new name.
func benchZone(b *testing.B, n int) (desired, live *rrset.Set) {
	b.Helper()
	const z = "example.com."
	live, desired = newBenchSet(b, z, n), newBenchSet(b, z, n)
	add := func(s *rrset.Set, name, typ, writer string, contents ...string) {
		rr, err := rrset.NewLive(z, name, typ, 300, contents...)
		if err != nil {
			b.Fatal(err)
		}
		rr.ManagedBy = writer
		if err := s.Add(rr); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		name := "host-" + strconv.Itoa(i/2)
		typ, content := "A", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		if i%2 == 1 {
			typ, content = "TXT", `"host `+strconv.Itoa(i)+`"`
		}
		writer := "bench"
		if i%10 == 1 {
			writer = "other"
		}
		add(live, name, typ, writer, content)
		if writer != "bench" {
			continue
		}
		switch i % 100 {
		case 0:
			add(desired, name, "CNAME", "", "target.example.net.")
		case 50:
			add(desired, name, typ, "", content, "10.255.255.255")
			add(desired, "new-"+name, "AAAA", "", "2001:db8::1")
		default:
			add(desired, name, typ, "", content)
		}
	}
	return desired, live
}

func newBenchSet(b *testing.B, z string, n int) *rrset.Set {
	b.Helper()
	s, err := rrset.NewSet(z)
	if err != nil {
		b.Fatal(err)
	}
	s.Grow(n)
	return s
}

// BenchmarkCheck measures Check at 1k, 10k and 100k RRsets with 1% of them
// changed, next to Diff alone. "fresh" gives Check a live Set it has not
// seen, as each sync does, so that the Set's index by name is built inside
// the measure; "warm" reuses it.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		desired, live := benchZone(b, n)
		res := conflict.Check(desired, live, "bench")
		b.Logf("%d RRsets: %d changes allowed, %d conflicts", n, len(res.Plan.Changes), len(res.Conflicts))
		poke, err := rrset.NewLive("example.com.", "bench-poke", "TXT", 300, `"x"`)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%d/diff", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rrset.Diff(desired, live, "bench")
			}
		})
		b.Run(fmt.Sprintf("%d/check-fresh", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// A change drops the Set's derived indexes, as a new read would
				// not have them yet.
				b.StopTimer()
				if err := live.Add(poke); err != nil {
					b.Fatal(err)
				}
				live.Delete(poke.Key())
				b.StartTimer()
				conflict.Check(desired, live, "bench")
			}
		})
		b.Run(fmt.Sprintf("%d/check-warm", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				conflict.Check(desired, live, "bench")
			}
		})
		b.Run(fmt.Sprintf("%d/check-takeover", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				conflict.Check(desired, live, "bench", conflict.WithPolicy(conflict.Takeover))
			}
		})
	}
}

// BenchmarkAgainst measures one Against over the objects of a zone of 100
// to 10k RRsets, their names spelled canonically or relative to the zone
// (each is then canonicalised), the write colliding at its name.
func BenchmarkAgainst(b *testing.B) {
	const z = "example.com."
	want, err := rrset.New(z, "host-7", "CNAME", 300, "target.example.net.")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1_000, 10_000} {
		for _, spelling := range []string{"canonical", "relative"} {
			live := make([]rrset.RRset, 0, n)
			for i := range n {
				name := "host-" + strconv.Itoa(i/2)
				if spelling == "canonical" {
					name += "." + z
				}
				typ := "A"
				if i%2 == 1 {
					typ = "TXT"
				}
				live = append(live, rrset.RRset{Name: name, Type: typ, ManagedBy: "ns/obj-" + strconv.Itoa(i)})
			}
			b.Run(fmt.Sprintf("%d/%s", n, spelling), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if len(conflict.Against(want, "ns/gw", live, conflict.WithZone(z))) != 1 {
						b.Fatal("want one conflict")
					}
				}
			})
		}
	}
}
