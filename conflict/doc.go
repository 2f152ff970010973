// Package conflict decides whether a write breaks a rule of the zone, before
// PowerDNS sees it. It returns the changes that may be sent, and a Conflict
// for each write that may not.
//
// Check runs rrset.Diff and judges every name a change touches, as the zone
// would stand after the plan: live data, minus what the plan deletes, with
// what it writes. It applies two kinds of rules:
//
//   - the rules PowerDNS Authoritative enforces in a PATCH (4.7 to 5.1),
//     mirrored so that a refusal never reaches the server: CNAME next to
//     any other data, CNAME at the apex, more than one record in a CNAME,
//     DNAME or SOA RRset, NS next to DNAME below the apex, SOA or DNSKEY
//     below the apex and DS at it. Like PowerDNS, it ignores live RRsets
//     whose records are all disabled;
//   - the rules PowerDNS does not enforce: ALIAS next to A or AAAA, data
//     that resolvers would never see (Occluded: below a delegation or a
//     DNAME, or hidden by a new one), a key held by another writer, a key
//     held by no writer (unless the caller adopts such RRsets), and two
//     RRsets of one desired set that collide with each other.
//
// A write that breaks a rule is blocked, whatever the type or the writer of
// what it collides with, and the rest of the plan still goes: blocking a
// write never makes another one invalid, and the plan Check returns,
// applied to the live zone, breaks no rule that the live zone did not
// already break. Under the Takeover policy a write that collides only with
// its own writer's RRsets deletes them in the same plan instead of being
// blocked; another writer's RRset is never deleted or overwritten.
//
// Against judges one write by the same rules without a Diff, against live
// data in shapes a Set cannot hold: several claimants of one key, names in
// any spelling, RRsets without records. It is for a controller that never
// talks to PowerDNS and writes objects (one RRset each) instead: it asks,
// per object, whether its RRset may be written beside what the other
// objects claim, with each object as its own writer.
//
// WithAllowed switches off rules PowerDNS does not enforce (ALIAS next to
// an address, occlusion, ownership), for callers that accept what PowerDNS
// accepts.
//
// Occlusion is judged on more than the name written, so the live data must
// hold more: for every write, the RRsets at each name above it up to the
// apex (Ancestors lists those names; only NS and DNAME matter), and, for a
// write of NS or DNAME, the RRsets below its name. A whole zone read from
// PowerDNS holds all of it. Data left out is data not judged: a caller
// that reads name by name and leaves it out misses an occlusion, and never
// gets a false one.
//
// The package is pure: it never talks to PowerDNS, does no I/O, and gives
// the same answer for the same input.
package conflict
