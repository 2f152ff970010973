package rrset

import "strings"

// compareKeys orders keys by name, in DNSSEC order, then by type.
func compareKeys(a, b Key) int {
	if c := compareNames(a.Name, b.Name); c != 0 {
		return c
	}
	return compareTypes(a.Type, b.Type)
}

// compareTypes orders type mnemonics alphabetically, which reads better in
// a plan than the order of type numbers.
func compareTypes(a, b string) int { return strings.Compare(a, b) }

// compareNames orders canonical absolute names as RFC 4034 §6.1 does: label
// by label from the right, a name before the names below it. Labels are
// compared in their canonical text, which is deterministic though not
// exactly octet order for escaped octets.
func compareNames(a, b string) int {
	if a == b {
		return 0
	}
	a = strings.TrimSuffix(a, ".")
	b = strings.TrimSuffix(b, ".")
	for {
		switch {
		case a == "" && b == "":
			return 0
		case a == "":
			return -1
		case b == "":
			return 1
		}
		la, ra := lastLabel(a)
		lb, rb := lastLabel(b)
		if c := strings.Compare(la, lb); c != 0 {
			return c
		}
		a, b = ra, rb
	}
}

// lastLabel splits a canonical name without its trailing dot into its last
// label and what precedes it.
func lastLabel(s string) (label, rest string) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' && isSeparator(s, i) {
			return s[i+1:], s[:i]
		}
	}
	return s, ""
}
