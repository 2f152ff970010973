package rrset

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// canonCtx carries what a content canonicaliser needs besides the content.
type canonCtx struct {
	zone zoneName
	// strict refuses what PowerDNS cannot store unchanged (New); without it
	// such data is still brought into canonical form (NewLive).
	strict bool
	// buf is scratch space for decoded character-strings. It is never
	// grown in place, so that it can live on the caller's stack: a longer
	// string takes its own allocation.
	buf []byte
}

// contentProblem is what a canonicaliser found wrong with one content.
type contentProblem struct {
	reason Reason
	detail string
	err    error
}

func invalid(detail string) *contentProblem {
	return &contentProblem{reason: ReasonInvalidContent, detail: detail}
}

func unsupported(detail string) *contentProblem {
	return &contentProblem{reason: ReasonUnsupported, detail: detail}
}

// cutField splits s at its first run of blanks.
func cutField(s string) (field, rest string) {
	i := 0
	for i < len(s) && !isBlank(s[i]) {
		i++
	}
	return s[:i], s[skipBlanks(s, i):]
}

// appendUint appends the decimal field s, which must fit in bits. Leading
// zeros are accepted and dropped, as PowerDNS reads numbers in decimal.
func appendUint(dst []byte, s string, bits int, what string) ([]byte, uint64, *contentProblem) {
	if s == "" {
		return nil, 0, invalid("missing " + what)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return nil, 0, invalid(what + " " + strconv.Quote(s) + " is not a decimal number")
		}
		v = v*10 + uint64(s[i]-'0')
		if v >= 1<<bits {
			return nil, 0, invalid(what + " " + strconv.Quote(s) + " is over " + strconv.FormatUint(1<<bits-1, 10))
		}
	}
	return strconv.AppendUint(dst, v, 10), v, nil
}

// appendUints appends the leading decimal fields of s, one per entry of
// bits, each followed by a space, and returns the rest of s.
func appendUints(dst []byte, s string, what []string, bits ...int) ([]byte, string, *contentProblem) {
	for i, b := range bits {
		var f string
		f, s = cutField(s)
		var p *contentProblem
		if dst, _, p = appendUint(dst, f, b, what[i]); p != nil {
			return nil, "", p
		}
		dst = append(dst, ' ')
	}
	return dst, s, nil
}

// appendTarget appends a name found inside a content.
func (c *canonCtx) appendTarget(dst []byte, s string) ([]byte, *contentProblem) {
	t, err := c.zone.canonicalTarget(s)
	if err != nil {
		return nil, &contentProblem{reason: ReasonInvalidTarget, err: err}
	}
	if c.strict && !portableTarget(t) {
		return nil, unsupported("name " + strconv.Quote(t) + ` holds a blank, '"', '(', ')', ';', '.' or '\' in a label` +
			", which PowerDNS 5.1 refuses or rewrites inside contents")
	}
	return append(dst, t...), nil
}

// appendHost appends the host name of an NS, MX or SRV content; root
// allows "." (a null MX or SRV, RFC 7505 and RFC 2782).
func (c *canonCtx) appendHost(dst []byte, s string, root bool) ([]byte, *contentProblem) {
	t, err := c.zone.canonicalTarget(s)
	if err != nil {
		return nil, &contentProblem{reason: ReasonInvalidTarget, err: err}
	}
	if c.strict && !isHostname(t) && (t != "." || !root) {
		return nil, unsupported("target " + strconv.Quote(t) + " is not a host name (letters, digits and '-' inside labels)" +
			", which PowerDNS refuses for NS, MX and SRV")
	}
	return append(dst, t...), nil
}

// lastField returns s, the last field of a content, refusing anything
// after it.
func lastField(s string, what string) (string, *contentProblem) {
	f, rest := cutField(s)
	if f == "" {
		return "", invalid("missing " + what)
	}
	if rest != "" {
		return "", invalid("unexpected " + strconv.Quote(rest) + " after " + what)
	}
	return f, nil
}

// lastTarget appends s, the last field of a content, as a name.
func (c *canonCtx) lastTarget(dst []byte, s string, what string) ([]byte, *contentProblem) {
	f, p := lastField(s, what)
	if p != nil {
		return nil, p
	}
	return c.appendTarget(dst, f)
}

