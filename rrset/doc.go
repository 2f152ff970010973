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
// It does not judge whether a change may be applied (CNAME next to other
// data, another writer's RRset): that is package conflict's work, on the
// Plan that Diff returns.
//
// # Names
//
// CanonicalName turns any spelling of an owner name into one absolute,
// lower-case name with a trailing dot. "@" and "" are the apex. A name with a
// trailing dot is absolute. A name without one is relative to the zone,
// unless it already ends, label by label, in the zone's name: then it is
// taken as absolute. So in zone example.com, "api" and "api.example.com" are
// both api.example.com.; the name api.example.com.example.com. must be
// written with its trailing dot. RelativeName inverts CanonicalName. Both
// are idempotent. Internationalised labels become A-labels; escapes follow
// RFC 1035 §5.1 ("a\.b" is one label).
//
// Hostname is for names that are absolute whether or not they end in a
// dot: the hostnames of Kubernetes objects (Gateway listeners, HTTPRoute
// hostnames, DNSEndpoint names). It gives the same spelling as
// CanonicalName for a name at the apex or below it, and refuses any other
// (ReasonOutOfZone, which errors.Is matches with ErrOutOfZone) where
// CanonicalName would append the zone. Use CanonicalName for names written
// as in a zone file, relative ones and "@" included; use Hostname for a
// name a user or an object gave as a hostname. CanonicalHostname is
// Hostname without a zone (in the root zone "."): the one spelling of a
// hostname before its zone is known, to compare, hash or name objects by.
// In zone example.com.:
//
//	spelling               CanonicalName                     Hostname
//	"api"                  api.example.com.                  OutOfZone
//	"api.example.com"      api.example.com.                  api.example.com.
//	"api.example.com."     api.example.com.                  api.example.com.
//	"API.Example.COM"      api.example.com.                  api.example.com.
//	"example.com"          example.com.                      example.com.
//	"@"                    example.com.                      InvalidCharacter
//	""                     example.com.                      EmptyName
//	"*.example.com"        *.example.com.                    *.example.com.
//	"bücher.example.com"   xn--bcher-kva.example.com.        xn--bcher-kva.example.com.
//	"other.example.org"    other.example.org.example.com.    OutOfZone
//	"other.example.org."   OutOfZone                         OutOfZone
//
// Names inside contents (CNAME, ALIAS, DNAME, NS, PTR, MX, SRV, NAPTR, RP,
// SOA, HTTPS, SVCB, AFSDB, KX, LP, MINFO and IPSECKEY targets) are always absolute, with or without their
// trailing dot, as PowerDNS reads them: "10 mail" is the MX mail., not
// mail.example.com. "@" there is the zone apex.
//
// # Contents
//
// New returns contents in the form PowerDNS 4.7, 4.9 and 5.1 store and print
// back, so that an RRset written with New and read back with NewLive is
// EqualData to the original:
//
//	A       192.0.2.1
//	AAAA    2001:db8::1 (RFC 5952; IPv4-mapped as ::ffff:c000:201, which
//	        PowerDNS 4.x accepts, though it prints ::ffff:192.0.2.1)
//	CNAME   target.example.net.   (also ALIAS, DNAME, NS, PTR)
//	MX      10 mail.example.net.
//	SRV     10 5 443 target.example.net.
//	TXT     "v=spf1 -all"   "a" "b"   (also SPF)
//	CAA     0 issue "letsencrypt.org"
//	TLSA    3 1 1 abcdef...   (also SMIMEA; SSHFP, DS and CDS alike)
//	NAPTR   100 10 "u" "E2U+sip" "!^.*$!sip:info@example.net!" .
//	HTTPS   1 . alpn=h2,h3 port=443 ipv4hint=192.0.2.1   (also SVCB)
//	DNSKEY  257 3 13 base64...   (also CDNSKEY)
//	SOA, URI, HINFO, RP   (MINFO as RP)
//	AFSDB   1 afsdb.example.net.   (also KX and LP: a number and a name)
//	CERT    1 12345 8 base64...   (mnemonics PKIX, RSASHA256... as numbers)
//	OPENPGPKEY, DHCID   base64...;   RKEY as DNSKEY
//	ZONEMD  2018031500 1 1 febe3d4c...
//	IPSECKEY  10 1 2 192.0.2.38 base64...   (no gateway: 10 0 2 base64...,
//	        without RFC 4025's ".", which PowerDNS refuses)
//	EUI48   00-00-5e-00-53-2a   (EUI64 alike, eight octets)
//	NID     10 0014:4FFF:FF20:EE64   (also L64; L32 10 192.0.2.1)
//	APL     1:192.0.2.0/24 !2:2001:db8::/32   (items in the order given)
//	CSYNC   66 3 A NS AAAA   (types once each, by number)
//	LOC     51 56 0.123 N 5 54 0.000 E 4.00m 1.00m 10000.00m 10.00m
//	LUA     A "ifportup(443, {'192.0.2.1'})"
//	TYPE65420  \# 2 4142   (RFC 3597, for types PowerDNS has no name for)
//
// A LUA content is the type the snippet answers with and the snippet as
// character-strings. The snippet is opaque, kept as written, escapes
// included, and compared exactly; only the type's spelling and the blanks
// between strings are brought into PowerDNS's form. LOC minutes, seconds,
// size and precisions may be left out; a size or precision must be one
// digit times a power of ten (1.5m is refused: LOC cannot store it).
//
// Numbers lose leading zeros, hexadecimal is lower case and base64 is
// re-encoded, both in one piece. A TXT content that starts with a double
// quote is presentation format (quoted strings or bare words, \X and \DDD
// escapes); any other TXT content is one string taken literally, so
// "v=spf1 -all" needs no quotes, and an empty one (or only blanks) is one
// empty string, `""`: 4.7 and 4.9 store an empty content and serve one
// empty string, where 5.1 refuses it unquoted, so it is written quoted on
// every version. Strings longer than 255 octets are cut into
// 255-octet pieces, the way PowerDNS cuts them on the wire, so the same data
// compares equal however it was quoted or cut. Text is printed as PowerDNS
// prints it: printable ASCII as is, other octets as \DDD. SvcParams are
// written in key order. Contents are trimmed of surrounding white space;
// type mnemonics are case-insensitive.
//
// Types PowerDNS has no name for are written as TYPEnnn with RFC 3597 data,
// "\# length hex" ("TYPE65420 \# 2 4142"): the hexadecimal in lower case
// and in one piece, as PowerDNS prints it. A type some supported version
// names (A, MB, HHIT, ...) has its own form instead; TYPEnnn of a type this
// package writes is that type ("TYPE1" is "A").
//
// PowerDNS rewrites the serial of any SOA written through its API into a
// zone whose SOA-EDIT-API asks for it (the default of zones the API
// creates): there a desired SOA is compared with the live one by
// EqualIgnoringSerial, which SOASerialRewritten says when to use.
//
// # What PowerDNS cannot store unchanged
//
// New refuses, with ReasonUnsupported, valid DNS data that some supported
// PowerDNS version refuses or would alter, since it could never be read back
// equal and would be rewritten on every reconcile. Each rule is held by a
// test to what PowerDNS 4.7, 4.9 and 5.1, with gsqlite3 and LMDB, do with
// the data:
//
//   - zone names (CanonicalZone) and owner names with characters other than
//     letters, digits, '-', '_' and '/' ("*" as a whole first label of an
//     owner is a wildcard): the API refuses them;
//   - names inside contents holding a blank, '"', '(', ')', ';', '.' or
//     '\' in a label: 5.1 unescapes contents before parsing them, so
//     "a\.b" would become two labels and "a\032b" two words, and it refuses
//     the others. Any other character is kept, so an SOA or RP mailbox may
//     hold '@' (testmaster@example.net.);
//   - NS, MX and SRV targets that are not host names (letters, digits and
//     '-' inside labels; "." for a null MX or SRV): PowerDNS refuses them;
//   - '"' and '\' inside character-strings (TXT, SPF, HINFO, NAPTR, CAA,
//     URI), for the same reason: 5.1 refuses the first and drops the second
//     (so NAPTR regexps with back-references cannot be written);
//   - SvcParamKeys after ipv6hint (dohpath, ohttp, keyNNNNN...), which 4.x
//     and 5.1 print differently, escapes in SvcParam values, and ALPN
//     identifiers holding '(', ')' or ';', which PowerDNS refuses there;
//   - TYPEnnn of types 5.1 names and parses and 4.x does not (HHIT, BRID,
//     RESINFO, WALLET), and these types inside CSYNC and LUA contents;
//   - APL items with host bits (1:192.0.2.1/24), which PowerDNS drops;
//   - IPSECKEY algorithms other than 0, 1 and 2, which PowerDNS refuses;
//   - LOC altitudes over 21374836.47m, which PowerDNS prints wrong.
//
// New refuses with ReasonTooLarge a TXT, SPF or RFC 3597 RRset that no DNS
// response can carry whole (a single record: 65,496 octets of data and
// owner name), which PowerDNS stores but cannot serve (and which crashes
// 4.9 with LMDB). Control characters, ASCII or C1 (U+0080 to U+009F), are
// refused where a name or an unquoted word holds them literally.
//
// CheckVersion refuses what New accepts but one version refuses: RFC 3597
// data of length 0 ("\# 0") before 5.1, LOC positions that 4.x prints
// otherwise (about half those on a whole minute, the equator, the prime
// meridian) before 5.0, and LUA records from 5.1 on, which 5.1 refuses to
// write or delete through its API unless enable-lua-record-updates is set
// (an RRset without records stands for a delete).
//
// Octets outside printable ASCII in text (UTF-8 included) are written as
// \DDD. 4.x and 5.1.5 store them; 5.1 releases before 5.1.5 may refuse
// escapes above \127 (PowerDNS issue 17875).
//
// Named types New does not model (RRSIG, NSEC, NSEC3, TKEY, ...) are
// refused with ReasonUnsupportedType. NewLive, for data read from a server, accepts them
// and any content it cannot parse, kept as given, so that a Set of live data
// still knows which keys are taken.
//
// # Disabled records
//
// PowerDNS records carry a disabled flag. This package writes only enabled
// records and does not model the flag: a reader of live data drops disabled
// records before it calls NewLive (an RRset whose records are all disabled
// is then no RRset at all).
//
// # Sets, Diff and Plan
//
// A Set holds one zone's RRsets by Key. Diff compares a desired and a live
// Set for one writer (RRset.ManagedBy) and returns a Plan: deletes first,
// then creates and updates, by name then type. Only RRsets the writer owns
// are ever deleted; keys held by another writer or by nobody still get an
// update, marked by Change.ChangesOwner, for package conflict to judge. See
// Diff for the exact rules. Plan.String renders a plan like a terraform
// plan; its JSON encoding is stable.
package rrset
