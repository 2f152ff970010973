package rrset_test

import (
	"errors"
	"fmt"

	"github.com/pdnskit/reconcile/rrset"
)

func ExampleCanonicalName() {
	for _, name := range []string{"@", "", "api", "API.example.com", "api.example.com.", "notexample.com", "bücher", `a\.b`} {
		c, err := rrset.CanonicalName("Example.COM", name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-18q -> %s\n", name, c)
	}
	_, err := rrset.CanonicalName("example.com", "api.example.net.")
	fmt.Println(err)
	// Output:
	// "@"                -> example.com.
	// ""                 -> example.com.
	// "api"              -> api.example.com.
	// "API.example.com"  -> api.example.com.
	// "api.example.com." -> api.example.com.
	// "notexample.com"   -> notexample.com.example.com.
	// "bücher"           -> xn--bcher-kva.example.com.
	// "a\\.b"            -> a\.b.example.com.
	// rrset: name "api.example.net." in zone "example.com": not in zone
}

func ExampleRelativeName() {
	for _, name := range []string{"example.com.", "api.example.com.", "API", "api.example.com.example.com."} {
		r, err := rrset.RelativeName("example.com", name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-30s -> %s\n", name, r)
	}
	// Output:
	// example.com.                   -> @
	// api.example.com.               -> api
	// API                            -> api
	// api.example.com.example.com.   -> api.example.com.example.com.
}

func ExampleHostname() {
	// Hostnames as a Gateway listener or an HTTPRoute spells them: absolute,
	// with or without the trailing dot.
	for _, host := range []string{"API.Example.com", "example.com.", "*.example.com", "bücher.example.com", "api", "other.example.org"} {
		c, err := rrset.Hostname("example.com.", host)
		if errors.Is(err, rrset.ErrOutOfZone) {
			fmt.Printf("%-20q -> not in the zone\n", host)
			continue
		}
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-20q -> %s\n", host, c)
	}
	_, err := rrset.Hostname("example.com.", "@")
	fmt.Println(err)
	// Output:
	// "API.Example.com"    -> api.example.com.
	// "example.com."       -> example.com.
	// "*.example.com"      -> *.example.com.
	// "bücher.example.com" -> xn--bcher-kva.example.com.
	// "api"                -> not in the zone
	// "other.example.org"  -> not in the zone
	// rrset: name "@" in zone "example.com.": character not allowed in a name ("@" stands for the apex only in zone-file spellings; a hostname names it in full)
}

func ExampleNew() {
	rr, err := rrset.New("example.com", "@", "mx", 3600, "20 Backup.example.net", "10 mail.example.com", "010 mail.example.com.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rr)

	txt, _ := rrset.New("example.com", "_dmarc", "TXT", 300, "v=DMARC1; p=reject")
	fmt.Println(txt)

	_, err = rrset.New("example.com", "www", "AAAA", 300, "192.0.2.1")
	var re *rrset.RecordError
	if errors.As(err, &re) {
		fmt.Println(re.Reason, "-", err)
	}
	// Output:
	// example.com. 3600 IN MX 10 mail.example.com.
	// example.com. 3600 IN MX 20 backup.example.net.
	// _dmarc.example.com. 300 IN TXT "v=DMARC1; p=reject"
	// InvalidContent - rrset: www.example.com. AAAA "192.0.2.1": invalid content (an IPv4 address, not an IPv6 address)
}

func ExampleSet_Add() {
	s, _ := rrset.NewSet("example.com")
	api, _ := rrset.New("example.com", "api", "A", 300, "192.0.2.1")
	fqdn, _ := rrset.New("example.com", "api.example.com.", "A", 300, "192.0.2.2")
	fmt.Println(s.Add(api))
	err := s.Add(fqdn) // the same RRset, spelled differently
	var dup *rrset.DuplicateError
	fmt.Println(errors.As(err, &dup), err)
	// Output:
	// <nil>
	// true rrset: duplicate RRset api.example.com. A
}

func ExampleDiff() {
	const zone = "example.com"
	desired, _ := rrset.NewSet(zone)
	live, _ := rrset.NewSet(zone)

	var errs []error
	add := func(s *rrset.Set, managedBy, name, typ string, contents ...string) {
		rr, err := rrset.New(zone, name, typ, 300, contents...)
		rr.ManagedBy = managedBy
		errs = append(errs, err, s.Add(rr))
	}
	add(desired, "", "api", "A", "192.0.2.1")
	add(desired, "", "www", "A", "192.0.2.2", "192.0.2.3")
	add(desired, "", "txt", "TXT", "v=spf1 -all")

	add(live, "dns-operator", "www", "A", "192.0.2.1", "192.0.2.2")
	add(live, "dns-operator", "old", "A", "192.0.2.9")
	add(live, "external-dns", "other", "A", "192.0.2.8") // never deleted
	add(live, "dns-operator", "txt", "TXT", `"v=spf1 -all"`)
	if err := errors.Join(errs...); err != nil {
		fmt.Println(err)
		return
	}

	fmt.Print(rrset.Diff(desired, live, "dns-operator"))
	// Output:
	// Plan for example.com. by dns-operator: 1 to create, 1 to update, 1 to delete.
	// - old.example.com. 300 IN A 192.0.2.9
	// + api.example.com. 300 IN A 192.0.2.1
	// ~ www.example.com. 300 IN A
	//     - 192.0.2.1
	//       192.0.2.2
	//     + 192.0.2.3
}
