// Package faultproxy is a fault-injecting HTTP proxy on loopback, put between
// the library and a real PowerDNS to make it fail the ways a real server
// cannot be made to fail on demand: 5xx answers, reset connections, answers
// that never come, bodies cut short or grown past any bound (before or
// after the server's answer, or of any size without asking the server),
// refusals in shapes PowerDNS never wrote, refusals that quote the
// request's headers, and redirects elsewhere.
//
// Every request not matched by a Rule goes to the server unchanged, so what
// a test sees between faults is what PowerDNS answers. The proxy records
// every request it receives (method, path, headers, a digest of the body and
// the fault it got), so a test can count attempts where they arrive rather
// than where they are made.
//
// It is test tooling: nothing outside the repository's tests and commands
// should import it.
package faultproxy
