// Package rrset gives every DNS owner name and record content one canonical
// spelling, and builds on it the zone Set, the Diff between a desired and a
// live Set, and a readable Plan.
//
// Two spellings of one PowerDNS RRset ("api", "api.example.com",
// "API.example.com.") always canonicalise to the same Key, so they can never
// both exist in a Set nor delete each other. Contents are brought into the
// form PowerDNS itself stores (absolute lowercase targets, quoted TXT,
// compressed IPv6), so that data read back from the server compares equal to
// the data that was written.
//
// The package is pure: it never talks to PowerDNS. It is meant equally for a
// controller that only writes DNSRecordSet objects and needs the same names.
package rrset
