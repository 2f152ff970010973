package rrset

import "strconv"

// Character-strings (RFC 1035 §3.3, §5.1) are the text fields of TXT, SPF,
// HINFO, NAPTR, CAA and URI. Their canonical form is the one PowerDNS prints
// for data it reads from the wire (txtEscape): each string in double quotes,
// printable ASCII as is, '"' and '\' escaped with a backslash, every other
// octet as \DDD, strings separated by one space.

// maxStringLen is the longest character-string on the wire.
const maxStringLen = 255

// appendQuoted appends data as one quoted character-string, or, when split
// is set, as as many strings of at most 255 octets as it takes, the way
// PowerDNS cuts a long string when it writes it on the wire.
func appendQuoted[T ~string | ~[]byte](dst []byte, data T, split bool) []byte {
	for {
		chunk := data
		if split && len(chunk) > maxStringLen {
			chunk = chunk[:maxStringLen]
		}
		dst = append(dst, '"')
		for i := 0; i < len(chunk); i++ {
			switch c := chunk[i]; {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < ' ' || c >= 0x7f:
				dst = append(dst, '\\', '0'+c/100, '0'+c/10%10, '0'+c%10)
			default:
				dst = append(dst, c)
			}
		}
		dst = append(dst, '"')
		data = data[len(chunk):]
		if len(data) == 0 {
			return dst
		}
		dst = append(dst, ' ')
	}
}

// nextString decodes the character-string that starts at s[i], quoted or a
// bare word, into buf[:0]. It returns the decoded octets and the index just
// past the string and the blanks after it.
func nextString(s string, i int, buf []byte) ([]byte, int, *contentProblem) {
	data := buf[:0]
	if s[i] == '"' {
		i++
		for {
			if i >= len(s) {
				return nil, 0, invalid("unterminated quoted string")
			}
			c := s[i]
			if c == '"' {
				i++
				break
			}
			if c == '\\' {
				v, width, ok := unescape(s, i)
				if !ok {
					return nil, 0, invalid("invalid escape in quoted string")
				}
				data = append(data, v)
				i += width
				continue
			}
			data = append(data, c)
			i++
		}
		// `"a""b"` is two strings: a quote may follow a quote at once.
		if i < len(s) && !isBlank(s[i]) && s[i] != '"' {
			return nil, 0, invalid("text after a closing quote")
		}
		return data, skipBlanks(s, i), nil
	}
	for i < len(s) && !isBlank(s[i]) {
		c := s[i]
		switch {
		case c == '\\':
			v, width, ok := unescape(s, i)
			if !ok {
				return nil, 0, invalid("invalid escape")
			}
			data = append(data, v)
			i += width
			continue
		case c == '"':
			return nil, 0, invalid("quote inside an unquoted string")
		case c == ';' || c == '(' || c == ')':
			// Zone-file syntax characters; PowerDNS 5.1 refuses them
			// unquoted, and in a zone file they would end the data.
			return nil, 0, invalid("'" + string(rune(c)) + "' outside quotes")
		case c < ' ' || c == 0x7f || isC1(s, i):
			return nil, 0, invalid("control character outside quotes")
		}
		data = append(data, c)
		i++
	}
	return data, skipBlanks(s, i), nil
}

