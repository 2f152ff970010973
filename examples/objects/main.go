// Command objects replays, without PowerDNS, what a controller that writes
// DNS record objects (DNSRecordSet objects, for dns-operator to program)
// needs from package reconcile's pure packages: a gateway controller wants
// CNAMEs at hostnames where another path's objects hold addresses, loses
// DNS authority for one check and then for good, restarts in between, gets
// authority back, and respells its hostnames.
//
// It prints what each reconcile did and checks seven promises: the CNAMEs
// are refused with a reason naming the objects in the way; no name ever
// holds a CNAME beside other data; a flap collects nothing; the absence
// streak is kept in the objects; a sustained loss collects on schedule
// across the restart; recreating brings no CNAME beside the addresses back;
// respelling makes no duplicate and no delete. It exits 1 if any fails.
//
//	go run ./examples/objects          # the controller built on the library
//	go run ./examples/objects -naive   # the controller as it was: every check fails
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
