// Command zonesync makes a PowerDNS zone hold the records of an RFC 1035
// zone file, as one writer, through package reconcile: it prints the plan
// (a dry run unless -apply), applies it with -apply, and prints what was
// blocked or refused and why.
//
//	zonesync -server http://127.0.0.1:8081 -api-key-file key.txt \
//	    -zone example.com. -managed-by zonesync -file example.com.zone [-apply]
//
// Exit codes: 0 nothing to do, or everything applied (or, in a dry run,
// applicable); 2 something blocked, refused or held back; 1 any other
// error. The API key is read from -api-key-file or $PDNS_API_KEY, never
// from a flag, and never printed.
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
