package rrset

import (
	"net/netip"
	"strconv"
	"strings"
)

// canonAPL is APL (RFC 3123): items "[!]1:192.0.2.0/24" or
// "[!]2:2001:db8::/32", in the order given, joined by one blank. PowerDNS
// keeps only the network of an item (192.0.2.1/24 reads back as
// 192.0.2.0/24), so New refuses host bits; IPv6 networks are printed as
// glibc prints them.
func canonAPL(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	for first := true; s != ""; first = false {
		var item string
		item, s = cutField(s)
		if !first {
			dst = append(dst, ' ')
		}
		body := item
		if strings.HasPrefix(body, "!") {
			dst = append(dst, '!')
			body = body[1:]
		}
		family, prefix, ok := strings.Cut(body, ":")
		if !ok {
			return nil, invalid("item " + strconv.Quote(item) + " has no address family")
		}
		network, err := netip.ParsePrefix(prefix)
		if err != nil {
			return nil, invalid("item " + strconv.Quote(item) + " is not [!]family:address/prefix")
		}
		addr := network.Addr()
		switch family {
		case "1":
			if !addr.Is4() {
				return nil, invalid("item " + strconv.Quote(item) + ": family 1 holds IPv4 addresses")
			}
		case "2":
			if !addr.Is6() || addr.Zone() != "" {
				return nil, invalid("item " + strconv.Quote(item) + ": family 2 holds IPv6 addresses")
			}
		default:
			return nil, invalid("item " + strconv.Quote(item) + ": address family " + strconv.Quote(family) + " is neither 1 (IPv4) nor 2 (IPv6)")
		}
		if masked := network.Masked(); masked != network {
			if c.strict {
				return nil, unsupported("item " + strconv.Quote(item) + " has host bits, which PowerDNS drops (" + masked.String() + ")")
			}
			network = masked
		}
		dst = append(dst, family...)
		dst = append(dst, ':')
		if family == "1" {
			dst = network.Addr().AppendTo(dst)
		} else {
			dst = appendIPv6Dotted(dst, network.Addr())
		}
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(network.Bits()), 10)
	}
	return dst, nil
}
