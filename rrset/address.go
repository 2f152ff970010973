package rrset

import (
	"net/netip"
	"strconv"
)

func canonA(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	if isDottedQuad(s) {
		return append(dst, s...), nil // already canonical: skip parsing and printing
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return nil, &contentProblem{reason: ReasonInvalidContent, err: err}
	}
	if !ip.Is4() {
		return nil, invalid("not an IPv4 address")
	}
	return ip.AppendTo(dst), nil
}

func canonAAAA(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return nil, &contentProblem{reason: ReasonInvalidContent, err: err}
	}
	if !ip.Is6() {
		return nil, invalid("an IPv4 address, not an IPv6 address")
	}
	if ip.Zone() != "" {
		return nil, invalid("an IPv6 address with a zone index")
	}
	return appendIPv6Hex(dst, ip), nil
}

// isDottedQuad reports whether s is an IPv4 address in canonical form:
// four decimal octets without leading zeros.
func isDottedQuad(s string) bool {
	octets, v, digits := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || v > 255 {
				return false
			}
			octets++
			v, digits = 0, 0
			continue
		}
		c := s[i]
		if !isDigit(c) || (digits == 1 && v == 0) || digits == 3 {
			return false
		}
		v = v*10 + int(c-'0')
		digits++
	}
	return octets == 4
}

// appendIPv6Hex appends an IPv6 address in the compressed lower-case form of
// RFC 5952, always in hexadecimal: PowerDNS 4.x refuses an AAAA content with
// a dot in it, though it prints IPv4-mapped and IPv4-compatible addresses in
// dotted form (which reads back to the same address).
func appendIPv6Hex(dst []byte, ip netip.Addr) []byte {
	if !ip.Is4In6() {
		return ip.AppendTo(dst)
	}
	a := ip.As16()
	dst = append(dst, "::ffff:"...)
	if a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] == 0 {
		return append(dst, "0:0"...)
	}
	dst = strconv.AppendUint(dst, uint64(a[12])<<8|uint64(a[13]), 16)
	dst = append(dst, ':')
	return strconv.AppendUint(dst, uint64(a[14])<<8|uint64(a[15]), 16)
}

// appendIPv6Dotted appends an IPv6 address as glibc's inet_ntop prints it,
// which is how PowerDNS prints SVCB ipv6hint values and how its API wants
// them back: IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d)
// addresses in dotted form, all others as RFC 5952.
func appendIPv6Dotted(dst []byte, ip netip.Addr) []byte {
	a := ip.As16()
	if ip.Is4In6() {
		dst = append(dst, "::ffff:"...)
		return netip.AddrFrom4([4]byte(a[12:])).AppendTo(dst)
	}
	for _, b := range a[:12] {
		if b != 0 {
			return ip.AppendTo(dst)
		}
	}
	if a[12] == 0 && a[13] == 0 {
		return ip.AppendTo(dst) // "::" and "::x" stay hexadecimal
	}
	dst = append(dst, "::"...)
	return netip.AddrFrom4([4]byte(a[12:])).AppendTo(dst)
}
