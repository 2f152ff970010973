// Package reliability holds what shows, with figures, how the library
// behaves under faults, load and hostile input, against real PowerDNS:
//
//   - the fault tests of this package (go test): PowerDNS killed in the
//     middle of a Sync, a fault-injecting proxy (internal/faultproxy) in
//     between, replicas and writers racing, the API key kept from every
//     output, redirects and TLS; each records its measured outcome with
//     Record;
//   - the load driver (Load), which syncs many zones from one process with
//     bounded concurrency and samples its memory;
//   - the fuzz runner (Fuzz), which runs every fuzz target of the module
//     for a fixed budget;
//   - the command in cmd/reliability, which runs all three and writes
//     RELIABILITY.md (make reliability), or the fuzz campaigns alone (make
//     fuzz).
//
// Nothing outside the repository's tests and commands should import it.
package reliability
