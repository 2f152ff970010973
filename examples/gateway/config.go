package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/pdnskit/reconcile/examples/internal/apikey"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // an error, or a check that failed
	exitUsage = 2 // bad flags
)

type config struct {
	server     string // API URL; empty: start a PowerDNS
	keyFile    string
	dnsAddr    string
	zone       string
	backend    string
	keep       bool
	keySource  string // where the key came from, for messages
	apiKeyText string
}

// usageError is a bad flag: reported with the usage, exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.server, "server", "", "PowerDNS API URL, e.g. http://127.0.0.1:8081 (default: start a PowerDNS for the demo)")
	fs.StringVar(&cfg.keyFile, "api-key-file", "", "file holding the API key for -server (default: $"+apikey.Env+")")
	fs.StringVar(&cfg.dnsAddr, "dns-addr", "", "host:port of the server's DNS service (default: the -server host, port 53)")
	fs.StringVar(&cfg.zone, "zone", "gateway.example.", "zone the demo creates and writes to; it must not exist")
	fs.StringVar(&cfg.backend, "backend", "gsqlite3", "backend of the PowerDNS the demo starts: gsqlite3 or lmdb")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the zone on -server afterwards (a started PowerDNS is always stopped)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: gateway [-server URL -api-key-file FILE [-dns-addr HOST:PORT]] [-zone ZONE] [-backend gsqlite3|lmdb] [-keep]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if cfg.backend != "gsqlite3" && cfg.backend != "lmdb" {
		return nil, &usageError{fmt.Sprintf("-backend %q: want gsqlite3 or lmdb", cfg.backend)}
	}
	if cfg.server == "" {
		if cfg.keyFile != "" || cfg.dnsAddr != "" {
			return nil, &usageError{"-api-key-file and -dns-addr go with -server"}
		}
		return cfg, nil
	}
	return cfg, cfg.readAPIKey()
}

// readAPIKey reads the key for -server from -api-key-file or the
// environment. The key itself never appears in a message.
func (c *config) readAPIKey() error {
	key, source, err := apikey.Read(c.keyFile)
	if errors.Is(err, apikey.ErrMissing) {
		return &usageError{"-server needs an API key: pass -api-key-file or set $" + apikey.Env}
	}
	c.apiKeyText, c.keySource = key, source
	return err
}
