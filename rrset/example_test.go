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

func ExampleCanonicalHostname() {
	// Every spelling of a hostname, whatever its zone, is one name: hash it
	// to name the hostname's object.
	for _, host := range []string{"API.Example.com", "api.example.com.", "bücher.example.org", "api", "@"} {
		c, err := rrset.CanonicalHostname(host)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-20q -> %s\n", host, c)
	}
	// Output:
	// "API.Example.com"    -> api.example.com.
	// "api.example.com."   -> api.example.com.
	// "bücher.example.org" -> xn--bcher-kva.example.org.
	// "api"                -> api.
	// rrset: name "@" in zone ".": character not allowed in a name ("@" stands for the apex only in zone-file spellings; a hostname names it in full)
}
