package rrset

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// Keys, certificates and digests that PowerDNS prints as numbers and base64
// or hexadecimal in one piece: CERT, OPENPGPKEY, DHCID, IPSECKEY, ZONEMD
// (RKEY is DNSKEY's form). Base64 is re-encoded with padding, hexadecimal
// in lower case, as PowerDNS prints them.

// certTypes are the mnemonics of RFC 4398 §2.1 for CERT's type field;
// PowerDNS reads and prints only numbers, here and for the algorithm
// (RSASHA256 is 8).
var certTypes = map[string]string{
	"PKIX": "1", "SPKI": "2", "PGP": "3", "IPKIX": "4", "ISPKI": "5", "IPGP": "6",
	"ACPKIX": "7", "IACPKIX": "8", "URI": "253", "OID": "254",
}

// canonCERT is CERT: type, key tag, algorithm, certificate in base64.
func canonCERT(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	typ, rest := cutField(s)
	if n, ok := certTypes[strings.ToUpper(typ)]; ok {
		typ = n
	} else if n, ok := dns.StringToCertType[strings.ToUpper(typ)]; ok {
		typ = strconv.Itoa(int(n)) // miekg/dns's spellings (IPIX)
	}
	dst, v, p := appendUint(dst, typ, 16, "certificate type")
	if p != nil {
		return nil, p
	}
	if v == 0 {
		return nil, invalid("certificate type 0 is reserved")
	}
	dst = append(dst, ' ')
	dst, rest, p = appendUints(dst, rest, []string{"key tag"}, 16)
	if p != nil {
		return nil, p
	}
	alg, rest := cutField(rest)
	if n, ok := dns.StringToAlgorithm[strings.ToUpper(alg)]; ok {
		alg = strconv.Itoa(int(n))
	}
	if dst, _, p = appendUint(dst, alg, 8, "algorithm"); p != nil {
		return nil, p
	}
	return appendBase64(append(dst, ' '), rest, "certificate")
}

// canonBase64 is OPENPGPKEY and DHCID: base64 data alone.
func canonBase64(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	return appendBase64(dst, s, "data")
}

// canonZONEMD is ZONEMD: serial, scheme, hash algorithm, digest in
// hexadecimal.
func canonZONEMD(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"serial", "scheme", "hash algorithm"}, 32, 8, 8)
	if p != nil {
		return nil, p
	}
	return appendHex(dst, rest, "digest")
}

// canonIPSECKEY is IPSECKEY (RFC 4025): precedence, gateway type,
// algorithm, gateway, public key. PowerDNS reads a gateway only for
// gateway types 1 (IPv4), 2 (IPv6) and 3 (a name), and a key only for
// algorithms 1 (DSA) and 2 (RSA), and prints nothing in their place
// otherwise: the "." that RFC 4025 writes for "no gateway" is dropped.
// IPv6 gateways are printed as glibc prints them.
func canonIPSECKEY(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	precedence, rest := cutField(s)
	gwType, rest := cutField(rest)
	alg, rest := cutField(rest)
	var p *contentProblem
	for i, f := range []struct{ v, what string }{{precedence, "precedence"}, {gwType, "gateway type"}, {alg, "algorithm"}} {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if dst, _, p = appendUint(dst, f.v, 8, f.what); p != nil {
			return nil, p
		}
	}
	gwType, alg = strings.TrimLeft(gwType, "0"), strings.TrimLeft(alg, "0")
	after := rest
	gw, rest := cutField(rest)
	switch gwType {
	case "":
		if gw != "." {
			rest = after // no gateway written: the key follows at once
		}
	case "1":
		ip, err := netip.ParseAddr(gw)
		if err != nil || !ip.Is4() {
			return nil, invalid("gateway " + strconv.Quote(gw) + " is not an IPv4 address")
		}
		dst = ip.AppendTo(append(dst, ' '))
	case "2":
		ip, err := netip.ParseAddr(gw)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return nil, invalid("gateway " + strconv.Quote(gw) + " is not an IPv6 address")
		}
		dst = appendIPv6Dotted(append(dst, ' '), ip)
	case "3":
		if gw == "" {
			return nil, invalid("missing gateway")
		}
		if dst, p = c.appendTarget(append(dst, ' '), gw); p != nil {
			return nil, p
		}
	default:
		return nil, invalid("gateway type " + gwType + " is none of 0 (none), 1 (IPv4), 2 (IPv6), 3 (name)")
	}
	switch alg {
	case "":
		if rest != "" {
			return nil, invalid("a public key with algorithm 0 (none)")
		}
		return dst, nil
	case "1", "2":
		return appendBase64(append(dst, ' '), rest, "public key")
	default:
		return nil, unsupported("algorithm " + alg + ": PowerDNS reads IPSECKEY algorithms 0 (none), 1 (DSA) and 2 (RSA) only")
	}
}
