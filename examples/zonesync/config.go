package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pdnskit/reconcile/examples/internal/apikey"
	"github.com/pdnskit/reconcile/rrset"
)

// Exit codes.
const (
	exitOK      = 0
	exitFail    = 1 // any error, bad input included
	exitBlocked = 2 // something blocked, refused or held back
)

type config struct {
	server       string
	keyFile      string
	zone         string // canonical
	managedBy    string
	file         string
	apply        bool
	format       string
	takeover     bool
	adopt        bool
	forceDeletes bool

	apiKey    string
	keySource string // where the key came from, for messages
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("zonesync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.server, "server", "", "PowerDNS API URL, e.g. http://127.0.0.1:8081 (required)")
	fs.StringVar(&cfg.keyFile, "api-key-file", "", "file holding the API key (default: $"+apikey.Env+")")
	fs.StringVar(&cfg.zone, "zone", "", "the zone to sync, which must exist on the server (required)")
	fs.StringVar(&cfg.managedBy, "managed-by", "", "the writer zonesync writes as; it owns what it writes (required)")
	fs.StringVar(&cfg.file, "file", "", "RFC 1035 zone file with the desired records (required)")
	fs.BoolVar(&cfg.apply, "apply", false, "apply the plan (default: print it, write nothing)")
	fs.StringVar(&cfg.format, "format", "text", "output: text or json")
	fs.BoolVar(&cfg.takeover, "takeover", false, "replace the writer's own RRsets that collide with a write, in the same PATCH")
	fs.BoolVar(&cfg.adopt, "adopt", false, "take over RRsets no writer owns (written by hand or by older tools)")
	fs.BoolVar(&cfg.forceDeletes, "force-deletes", false, "delete even when that removes over 30% of the writer's RRsets in the zone")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: zonesync -server URL [-api-key-file FILE] -zone ZONE -managed-by WRITER -file ZONEFILE [-apply] [-format text|json] [-takeover] [-adopt] [-force-deletes]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, req := range []struct{ flag, value string }{
		{"-server", cfg.server}, {"-zone", cfg.zone}, {"-managed-by", cfg.managedBy}, {"-file", cfg.file},
	} {
		if req.value == "" {
			return nil, fmt.Errorf("%s is required (see zonesync -h)", req.flag)
		}
	}
	if cfg.format != "text" && cfg.format != "json" {
		return nil, fmt.Errorf("-format %q: want text or json", cfg.format)
	}
	zone, err := rrset.CanonicalZone(cfg.zone)
	if err != nil {
		return nil, fmt.Errorf("-zone %q: %s", cfg.zone, strings.TrimPrefix(err.Error(), "rrset: "))
	}
	cfg.zone = zone
	return cfg, cfg.readAPIKey()
}

// readAPIKey reads the key from -api-key-file or the environment. The key
// itself never appears in a message.
func (c *config) readAPIKey() error {
	var err error
	c.apiKey, c.keySource, err = apikey.Read(c.keyFile)
	return err
}
