// Command importcheck proves that an importer can take this module without
// a bump: it copies the importer fixture (testdata/importer: an importer's
// go.mod and go.sum), points the module at this checkout with a replace
// directive, runs `go get` of the module there as the importer would, and
// fails, printing what moved, if the go line or the version of any module
// the importer already required changed. Lines the get adds are fine.
//
// Only the module proxy is needed, and only for go.mod files: minimal
// version selection reads nothing else. Modules the proxy reachable here
// does not serve (on hosts it does not allow) are served from the fixture's
// proxy/ directory, whose go.mod files match the importer's go.sum.
//
// `make lint` runs it from the module root:
//
//	go run ./internal/importcheck
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"
)

// modulePath is the module whose import is checked.
const modulePath = "github.com/pdnskit/reconcile"

func main() {
	root := flag.String("root", ".", "the module's directory")
	fixture := flag.String("fixture", "testdata/importer", "directory holding the importer's go.mod, go.sum and proxy/")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	verbose := flag.Bool("v", false, "print what go get printed even when nothing moved")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	code := run(ctx, *root, *fixture, *verbose)
	cancel()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, root, fixture string, verbose bool) int {
	res, err := check(ctx, root, fixture)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		return 2
	}
	name := filepath.Join(fixture, "go.mod")
	if len(res.Moved) == 0 {
		if verbose {
			os.Stdout.Write(res.Output)
		}
		fmt.Printf("importcheck: go get %s into %s (%s, %d modules) moves no line it had\n",
			modulePath, name, res.Before.Go, len(res.Before.Require))
		return 0
	}
	fmt.Fprintf(os.Stderr, "importcheck: go get %s into %s moves %d line(s) the importer had:\n\n", modulePath, name, len(res.Moved))
	for _, m := range res.Moved {
		fmt.Fprintf(os.Stderr, "-\t%s\n+\t%s\n", m.Before, m.After)
	}
	fmt.Fprintf(os.Stderr, "\ngo get said:\n%s\n", res.Output)
	fmt.Fprintf(os.Stderr, "Lower the requirement (or the go line) in this module's go.mod that drives each move:\n"+
		"`go mod graph | grep ' MODULE@NEW'` names who asks for it.\n")
	return 1
}
