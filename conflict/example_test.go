package conflict_test

import (
	"fmt"

	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/rrset"
)

// mustSet builds a Set of zone from RRsets, each with its writer.
func mustSet(zone string, rrsets ...rrset.RRset) *rrset.Set {
	s, err := rrset.NewSet(zone)
	if err != nil {
		panic(err)
	}
	for _, rr := range rrsets {
		if err := s.Add(rr); err != nil {
			panic(err)
		}
	}
	return s
}

// mustRRset builds an RRset held by writer ("" for desired data, which
// Check stamps with its writer).
func mustRRset(zone, name, typ, writer string, contents ...string) rrset.RRset {
	rr, err := rrset.New(zone, name, typ, 300, contents...)
	if err != nil {
		panic(err)
	}
	rr.ManagedBy = writer
	return rr
}

// One controller (external-dns) holds addresses at the gateway names,
// another (gateway-dns) wants CNAMEs there. PowerDNS would refuse each
// CNAME with a 422, again on every retry; Check blocks them before they
// are sent, names the writer in the way, and lets the rest through.
func ExampleCheck() {
	const zone = "example.com."
	live := mustSet(zone,
		mustRRset(zone, "@", "NS", "", "ns1.example.net."),
		mustRRset(zone, "v4", "A", "external-dns", "192.0.2.1"),
		mustRRset(zone, "v6", "AAAA", "external-dns", "2001:db8::1"),
	)
	desired := mustSet(zone,
		mustRRset(zone, "v4", "CNAME", "", "@"),
		mustRRset(zone, "v6", "CNAME", "", "@"),
		mustRRset(zone, "www", "A", "", "192.0.2.80"),
	)

	res := conflict.Check(desired, live, "gateway-dns")
	for _, c := range res.Conflicts {
		fmt.Println(c)
		fmt.Println("  kind:", c.Kind, "writers:", c.Writers())
	}
	fmt.Print(res.Plan)
	// Output:
	// v4.example.com. CNAME blocked: CNAME next to A held by external-dns
	//   kind: CNAMEAndOtherData writers: [external-dns]
	// v6.example.com. CNAME blocked: CNAME next to AAAA held by external-dns
	//   kind: CNAMEAndOtherData writers: [external-dns]
	// Plan for example.com. by gateway-dns: 1 to create, 0 to update, 0 to delete.
	// + www.example.com. 300 IN A 192.0.2.80
}

// A writer moves a name from an address to a CNAME while the caller holds
// the delete of its own A back (and so keeps the A in the desired Set).
// Refuse blocks the CNAME, naming the writer's own A; Takeover deletes the A
// and writes the CNAME in one plan, the delete first, as PowerDNS needs.
func ExampleCheck_takeover() {
	const zone = "example.com."
	live := mustSet(zone, mustRRset(zone, "api", "A", "gateway-dns", "192.0.2.1"))
	desired := mustSet(zone,
		mustRRset(zone, "api", "A", "", "192.0.2.1"),
		mustRRset(zone, "api", "CNAME", "", "lb.example.net."),
	)

	refused := conflict.Check(desired, live, "gateway-dns")
	fmt.Println(refused.Conflicts[0])

	taken := conflict.Check(desired, live, "gateway-dns", conflict.WithPolicy(conflict.Takeover))
	fmt.Print(taken.Plan)
	// Output:
	// api.example.com. CNAME blocked: CNAME next to A held by gateway-dns
	// Plan for example.com. by gateway-dns: 1 to create, 0 to update, 1 to delete.
	// - api.example.com. 300 IN A 192.0.2.1
	// + api.example.com. 300 IN CNAME lb.example.net.
}

// PowerDNS ignores disabled records when it checks a write, and so does
// Check: an A may go next to a disabled CNAME. A disabled RRset still
// belongs to its writer, though, and is not written over.
func ExampleWithDisabledLive() {
	const zone = "example.com."
	disabled := []rrset.RRset{
		mustRRset(zone, "old", "CNAME", "external-dns", "legacy.example.net."),
		mustRRset(zone, "_dmarc", "TXT", "external-dns", "v=DMARC1; p=none"),
	}
	desired := mustSet(zone,
		mustRRset(zone, "old", "A", "", "192.0.2.7"),
		mustRRset(zone, "_dmarc", "TXT", "", "v=DMARC1; p=reject"),
	)

	res := conflict.Check(desired, nil, "gateway-dns", conflict.WithDisabledLive(disabled...))
	for _, c := range res.Conflicts {
		fmt.Println(c)
	}
	fmt.Print(res.Plan)
	// Output:
	// _dmarc.example.com. TXT blocked: held by external-dns
	// Plan for example.com. by gateway-dns: 1 to create, 0 to update, 0 to delete.
	// + old.example.com. 300 IN A 192.0.2.7
}