// portableText reports whether PowerDNS stores data unchanged on every
// supported version: 5.1 unescapes contents before it parses them, so an
// escaped '"' ends the string early and an escaped '\' escapes the next
// character.
func portableText[T ~string | ~[]byte](data T) bool {
	for i := 0; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

// canonTXT is TXT and SPF. A content that starts with a double quote is
// presentation format: quoted strings or bare words, separated by blanks,
// with \X and \DDD escapes. Any other content is one string, taken
// literally (backslashes included). Strings longer than 255 octets are cut
// into 255-octet pieces, as PowerDNS cuts them on the wire, so the same data
// compares equal however it was quoted or cut.
func canonTXT(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	if isPlainQuoted(s) {
		return append(dst, s...), nil // already canonical: nothing to decode
	}
	if s[0] != '"' {
		if c.strict && !portableText(s) {
			return nil, unsupportedText()
		}
		return appendQuoted(dst, s, true), nil
	}
	for i := 0; i < len(s); {
		data, next, p := nextString(s, i, c.buf)
		if p != nil {
			return nil, p
		}
		if c.strict && !portableText(data) {
			return nil, unsupportedText()
		}
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = appendQuoted(dst, data, true)
		i = next
	}
	return dst, nil
}

// isPlainQuoted reports whether s is one quoted string of at most 255
// printable ASCII characters, none of them to be escaped: the canonical
// form of most TXT contents, recognised without decoding it.
func isPlainQuoted(s string) bool {
	if len(s) < 2 || len(s) > maxStringLen+2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func unsupportedText() *contentProblem {
	return unsupported(`text holds '"' or '\', which PowerDNS 5.1 unescapes before parsing: the string would be refused or altered`)
}

// appendString appends the next character-string of s as one quoted string
// of at most 255 octets and returns the rest of s.
func (c *canonCtx) appendString(dst []byte, s string, what string) ([]byte, string, *contentProblem) {
	if s == "" {
		return nil, "", invalid("missing " + what)
	}
	data, next, p := nextString(s, 0, c.buf)
	if p != nil {
		return nil, "", p
	}
	if len(data) > maxStringLen {
		return nil, "", invalid(what + " longer than 255 octets")
	}
	if c.strict && !portableText(data) {
		return nil, "", unsupportedText()
	}
	return appendQuoted(dst, data, false), s[next:], nil
}

func canonHINFO(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := c.appendString(dst, s, "CPU")
	if p != nil {
		return nil, p
	}
	dst, rest, p = c.appendString(append(dst, ' '), rest, "OS")
	if p != nil {
		return nil, p
	}
	if rest != "" {
		return nil, invalid("unexpected " + strconv.Quote(rest) + " after OS")
	}
	return dst, nil
}

func canonNAPTR(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"order", "preference"}, 16, 16)
	if p != nil {
		return nil, p
	}
	for _, what := range []string{"flags", "services", "regexp"} {
		if dst, rest, p = c.appendString(dst, rest, what); p != nil {
			return nil, p
		}
		dst = append(dst, ' ')
	}
	return c.lastTarget(dst, rest, "replacement")
}

// canonCAA writes the tag in lower case (tags are case-insensitive, RFC
// 8659 §4.1) and the value as one quoted string: a value that does not
// start with a double quote is taken literally, and quoted pieces are
// joined, since the value is not a length-prefixed string on the wire.
func canonCAA(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"flags"}, 8)
	if p != nil {
		return nil, p
	}
	tag, value := cutField(rest)
	if tag == "" {
		return nil, invalid("missing tag")
	}
	if len(tag) > 15 {
		return nil, invalid("tag longer than 15 characters")
	}
	for i := 0; i < len(tag); i++ {
		ch := tag[i]
		switch {
		case 'A' <= ch && ch <= 'Z':
			ch += 'a' - 'A'
		case ('a' <= ch && ch <= 'z') || isDigit(ch):
		default:
			return nil, invalid("tag " + strconv.Quote(tag) + " is not made of letters and digits")
		}
		dst = append(dst, ch)
	}
	dst = append(dst, ' ')
	if value == "" {
		return nil, invalid("missing value")
	}
	return c.appendJoined(dst, value)
}

// canonURI writes the target as one quoted string, joined like a CAA value.
func canonURI(c *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	dst, rest, p := appendUints(dst, s, []string{"priority", "weight"}, 16, 16)
	if p != nil {
		return nil, p
	}
	if rest == "" {
		return nil, invalid("missing target")
	}
	return c.appendJoined(dst, rest)
}

// appendJoined appends s as a single quoted string: literally when it does
// not start with a double quote, else its character-strings joined.
func (c *canonCtx) appendJoined(dst []byte, s string) ([]byte, *contentProblem) {
	if s[0] != '"' {
		if c.strict && !portableText(s) {
			return nil, unsupportedText()
		}
		return appendQuoted(dst, s, false), nil
	}
	joined := c.buf[:0]
	for i := 0; i < len(s); {
		start := len(joined)
		data, next, p := nextString(s, i, joined[start:])
		if p != nil {
			return nil, p
		}
		joined = append(joined[:start], data...)
		i = next
	}
	if c.strict && !portableText(joined) {
		return nil, unsupportedText()
	}
	return appendQuoted(dst, joined, false), nil
}
