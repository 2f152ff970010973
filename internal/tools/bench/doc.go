// Package bench measures how the reconciler writes into a real PowerDNS —
// a whole zone with Sync, one object at a time with Apply and Remove — on
// every server of the test matrix (gsqlite3, LMDB, gpgsql and gmysql
// behind a round-robin), next to what it replaces or approaches: a per-object
// controller without the library (a filtered GET and a PATCH per object,
// or a blind PATCH per object), and PowerDNS's own floor, prebuilt PATCH
// bodies plus one GET of the zone, writing the same ownership the library
// writes (or none, for the cost of ownership). It also holds the Go
// benchmarks of the pure work a Sync does before it touches the network
// (canonicalise, diff, check).
//
// The command in cmd/pdnsbench runs the matrix and writes BENCHMARKS.md and
// its chart (drawn with gonum.org/v1/plot); `make bench` runs it. The package
// is not part of the library's API and nothing outside the repository's
// tooling should import it.
//
// It is a Go module of its own, github.com/pdnskit/reconcile/internal/tools/bench,
// built against the checkout it lives in (a replace directive), so that what
// only the tooling needs (the plotting library and its fonts) never enters
// the library's go.mod and so never reaches an importer. It imports the
// library's internal packages: the go command allows an import of an internal
// package by path, from any package whose import path starts with the path
// above internal/, in whichever module that package lives.
package bench
