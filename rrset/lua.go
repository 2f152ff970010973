package rrset

import "strconv"

// canonLUA is LUA: the type the snippet answers with, then the snippet as
// character-strings, A "ifportup(443, {'192.0.2.1'})". PowerDNS keeps the
// snippet as written, escapes included, and prints the type by its name,
// each string in double quotes and the strings joined by one blank; so
// does this. The snippet itself is opaque: it is compared exactly.
func canonLUA(_ *canonCtx, dst []byte, s string) ([]byte, *contentProblem) {
	typ, rest := cutField(s)
	n, p := pdnsTypeNumber(typ)
	if p != nil {
		return nil, p
	}
	if rest == "" {
		return nil, invalid(`missing snippet after the type (LUA content is a type and a quoted snippet, A "ifportup(443, {'192.0.2.1'})")`)
	}
	dst = append(dst, pdnsTypeName(n)...)
	for i := 0; i < len(rest); {
		dst = append(dst, ' ', '"')
		quoted := rest[i] == '"'
		if quoted {
			i++
		}
		for {
			if i == len(rest) {
				if quoted {
					return nil, invalid("unterminated quoted string")
				}
				break
			}
			c := rest[i]
			if (quoted && c == '"') || (!quoted && (isBlank(c) || c == '"')) {
				break
			}
			if c < ' ' || c == 0x7f {
				return nil, invalid("control character " + strconv.QuoteRune(rune(c)) + " in the snippet (write it as \\DDD)")
			}
			if c == '\\' {
				_, width, ok := unescape(rest, i)
				if !ok {
					return nil, invalid("invalid escape in the snippet")
				}
				dst = append(dst, rest[i:i+width]...)
				i += width
				continue
			}
			dst = append(dst, c)
			i++
		}
		dst = append(dst, '"')
		if quoted {
			i++ // the closing quote
		}
		i = skipBlanks(rest, i)
	}
	return dst, nil
}
