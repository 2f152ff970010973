package rrset

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Limits of RFC 1035 §2.3.4, in octets of the wire form.
const (
	maxLabelLen = 63
	maxNameLen  = 255
)

// CanonicalZone returns the canonical spelling of a zone name: absolute,
// lower case, with a trailing dot ("Example.COM" -> "example.com."). A zone
// is always absolute, with or without its trailing dot. The root zone is ".".
// It is idempotent.
//
// It refuses, with a *NameError, a zone that is not a valid name, and, with
// ReasonUnsupported, a valid name that PowerDNS's API cannot hold as a
// zone: one with characters other than letters, digits, '-', '_' and '/'
// (PowerDNS 4.7 to 5.1 refuse to create such a zone and refuse every RRset
// name inside one, "Name '…' contains unsupported characters"). RFC 2317
// classless reverse zones such as "0/26.2.0.192.in-addr.arpa" pass.
func CanonicalZone(zone string) (string, error) {
	z, err := parseZone(zone)
	if err != nil {
		return "", err
	}
	return z.text, nil
}

// CanonicalName returns the canonical spelling of an owner name in zone:
// absolute, lower case, with a trailing dot, internationalised labels as
// A-labels, and escapes as PowerDNS prints them. It is idempotent, and every
// spelling of one name gives the same result:
//
//   - "@" and "" are the zone apex.
//   - A name with a trailing dot is absolute; it must be the apex or below it.
//   - A name without a trailing dot is relative to the zone, unless it
//     already ends, label by label, in the zone's name: then it is taken as
//     absolute. In zone example.com, "api" and "api.example.com" both mean
//     api.example.com., never api.example.com.example.com. (write that one
//     with its trailing dot). "notexample.com" does not end in example.com.
//   - Case does not matter; "\." inside a label is a literal dot and \DDD an
//     octet, as in zone files (RFC 1035 §5.1); "*" and "_" are ordinary
//     characters, so wildcards and labels such as _acme-challenge pass.
//   - A label holding non-ASCII characters is an internationalised label and
//     becomes its A-label ("bücher" -> "xn--bcher-kva", UTS #46 mapping,
//     non-transitional).
//
// CanonicalName reads names as a zone file does. A hostname from a
// Kubernetes object (a Gateway listener, an HTTPRoute, a DNSEndpoint) is
// absolute with or without its trailing dot: read it with Hostname, which
// refuses "other.example.org" where CanonicalName gives
// other.example.org.example.com.
//
// It refuses, with a *NameError naming the input and the reason: a name out
// of the zone, an empty label ("a..b"), a label over 63 octets, a name over
// 255 octets, a space or control character written literally, an invalid
// escape, an invalid internationalised label, and a zone that is not a valid
// name.
func CanonicalName(zone, name string) (string, error) {
	z, err := parseZone(zone)
	if err != nil {
		return "", &NameError{Zone: zone, Name: name, Reason: ReasonInvalidZone, Err: err}
	}
	return z.canonical(name)
}

// RelativeName returns name relative to zone: the apex is "@", a name below
// it loses the zone's labels ("api.example.com." -> "api"). Any spelling
// CanonicalName accepts is accepted. It inverts CanonicalName,
// CanonicalName(zone, RelativeName(zone, n)) == CanonicalName(zone, n), and
// is idempotent. When the relative spelling would read back as another name
// (a relative part that itself ends in the zone's labels, or a single label
// "@"), it returns the absolute name with its trailing dot instead.
func RelativeName(zone, name string) (string, error) {
	z, err := parseZone(zone)
	if err != nil {
		return "", &NameError{Zone: zone, Name: name, Reason: ReasonInvalidZone, Err: err}
	}
	c, err := z.canonical(name)
	if err != nil {
		return "", err
	}
	if c == z.text {
		return "@", nil
	}
	var rel string
	if z.text == "." {
		rel = c[:len(c)-1]
	} else {
		rel = c[:len(c)-len(z.text)-1]
	}
	// In the root zone every relative name also reads as absolute, and
	// means the same name either way.
	if rel == "@" || (z.text != "." && endsIn(rel, z.text)) {
		return c, nil
	}
	return rel, nil
}

// zoneName is a parsed zone: its canonical text and wire length.
type zoneName struct {
	given string // as the caller wrote it, for error messages
	text  string // canonical, with trailing dot; "." for the root
	wire  int    // octets in wire form, root label included
}