// canonTarget is CNAME, ALIAS, DNAME and PTR: one name.
func canonTarget(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	return c.lastTarget(dst, s, "target")
}

// canonNS is NS: one host name.
func canonNS(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	f, p := lastField(s, "target")
	if p != nil {
		return nil, p
	}
	return c.appendHost(dst, f, false)
}

func canonMX(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"preference"}, 16)
	if p != nil {
		return nil, p
	}
	f, p := lastField(rest, "exchange")
	if p != nil {
		return nil, p
	}
	return c.appendHost(dst, f, true)
}

func canonSRV(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"priority", "weight", "port"}, 16, 16, 16)
	if p != nil {
		return nil, p
	}
	f, p := lastField(rest, "target")
	if p != nil {
		return nil, p
	}
	return c.appendHost(dst, f, true)
}

func canonRP(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	mbox, rest := cutField(s)
	dst, p := c.appendTarget(dst, mbox)
	if p != nil {
		return nil, p
	}
	return c.lastTarget(append(dst, ' '), rest, "text name")
}

func canonSOA(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	var p *contentProblem
	for _, what := range []string{"primary name server", "mailbox"} {
		var f string
		f, s = cutField(s)
		if f == "" {
			return nil, invalid("missing " + what)
		}
		if dst, p = c.appendTarget(dst, f); p != nil {
			return nil, p
		}
		dst = append(dst, ' ')
	}
	dst, s, p = appendUints(dst, s, []string{"serial", "refresh", "retry", "expire", "minimum"}, 32, 32, 32, 32, 32)
	if p != nil {
		return nil, p
	}
	if s != "" {
		return nil, invalid("unexpected " + strconv.Quote(s) + " after minimum")
	}
	return dst[:len(dst)-1], nil
}

// canonDS is DS and CDS.
func canonDS(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"key tag", "algorithm", "digest type"}, 16, 8, 8)
	if p != nil {
		return nil, p
	}
	return appendHex(dst, rest, "digest")
}

// canonTLSA is TLSA and SMIMEA.
func canonTLSA(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"usage", "selector", "matching type"}, 8, 8, 8)
	if p != nil {
		return nil, p
	}
	return appendHex(dst, rest, "certificate data")
}

func canonSSHFP(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"algorithm", "fingerprint type"}, 8, 8)
	if p != nil {
		return nil, p
	}
	return appendHex(dst, rest, "fingerprint")
}

// canonDNSKEY is DNSKEY and CDNSKEY.
func canonDNSKEY(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"flags", "protocol", "algorithm"}, 16, 8, 8)
	if p != nil {
		return nil, p
	}
	return appendBase64(dst, rest, "public key")
}

// appendHex appends hexadecimal data, which may be cut by blanks, in lower
// case and in one piece, as PowerDNS prints it.
func appendHex(dst []byte, s string, what string) ([]byte, *contentProblem) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isBlank(c):
			continue
		case isDigit(c) || ('a' <= c && c <= 'f'):
		case 'A' <= c && c <= 'F':
			c += 'a' - 'A'
		default:
			return nil, invalid(what + " is not hexadecimal")
		}
		dst = append(dst, c)
		n++
	}
	if n == 0 {
		return nil, invalid("missing " + what)
	}
	if n%2 != 0 {
		return nil, invalid(what + " has an odd number of hexadecimal digits")
	}
	return dst, nil
}

// appendBase64 appends base64 data, which may be cut by blanks, re-encoded
// in one piece with padding, as PowerDNS prints it.
func appendBase64(dst []byte, s string, what string) ([]byte, *contentProblem) {
	if strings.ContainsAny(s, " \t") {
		s = strings.NewReplacer(" ", "", "\t", "").Replace(s)
	}
	if s == "" {
		return nil, invalid("missing " + what)
	}
	raw, err := base64.StdEncoding.AppendDecode(nil, []byte(s))
	if err != nil || len(raw) == 0 {
		return nil, invalid(what + " is not base64")
	}
	return base64.StdEncoding.AppendEncode(dst, raw), nil
}

// canonPrefTarget is AFSDB (subtype), KX and LP (preference): a number and
// a name. PowerDNS requires no host name of them, unlike MX.
func canonPrefTarget(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"preference"}, 16)
	if p != nil {
		return nil, p
	}
	return c.lastTarget(dst, rest, "name")
}
