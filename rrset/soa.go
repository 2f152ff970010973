package rrset

import "strings"

// SOASerialRewritten reports whether PowerDNS replaces the serial of an SOA
// written through its API into a zone with these settings. They are the
// zone's soa_edit_api and soa_edit, as GET /zones/{zone} returns them (zones
// created through the API get soa_edit_api "DEFAULT"). Measured on 4.7,
// 4.9 and 5.1: DEFAULT, INCREASE, EPOCH and SOA-EDIT-INCREASE rewrite the
// serial of every SOA written, in any case; SOA-EDIT rewrites it as the
// zone's soa_edit says, which may leave it (NONE, or an INCEPTION kind with
// a serial already past the inception), so it counts as rewriting unless
// soa_edit is empty or NONE; "", OFF and values PowerDNS does not know
// leave the serial as written.
//
// Where the serial is rewritten, a desired SOA never reads back equal: a
// reconciler compares it with EqualIgnoringSerial instead.
func SOASerialRewritten(soaEditAPI, soaEdit string) bool {
	switch strings.ToUpper(strings.TrimSpace(soaEditAPI)) {
	case "DEFAULT", "INCREASE", "EPOCH", "SOA-EDIT-INCREASE":
		return true
	case "SOA-EDIT":
		e := strings.ToUpper(strings.TrimSpace(soaEdit))
		return e != "" && e != "NONE"
	}
	return false
}

// EqualIgnoringSerial reports whether a and b are the same SOA RRset but
// for the serial: same name and TTL, one record each, and the same primary
// server, mailbox, refresh, retry, expire and minimum. It is false when
// either is not an SOA RRset of one record. Both are expected canonical (New
// or NewLive); ownership (ManagedBy) is not compared.
func EqualIgnoringSerial(a, b RRset) bool {
	if a.Name != b.Name || a.Type != "SOA" || b.Type != "SOA" || a.TTL != b.TTL ||
		len(a.Records) != 1 || len(b.Records) != 1 {
		return false
	}
	x, okA := withoutSerial(a.Records[0])
	y, okB := withoutSerial(b.Records[0])
	return okA && okB && x == y
}

// withoutSerial returns a canonical SOA content with its serial cut out:
// "mname rname refresh retry expire minimum".
func withoutSerial(content string) ([2]string, bool) {
	f := strings.Fields(content)
	if len(f) != 7 {
		return [2]string{}, false
	}
	return [2]string{f[0] + " " + f[1], strings.Join(f[3:], " ")}, true
}
