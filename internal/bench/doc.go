// Package bench measures how the reconciler writes a zone into a real
// PowerDNS, next to the two alternatives it replaces or approaches: one PATCH
// per RRset, the way a per-object controller writes, and PowerDNS's own
// floor, one prebuilt PATCH body plus one GET of the zone. It also holds the
// Go benchmarks of the pure work a Sync does before it touches the network
// (canonicalise, diff, check).
//
// The command in cmd/pdnsbench runs the matrix and writes BENCHMARKS.md and
// its chart; `make bench` runs it. The package is not part of the library's
// API and nothing outside the repository's tooling should import it.
package bench
