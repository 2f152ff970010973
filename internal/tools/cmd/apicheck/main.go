// Command apicheck keeps the record of the library's exported API, api.txt,
// in step with the source. It lists every exported name of every public
// package of the module (every package but those under internal/ and
// examples/, and commands) with its signature, one line per name, in the
// form of Go's own api/*.txt:
//
//	pkg github.com/pdnskit/reconcile/rrset, func CanonicalName(string, string) (string, error)
//	pkg github.com/pdnskit/reconcile/rrset, type RRset struct, Name string
//	pkg github.com/pdnskit/reconcile, method (*Reconciler) Sync(context.Context, ...) (Result, error)
//
// Types of other packages are qualified by their import path, so that the
// library's errors package and the standard library's never read alike;
// parameter names are left out (they are no API), an empty interface reads
// any, and constants show their values. The lines are sorted, and the
// packages are read as built for linux/amd64 on every machine, so that the
// record is the same wherever it is written and a change of the API is a
// small diff.
//
// Run from the module root, it compares the record with the tree and, when
// they differ, prints the lines removed from and added to the API and exits
// 1; with -w it rewrites the record instead. `make apicheck` runs the first,
// `make api` the second, and `make lint` runs apicheck.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"
)

func main() {
	write := flag.Bool("w", false, "rewrite the record instead of comparing it with the tree")
	root := flag.String("C", ".", "the library module's directory")
	record := flag.String("record", "api.txt", "the record, relative to the module's directory")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	code := run(ctx, *root, *record, *write, os.Stdout, os.Stderr)
	cancel()
	stop()
	os.Exit(code)
}

// run does what main is asked and returns the exit code: 0 when the record
// matches (or was written), 1 when it differs, 2 when the API could not be
// read.
func run(ctx context.Context, root, record string, write bool, stdout, stderr io.Writer) int {
	lines, err := moduleAPI(ctx, root)
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 2
	}
	path := record
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, record)
	}
	if write {
		if err := writeRecord(path, lines); err != nil {
			fmt.Fprintln(stderr, "apicheck:", err)
			return 2
		}
		fmt.Fprintf(stdout, "apicheck: wrote %s (%d lines)\n", record, len(lines))
		return 0
	}
	recorded, err := readRecord(path)
	if err != nil {
		fmt.Fprintln(stderr, "apicheck:", err)
		return 2
	}
	d := diff(recorded, lines)
	if len(d) == 0 {
		fmt.Fprintf(stdout, "apicheck: the exported API matches %s (%d lines)\n", record, len(lines))
		return 0
	}
	printDiff(stdout, record, d)
	fmt.Fprintf(stderr, "apicheck: the exported API differs from %s (%d removed, %d added);\n"+
		"if the change is meant, run `make api` and commit %s with it\n",
		record, d.count('-'), d.count('+'), record)
	return 1
}
