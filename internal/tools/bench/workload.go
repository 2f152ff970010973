package bench

import (
	"fmt"
	"net/netip"
	"strconv"
)

// Zone is the zone every benchmark writes; ManagedBy is the writer the
// reconciler writes as.
const (
	Zone      = "bench.example."
	ManagedBy = "bench"
)

// TTL is the TTL of every RRset of a workload.
const TTL = 300

// Spec is one RRset of a workload: its owner name relative to Zone (as a
// controller hands it over) and its records in the canonical form PowerDNS
// stores and prints, so that what any writer leaves in the zone can be
// compared with it.
type Spec struct {
	Name    string
	Type    string
	TTL     uint32
	Records []string
}

// FQDN is the RRset's canonical absolute name.
func (s Spec) FQDN() string { return s.Name + "." + Zone }

// Key identifies the RRset in a zone.
func (s Spec) Key() string { return s.FQDN() + " " + s.Type }

// Workload returns n RRsets at n distinct names, in the mix of a real
// zone: 40% A (one in five of them with two addresses), 20% AAAA, 20% CNAME,
// 10% TXT and 10% MX (two exchangers each).
func Workload(n int) []Spec {
	out := make([]Spec, n)
	for i := range out {
		out[i] = spec(i, 0)
	}
	return out
}

// spec is RRset i of a workload; a non-zero version gives it other data of
// the same type, for the changed scenario.
func spec(i, version int) Spec {
	s := Spec{Name: "host-" + strconv.Itoa(i), TTL: TTL}
	v := i + version*7919 // another record of the same shape
	switch i % 10 {
	case 0, 1, 2, 3:
		s.Type = "A"
		s.Records = []string{ipv4(v)}
		if i%5 == 0 {
			s.Records = append(s.Records, ipv4(v+1<<20))
		}
	case 4, 5:
		s.Type = "AAAA"
		s.Records = []string{ipv6(v)}
	case 6, 7:
		s.Type = "CNAME"
		s.Records = []string{fmt.Sprintf("svc-%d.example.net.", v)}
	case 8:
		s.Type = "TXT"
		s.Records = []string{fmt.Sprintf(`"v=spf1 ip4:10.%d.%d.0/24 -all"`, v>>8&255, v&255)}
	default:
		s.Type = "MX"
		s.Records = []string{
			fmt.Sprintf("10 mx1-%d.example.net.", v),
			fmt.Sprintf("20 mx2-%d.example.net.", v),
		}
	}
	return s
}

func ipv4(v int) string {
	return netip.AddrFrom4([4]byte{10, byte(v >> 16), byte(v >> 8), byte(v)}).String()
}

// ipv6 prints as PowerDNS does (RFC 5952), which netip also follows.
func ipv6(v int) string {
	b := [16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 1}
	b[12], b[13], b[14], b[15] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	return netip.AddrFrom16(b).String()
}