func parseZone(zone string) (zoneName, error) {
	if zone == "" || zone == "@" {
		return zoneName{}, &NameError{Name: zone, Reason: ReasonEmptyName,
			Detail: "a zone needs a name; \"@\" and \"\" stand for the apex of one"}
	}
	var buf [maxNameLen + 1]byte
	b, _, wire, p := appendName(buf[:0], zone)
	if p != nil {
		return zoneName{}, p.nameError("", zone)
	}
	wire++ // root label
	if wire > maxNameLen {
		return zoneName{}, &NameError{Name: zone, Reason: ReasonNameTooLong, Detail: strconv.Itoa(wire) + " octets"}
	}
	b = append(b, '.')
	if !portableZone(b) {
		return zoneName{}, &NameError{Name: zone, Reason: ReasonUnsupported,
			Detail: "PowerDNS's API holds no zone whose name has characters other than letters, digits, '-', '_' and '/'"}
	}
	text := zone
	if string(b) != zone {
		text = string(b)
	}
	return zoneName{given: zone, text: text, wire: wire}, nil
}

// canonical implements CanonicalName for an already parsed zone.
func (z zoneName) canonical(name string) (string, error) {
	if name == "" || name == "@" {
		return z.text, nil
	}
	if isPlainCanonical(name) && inZone(name, z.text) {
		return name, nil
	}
	var buf [2*maxNameLen + 2]byte
	b, abs, wire, p := appendName(buf[:0], name)
	if p != nil {
		return "", p.nameError(z.given, name)
	}
	if abs {
		wire++
		b = append(b, '.')
		if !inZone(b, z.text) {
			return "", &NameError{Zone: z.given, Name: name, Reason: ReasonOutOfZone}
		}
	} else if endsIn(b, z.text) {
		wire++
		b = append(b, '.')
	} else {
		wire += z.wire
		b = append(b, '.')
		if z.text != "." {
			b = append(b, z.text...)
		}
	}
	if wire > maxNameLen {
		return "", &NameError{Zone: z.given, Name: name, Reason: ReasonNameTooLong, Detail: strconv.Itoa(wire) + " octets"}
	}
	if string(b) == name {
		return name, nil
	}
	return string(b), nil
}

// endsIn reports whether rel, a canonical name without its trailing dot,
// ends label by label in zone, a canonical zone (so that the rule of
// CanonicalName takes it as absolute).
func endsIn[T ~string | ~[]byte](rel T, zone string) bool {
	if zone == "." {
		return true
	}
	zone = zone[:len(zone)-1]
	if string(rel) == zone {
		return true
	}
	return len(rel) > len(zone) && string(rel[len(rel)-len(zone):]) == zone && isSeparator(rel, len(rel)-len(zone)-1)
}

// inZone reports whether the canonical absolute name c is zone or below it.
func inZone[T ~string | ~[]byte](c T, zone string) bool {
	if zone == "." || string(c) == zone {
		return true
	}
	return len(c) > len(zone) && string(c[len(c)-len(zone):]) == zone && isSeparator(c, len(c)-len(zone)-1)
}

// isSeparator reports whether s[i] is a dot between two labels rather than
// an escaped dot inside one. In canonical text a backslash only starts an
// escape, so an even run of backslashes before the dot leaves it bare.
func isSeparator[T ~string | ~[]byte](s T, i int) bool {
	if s[i] != '.' {
		return false
	}
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 0
}

// canonicalTarget canonicalises a name inside a record content. Such names
// are always absolute, as PowerDNS reads them, with or without the trailing
// dot; "@" is the zone's apex.
func (z zoneName) canonicalTarget(name string) (string, *NameError) {
	if name == "@" {
		return z.text, nil
	}
	if name == "." || isPlainCanonical(name) {
		return name, nil
	}
	var buf [maxNameLen + 2]byte
	b, _, wire, p := appendName(buf[:0], name)
	if p != nil {
		return "", p.nameError("", name)
	}
	if wire+1 > maxNameLen {
		return "", &NameError{Name: name, Reason: ReasonNameTooLong, Detail: strconv.Itoa(wire+1) + " octets"}
	}
	b = append(b, '.')
	if string(b) == name {
		return name, nil
	}
	return string(b), nil
}

// nameProblem is what appendName found wrong, before it is tied to a zone.
type nameProblem struct {
	reason Reason
	detail string
	err    error
}

func (p *nameProblem) nameError(zone, name string) *NameError {
	return &NameError{Zone: zone, Name: name, Reason: p.reason, Detail: p.detail, Err: p.err}
}

