// Package jsonlen sizes JSON encodings without encoding: what a request
// body will weigh, so that bodies can be kept under a server's limit before
// they are built.
package jsonlen

import "unicode/utf8"

// String is the length of s encoded as a JSON string by encoding/json,
// which escapes HTML characters, control characters, U+2028, U+2029 and
// invalid UTF-8.
func String(s string) int {
	n := 2 // quotes
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t' || b == '\b' || b == '\f':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6 // \u00XX
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
