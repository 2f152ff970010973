package rrset

import (
	"slices"
	"strconv"
	"strings"
)

// canonCSYNC is CSYNC (RFC 7477): SOA serial, flags, and the types to
// synchronise, which PowerDNS prints once each, in the order of their
// numbers, by the names it gives them (TYPEnnn for the others).
func canonCSYNC(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"serial", "flags"}, 32, 16)
	if p != nil {
		return nil, p
	}
	dst = dst[:len(dst)-1]
	var types []uint16
	for rest != "" {
		var f string
		f, rest = cutField(rest)
		n, p := pdnsTypeNumber(f)
		if p != nil {
			return nil, p
		}
		types = append(types, n)
	}
	slices.Sort(types)
	for _, n := range slices.Compact(types) {
		dst = append(dst, ' ')
		dst = append(dst, pdnsTypeName(n)...)
	}
	return dst, nil
}

// pdnsTypeNumbers are the numbers of the types PowerDNS names.
var pdnsTypeNumbers = func() map[string]uint16 {
	m := make(map[string]uint16, len(pdnsTypeNames))
	for n, name := range pdnsTypeNames {
		m[name] = n
	}
	return m
}()

// since51Numbers are the numbers of the types only 5.1 names.
var since51Numbers = func() map[string]uint16 {
	m := make(map[string]uint16, len(namedSince51))
	for n, name := range namedSince51 {
		m[name] = n
	}
	return m
}()

// pdnsTypeNumber reads a type as PowerDNS does inside a content: one of
// its names, in any case, or TYPEnnn. Types only 5.1 names are refused,
// since 4.x and 5.1 print them differently.
func pdnsTypeNumber(f string) (uint16, *contentProblem) {
	up := strings.ToUpper(f)
	n, ok := pdnsTypeNumbers[up]
	if !ok {
		n, ok = since51Numbers[up]
	}
	if !ok {
		digits, generic := strings.CutPrefix(up, "TYPE")
		v, err := strconv.ParseUint(digits, 10, 16)
		if !generic || digits == "" || !isDecimal(digits) || err != nil {
			return 0, invalid("type " + strconv.Quote(f) + " is neither a type PowerDNS names nor TYPEnnn")
		}
		n = uint16(v)
	}
	if name, ok := namedSince51[n]; ok {
		return 0, unsupported("type " + name + ", which PowerDNS 5.1 names and 4.x prints as TYPE" + strconv.Itoa(int(n)))
	}
	if n == 0 {
		return 0, invalid("type 0")
	}
	return n, nil
}

// pdnsTypeName is the name PowerDNS prints for a type number.
func pdnsTypeName(n uint16) string {
	if name, ok := pdnsTypeNames[n]; ok {
		return name
	}
	return "TYPE" + strconv.Itoa(int(n))
}