// appendName parses a name in presentation format and appends its canonical
// text to dst: labels lower case, escaped as PowerDNS prints them, joined by
// dots, without a trailing dot (the root gives nothing). It returns whether
// the name was absolute and the wire length of its labels, root excluded.
func appendName(dst []byte, s string) (out []byte, abs bool, wire int, p *nameProblem) {
	if s == "" {
		return dst, false, 0, &nameProblem{reason: ReasonEmptyName}
	}
	if s == "." {
		return dst, true, 0, nil
	}
	if b, abs, wire, ok := appendPlainName(dst, s); ok {
		return b, abs, wire, nil
	}
	start := len(dst)
	var raw [4 * maxNameLen]byte // one decoded label; long enough to report its length
	for i := 0; ; {
		// One label per iteration, up to an unescaped dot or the end.
		n := 0
		unicode := false
		for i < len(s) && s[i] != '.' {
			c := s[i]
			switch {
			case c == '\\':
				v, width, ok := unescape(s, i)
				if !ok {
					return dst, false, 0, &nameProblem{reason: ReasonInvalidEscape, detail: "at offset " + strconv.Itoa(i)}
				}
				c = v
				i += width
			case c <= ' ' || c == 0x7f:
				return dst, false, 0, &nameProblem{reason: ReasonInvalidCharacter, detail: strconv.QuoteRune(rune(c)) + " at offset " + strconv.Itoa(i)}
			case isC1(s, i):
				return dst, false, 0, &nameProblem{reason: ReasonInvalidCharacter, detail: strconv.QuoteRune(rune(s[i+1])) + " at offset " + strconv.Itoa(i)}
			default:
				if c >= utf8.RuneSelf {
					unicode = true
				}
				i++
			}
			if n < len(raw) {
				raw[n] = c
			}
			n++
		}
		if n == 0 {
			return dst, false, 0, &nameProblem{reason: ReasonEmptyLabel}
		}
		if n > len(raw) {
			// Even as an A-label, this many octets cannot fit in 63.
			return dst, false, 0, &nameProblem{reason: ReasonLabelTooLong, detail: strconv.Itoa(n) + " octets"}
		}
		label := raw[:n]
		if unicode {
			a, problem := toALabel(label)
			if problem != nil {
				return dst, false, 0, problem
			}
			label = append(raw[:0], a...)
			n = len(label)
		}
		if n > maxLabelLen {
			return dst, false, 0, &nameProblem{reason: ReasonLabelTooLong, detail: strconv.Itoa(n) + " octets"}
		}
		wire += 1 + n
		if wire > maxNameLen {
			return dst, false, 0, &nameProblem{reason: ReasonNameTooLong, detail: "over " + strconv.Itoa(maxNameLen) + " octets"}
		}
		if len(dst) > start {
			dst = append(dst, '.')
		}
		dst = appendLabel(dst, label)
		if i == len(s) {
			return dst, false, wire, nil
		}
		i++ // the dot
		if i == len(s) {
			return dst, true, wire, nil
		}
	}
}

// appendPlainName is the fast path of appendName for names made only of
// letters, digits, '-', '_', '*' and '/': no escapes, nothing to convert.
// It copies the name first and then checks and lowers it in place.
func appendPlainName(dst []byte, s string) ([]byte, bool, int, bool) {
	abs := s[len(s)-1] == '.'
	body := s
	if abs {
		body = s[:len(s)-1]
	}
	if len(body)+1 > maxNameLen {
		return dst, false, 0, false
	}
	start := len(dst)
	dst = append(dst, body...)
	b := dst[start:]
	labelLen := 0
	for i, c := range b {
		switch plainNameBytes[c] {
		case plainDot:
			if labelLen == 0 {
				return dst[:start], false, 0, false
			}
			labelLen = 0
			continue
		case plainUpper:
			b[i] = c + ('a' - 'A')
		case plainOther:
			return dst[:start], false, 0, false
		}
		if labelLen++; labelLen > maxLabelLen {
			return dst[:start], false, 0, false
		}
	}
	if labelLen == 0 {
		return dst[:start], false, 0, false
	}
	return dst, abs, len(body) + 1, true
}

// isPlainCanonical reports whether s is already a canonical absolute name
// made only of plain bytes, the common case, checked without copying it.
func isPlainCanonical(s string) bool {
	n := len(s)
	// The wire form of a plain absolute name is one octet longer.
	if n < 2 || n+1 > maxNameLen || s[n-1] != '.' {
		return false
	}
	start := 0
	for i := 0; i < n; i++ {
		c := s[i]
		if c == '.' {
			if i == start || i-start > maxLabelLen {
				return false
			}
			start = i + 1
		} else if !plainLower[c] {
			return false
		}
	}
	return true
}

// plainLower holds the bytes a canonical plain label is made of.
var plainLower = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isPlainNameByte(byte(c))
	}
	return t
}()

const (
	plainOther = iota
	plainByte
	plainUpper
	plainDot
)

