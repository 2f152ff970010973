package rrset

import (
	"strconv"
	"strings"
)

// RFC 3597 generic data: "TYPE65420" with content "\# 2 4142", the length
// of the data in octets and the data in hexadecimal. PowerDNS 4.7, 4.9 and
// 5.1 store it for every type they have no name for, and print such a type
// as TYPEnnn; a type they name has a parser of its own, which refuses the
// generic form ("TYPE1 \# 4 c0000201" is refused as an address that does
// not parse), or is a type no zone holds (TKEY, AXFR, ANY).

// pdnsTypeNames are the types PowerDNS names, by number: QType::names of
// 4.7 and 4.9; 5.1 adds those of namedSince51. Measured by
// writing "TYPEnnn \# 2 4142" for every type from 0 to 300 and a sample
// above to each version: the types below were refused or printed by name,
// every other type was stored and printed back as written.
var pdnsTypeNames = map[uint16]string{
	1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 7: "MB", 8: "MG", 9: "MR",
	12: "PTR", 13: "HINFO", 14: "MINFO", 15: "MX", 16: "TXT", 17: "RP",
	18: "AFSDB", 24: "SIG", 25: "KEY", 28: "AAAA", 29: "LOC", 33: "SRV",
	35: "NAPTR", 36: "KX", 37: "CERT", 38: "A6", 39: "DNAME", 41: "OPT",
	42: "APL", 43: "DS", 44: "SSHFP", 45: "IPSECKEY", 46: "RRSIG",
	47: "NSEC", 48: "DNSKEY", 49: "DHCID", 50: "NSEC3", 51: "NSEC3PARAM",
	52: "TLSA", 53: "SMIMEA", 57: "RKEY", 59: "CDS", 60: "CDNSKEY",
	61: "OPENPGPKEY", 62: "CSYNC", 63: "ZONEMD", 64: "SVCB", 65: "HTTPS",
	99: "SPF", 104: "NID", 105: "L32", 106: "L64", 107: "LP", 108: "EUI48",
	109: "EUI64", 249: "TKEY", 250: "TSIG", 251: "IXFR", 252: "AXFR",
	253: "MAILB", 254: "MAILA", 255: "ANY", 256: "URI", 257: "CAA",
	32769: "DLV", 65400: "ADDR", 65401: "ALIAS", 65402: "LUA",
}

// namedSince51 are the types 5.1 names, and parses, and 4.x prints as
// TYPEnnn: no one spelling of them reads back equal from every version.
var namedSince51 = map[uint16]string{67: "HHIT", 68: "BRID", 261: "RESINFO", 262: "WALLET"}

// genericType returns the canonical spelling of TYPEnnn ("type065420" ->
// "TYPE65420") and whether RFC 3597 data of that type is stored unchanged
// by every supported PowerDNS version: a type none of them names. up is
// upper case.
func genericType(up string) (string, bool) {
	n, ok := strings.CutPrefix(up, "TYPE")
	if !ok || n == "" || !isDecimal(n) {
		return "", false
	}
	v, err := strconv.ParseUint(n, 10, 16)
	if err != nil || v == 0 {
		return "", false
	}
	if _, named := pdnsTypeNames[uint16(v)]; named {
		return "", false
	}
	if _, named := namedSince51[uint16(v)]; named {
		return "", false
	}
	return "TYPE" + strconv.FormatUint(v, 10), true
}

// canonGeneric is RFC 3597 data: "\# length hex", the hexadecimal in lower
// case and in one piece (PowerDNS refuses it cut by blanks), the length in
// decimal without leading zeros, as PowerDNS prints it; "\# 0" holds no
// data.
func canonGeneric(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	marker, rest := cutField(s)
	if marker != `\#` {
		return nil, invalid(`RFC 3597 data must start with \#`)
	}
	length, rest := cutField(rest)
	dst = append(dst, `\# `...)
	dst, n, p := appendUint(dst, length, 16, "data length")
	if p != nil {
		return nil, p
	}
	if n == 0 {
		if rest != "" {
			return nil, invalid("data after a length of 0")
		}
		return dst, nil
	}
	dst = append(dst, ' ')
	start := len(dst)
	if dst, p = appendHex(dst, rest, "data"); p != nil {
		return nil, p
	}
	if got := uint64(len(dst)-start) / 2; got != n {
		return nil, invalid("data length " + strconv.FormatUint(n, 10) + " but " + strconv.FormatUint(got, 10) + " octets of data")
	}
	return dst, nil
}

// genericLen returns the data length of canonical RFC 3597 content.
func genericLen(content string) int {
	length, _ := cutField(strings.TrimPrefix(content, `\# `))
	n, _ := strconv.Atoi(length)
	return n
}