// A controller that writes objects, not PowerDNS, asks before it creates
// one whether its RRset may go beside what the other objects claim. Each
// object is its own writer (its reference), so that several claimants are
// told apart: here two objects claim an address at v4, one of them
// spelled relative to the zone and with no records (data of type A exists,
// whatever it holds). The CNAME is blocked, naming both; the gateway's own
// object at www, spelled as an FQDN without the trailing dot, is no
// conflict for its relative respelling.
func ExampleAgainst() {
	const zone = "example.com."
	live := []rrset.RRset{
		{Name: "v4.example.com.", Type: "A", Records: []string{"192.0.2.1"}, ManagedBy: "infra/edge-v4"},
		{Name: "v4", Type: "A", ManagedBy: "default/gw-addresses"},
		{Name: "WWW.example.com", Type: "cname", Records: []string{"gw.example.net."}, ManagedBy: "default/gw-www"},
	}

	cname := mustRRset(zone, "v4", "CNAME", "", "@")
	for _, c := range conflict.Against(cname, "default/gw-v4", live, conflict.WithZone(zone)) {
		fmt.Println(c)
		fmt.Println("  kind:", c.Kind, "writers:", c.Writers())
	}

	www := mustRRset(zone, "www", "CNAME", "", "gw2.example.net.")
	fmt.Println(len(conflict.Against(www, "default/gw-www", live, conflict.WithZone(zone))), "conflicts for www")
	// Output:
	// v4.example.com. CNAME blocked: CNAME next to A held by default/gw-addresses, A held by infra/edge-v4
	//   kind: CNAMEAndOtherData writers: [default/gw-addresses infra/edge-v4]
	// 0 conflicts for www
}

// PowerDNS answers an address query at a name with both ALIAS and A from
// either, so Check and Against refuse the pair unless the caller allows it.
// Rules PowerDNS enforces itself cannot be switched off: WithAllowed
// ignores them.
func ExampleWithAllowed() {
	const zone = "example.com."
	live := []rrset.RRset{
		mustRRset(zone, "app", "A", "external-dns", "192.0.2.1"),
		mustRRset(zone, "v4", "A", "external-dns", "192.0.2.1"),
	}
	alias := mustRRset(zone, "app", "ALIAS", "", "lb.example.net.")
	cname := mustRRset(zone, "v4", "CNAME", "", "@")

	allow := conflict.WithAllowed(conflict.ALIASAndAddress, conflict.CNAMEAndOtherData)
	fmt.Println(conflict.Against(alias, "gateway-dns", live, conflict.WithZone(zone)))
	fmt.Println(conflict.Against(alias, "gateway-dns", live, conflict.WithZone(zone), allow))
	fmt.Println(conflict.Against(cname, "gateway-dns", live, conflict.WithZone(zone), allow))
	// Output:
	// [app.example.com. ALIAS blocked: ALIAS next to A held by external-dns]
	// []
	// [v4.example.com. CNAME blocked: CNAME next to A held by external-dns]
}

// A write below a delegation is never served: Check blocks it, and lets
// the glue of the delegation's own nameservers through. A caller that
// reads live data name by name reads the names Ancestors lists.
func ExampleCheck_occluded() {
	const zone = "example.com."
	live := mustSet(zone,
		mustRRset(zone, "@", "NS", "", "ns1.example.net."),
		mustRRset(zone, "sub", "NS", "infra-dns", "ns1.sub.example.com."),
	)
	desired := mustSet(zone,
		mustRRset(zone, "www.sub", "A", "", "192.0.2.80"),
		mustRRset(zone, "ns1.sub", "A", "", "192.0.2.53"),
	)

	res := conflict.Check(desired, live, "gateway-dns")
	for _, c := range res.Conflicts {
		fmt.Println(c.Kind, c)
	}
	fmt.Print(res.Plan)
	fmt.Println("read for www.sub:", conflict.Ancestors(zone, "www.sub"))
	// Output:
	// Occluded www.sub.example.com. A blocked: below NS at sub.example.com. held by infra-dns, never served
	// Plan for example.com. by gateway-dns: 1 to create, 0 to update, 0 to delete.
	// + ns1.sub.example.com. 300 IN A 192.0.2.53
	// read for www.sub: [sub.example.com. example.com.]
}

// Delegating a name hides what other objects hold below it.
func ExampleAgainst_occluded() {
	const zone = "example.com."
	live := []rrset.RRset{
		{Name: "api.team", Type: "A", Records: []string{"192.0.2.1"}, ManagedBy: "default/api"},
		{Name: "ns1.team", Type: "A", Records: []string{"192.0.2.53"}, ManagedBy: "infra/ns1"},
	}
	ns := rrset.RRset{Name: "team", Type: "NS", Records: []string{"ns1.team.example.com."}}
	for _, c := range conflict.Against(ns, "infra/team-delegation", live, conflict.WithZone(zone)) {
		fmt.Println(c)
	}
	// Output:
	// team.example.com. NS blocked: would hide A at api.team.example.com. held by default/api
}
