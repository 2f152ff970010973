package rrset

import (
	"net/netip"
	"strconv"
	"strings"
)

// The identifier-locator records of RFC 6742 (NID, L32, L64, LP) and the
// EUI48 and EUI64 addresses of RFC 7043.

// canonNodeID is NID and L64: a preference and 64 bits in four groups of
// hexadecimal, which PowerDNS prints with four upper-case digits a group.
func canonNodeID(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"preference"}, 16)
	if p != nil {
		return nil, p
	}
	id, p := lastField(rest, "identifier")
	if p != nil {
		return nil, p
	}
	groups := 0
	for i := 0; i <= len(id); i++ {
		j := i
		for j < len(id) && id[j] != ':' {
			j++
		}
		g := id[i:j]
		if len(g) == 0 || len(g) > 4 || !isHex(g) {
			return nil, invalid("identifier " + strconv.Quote(id) + " is not four groups of 1 to 4 hexadecimal digits")
		}
		if groups++; groups > 4 {
			return nil, invalid("identifier " + strconv.Quote(id) + " has more than four groups")
		}
		if groups > 1 {
			dst = append(dst, ':')
		}
		for k := len(g); k < 4; k++ {
			dst = append(dst, '0')
		}
		dst = append(dst, strings.ToUpper(g)...)
		i = j
	}
	if groups != 4 {
		return nil, invalid("identifier " + strconv.Quote(id) + " has fewer than four groups")
	}
	return dst, nil
}

// canonL32 is L32: a preference and an IPv4 locator.
func canonL32(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"preference"}, 16)
	if p != nil {
		return nil, p
	}
	f, p := lastField(rest, "locator")
	if p != nil {
		return nil, p
	}
	ip, err := netip.ParseAddr(f)
	if err != nil || !ip.Is4() {
		return nil, invalid("locator " + strconv.Quote(f) + " is not an IPv4 address")
	}
	return ip.AppendTo(dst), nil
}

// canonEUI is EUI48 (n = 6) and EUI64 (n = 8): octets in hexadecimal
// joined by '-', which PowerDNS prints with two lower-case digits each.
func canonEUI(dst []byte, s string, n int) ([]byte, *contentProblem) {
	octets := 0
	for i := 0; i <= len(s); i++ {
		j := i
		for j < len(s) && s[j] != '-' {
			j++
		}
		g := s[i:j]
		if len(g) == 0 || len(g) > 2 || !isHex(g) {
			return nil, invalid(strconv.Quote(s) + " is not " + strconv.Itoa(n) + " octets in hexadecimal joined by '-'")
		}
		if octets++; octets > n {
			return nil, invalid(strconv.Quote(s) + " has more than " + strconv.Itoa(n) + " octets")
		}
		if octets > 1 {
			dst = append(dst, '-')
		}
		if len(g) == 1 {
			dst = append(dst, '0')
		}
		for k := 0; k < len(g); k++ {
			c := g[k]
			if 'A' <= c && c <= 'F' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		i = j
	}
	if octets != n {
		return nil, invalid(strconv.Quote(s) + " has fewer than " + strconv.Itoa(n) + " octets")
	}
	return dst, nil
}

func canonEUI48(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	return canonEUI(dst, s, 6)
}

func canonEUI64(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	return canonEUI(dst, s, 8)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}