// plainNameBytes classifies the bytes of names for appendPlainName.
var plainNameBytes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == '.':
			t[c] = plainDot
		case 'A' <= c && c <= 'Z':
			t[c] = plainUpper
		case isPlainNameByte(byte(c)):
			t[c] = plainByte
		}
	}
	return t
}()

func isPlainNameByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '-' || c == '_' || c == '*' || c == '/'
}

// unescape decodes the escape at s[i] ('\\'): \DDD (an octet, 0 to 255) or
// \X (the character X itself). It returns the octet and the escape's width.
func unescape(s string, i int) (byte, int, bool) {
	if i+1 >= len(s) {
		return 0, 0, false
	}
	c := s[i+1]
	if c < '0' || c > '9' {
		return c, 2, true
	}
	if i+3 >= len(s) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return 0, 0, false
	}
	v := int(c-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
	if v > 255 {
		return 0, 0, false
	}
	return byte(v), 4, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// toALabel converts a label holding non-ASCII characters to its A-label.
func toALabel(label []byte) (string, *nameProblem) {
	if !utf8.Valid(label) {
		return "", &nameProblem{reason: ReasonInvalidIDN, detail: "not UTF-8"}
	}
	a, err := idna.Lookup.ToASCII(string(label))
	if err != nil {
		return "", &nameProblem{reason: ReasonInvalidIDN, err: err}
	}
	// UTS #46 maps full stops such as U+3002 to '.', which would split
	// what the caller wrote as one label.
	if strings.IndexByte(a, '.') >= 0 || a == "" {
		return "", &nameProblem{reason: ReasonInvalidIDN, detail: "label maps to " + strconv.Quote(a)}
	}
	return a, nil
}

// appendLabel appends one label as PowerDNS prints it: ASCII letters lower
// case, '.' and '\' escaped with a backslash, printable ASCII as is, any
// other octet as \DDD.
func appendLabel(dst, label []byte) []byte {
	for _, c := range label {
		switch {
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+('a'-'A'))
		case c == '.' || c == '\\':
			dst = append(dst, '\\', c)
		case c > ' ' && c < 0x7f:
			dst = append(dst, c)
		default:
			dst = append(dst, '\\', '0'+c/100, '0'+c/10%10, '0'+c%10)
		}
	}
	return dst
}

// isC1 reports whether s holds, at i, a C1 control character (U+0080 to
// U+009F) in UTF-8: a control character like the ASCII ones, refused
// wherever they are. Written as \DDD escapes, the same octets are data.
func isC1(s string, i int) bool {
	return s[i] == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f
}

// portableZone reports whether PowerDNS's API can hold a zone of this
// canonical name (apiCheckNameAllowedCharacters, applied when a zone is
// created and to every RRset name written into it).
func portableZone[T ~string | ~[]byte](c T) bool {
	for i := 0; i < len(c); i++ {
		if ch := c[i]; ch != '.' && (ch == '*' || !isPlainNameByte(ch)) {
			return false
		}
	}
	return true
}

// portableName reports whether PowerDNS accepts a canonical name as an
// owner name. The API allows only letters, digits, '-', '_' and '/' in
// owner names, with "*" as a whole first label.
func portableName(c string) bool {
	if c == "." {
		return true
	}
	return portableZone(strings.TrimPrefix(c, "*."))
}

// portableTarget reports whether every supported PowerDNS version stores a
// canonical name inside a content (a CNAME, PTR, SOA, RP, NAPTR or SVCB
// target) unchanged. Measured byte by byte on 4.7, 4.9 and 5.1: 4.x keep
// every name; 5.1 unescapes contents before it parses them, so it refuses
// or alters a label holding a blank, '"', '(', ')', ';', '.' or '\'. Any
// other octet, printed as is or as \DDD, is kept by all three, '@' too (an
// SOA mailbox such as testmaster@example.net.).
func portableTarget(c string) bool {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '"', '(', ')', ';':
			return false
		case '\\':
			// Canonical text escapes '.' and '\' as \X and every octet
			// outside printable ASCII as \DDD.
			if i+3 >= len(c) || !isDigit(c[i+1]) || c[i+1:i+4] == "032" {
				return false
			}
			i += 3
		}
	}
	return true
}

// isHostname reports whether a canonical name is a host name as PowerDNS
// requires of NS, MX and SRV targets (DNSName::isHostname, RFC 1123): one
// label or more of letters, digits and '-', neither first nor last.
func isHostname(c string) bool {
	if c == "." {
		return false
	}
	start := 0
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if ch == '.' {
			if i == start || c[start] == '-' || c[i-1] == '-' {
				return false
			}
			start = i + 1
			continue
		}
		if !isDigit(ch) && (ch < 'a' || ch > 'z') && ch != '-' {
			return false
		}
	}
	return true
}
