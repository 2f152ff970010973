// Command gateway replays, against a real PowerDNS, the incident package
// reconcile exists for: two writers that want different data at the same
// gateway names, owner names respelled from FQDN to relative form, and a
// nameserver flap that drops names from one sync. It prints what each
// writer asked, what was written, blocked and deferred, reads the zone back
// over the API and over DNS, and exits non-zero if the zone ever held a
// CNAME next to an address, a wanted record was deleted during the flap, a
// 422 reached the server, or a refused write was sent more than once.
//
//	go run ./examples/gateway                 # starts its own PowerDNS
//	go run ./examples/gateway -server http://127.0.0.1:8081 -api-key-file key.txt
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
