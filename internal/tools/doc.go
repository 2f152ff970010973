// Package tools is the module of the repository's tooling, kept out of the
// library's go.mod so that what only the tooling needs (gonum/plot for the
// benchmark charts) never reaches an importer:
//
//   - bench and cmd/pdnsbench: make bench, which writes BENCHMARKS.md;
//   - report and cmd/reliability: make reliability and make fuzz, which
//     run the library's fault, load and fuzz tests and write RELIABILITY.md;
//   - cmd/importcheck: part of make lint, a go get of the library into an
//     importer's requirements that must move none of them;
//   - cmd/apicheck: make apicheck (part of make lint) and make api, which
//     check and rewrite api.txt, the record of the library's exported API;
//   - machine: what a report says about the machine it ran on;
//   - no-api-key.sh: fails when a log holds an API key of the test harness.
//
// The commands run from the repository's root, where their default paths
// point; make tools builds them into bin/.
package tools
