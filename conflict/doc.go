// Package conflict decides, before PowerDNS sees a change, whether a write
// would collide with data at the same name: the rules PowerDNS enforces
// itself (CNAME next to other data, one CNAME record, no CNAME at the apex)
// and those it does not (ALIAS next to A/AAAA, an RRset held by another
// writer). It returns the changes that may be sent and a Conflict for each
// write that may not.
//
// The package is pure: it never talks to PowerDNS.
package conflict
