package pdnsapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A server, or a proxy in front of it, may quote the request it refuses,
// API key and all, in its answer; the answer then ends up in errors, logs
// and the conditions controllers write into Kubernetes status. The
// Transport replaces the key and the server URL's password in every body
// it keeps or hands on, in whatever spelling a body may carry them: as
// sent, JSON-escaped in any of JSON's ways (\/, \u0041), or
// percent-encoded.

// secrets returns the API key and the password, those that are set.
func (t *Transport) secrets() []string {
	var out []string
	if k := t.key(); k != "" {
		out = append(out, k)
	}
	if u := t.user(); u != nil {
		if p, ok := u.Password(); ok && p != "" {
			out = append(out, p)
		}
	}
	return out
}

// redact replaces every secret in body with "[redacted]". body is first
// brought into one spelling (normalize), so that each secret has three
// forms to look for: as sent, JSON-escaped as a JSON string must escape it,
// and percent-encoded where normalize leaves percent-escapes. In a
// truncated body, a secret cut off at its end is replaced too: the start of
// a key is part of the key.
func (t *Transport) redact(body []byte, truncated bool) []byte {
	secrets := t.secrets()
	if len(secrets) == 0 || len(body) == 0 {
		return body
	}
	body = normalize(body, secrets)
	var forms []string
	for _, s := range secrets {
		forms = append(forms, s, jsonEscaped(s), percentKept(s))
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	forms = slices.Compact(forms)
	for _, f := range forms {
		if bytes.Contains(body, []byte(f)) {
			body = bytes.ReplaceAll(body, []byte(f), []byte(redacted))
		}
	}
	if !truncated {
		return body
	}
	for _, f := range forms {
		for n := len(f) - 1; n > 0; n-- {
			if bytes.HasSuffix(body, []byte(f[:n])) {
				return append(body[:len(body)-n:len(body)-n], redacted...)
			}
		}
	}
	return body
}

// percentKept returns s with the characters normalize never decodes from
// a percent-escape written as one.
func percentKept(s string) string {
	return strings.NewReplacer("%", "%25", `"`, "%22", `\`, "%5C").Replace(s)
}

// jsonEscaped returns s as the inside of a JSON string with no more
// escapes than JSON requires.
func jsonEscaped(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// normalize rewrites the spellings a secret could hide behind into one,
// leaving the body's meaning alone. JSON escapes become the shortest JSON
// allows: \/ becomes '/', \uXXXX the character, or \" and \\ for a quote
// and a backslash (a control character stays escaped). Percent-escapes of
// the octets secrets hold become the octets, but for '"', '\' and '%',
// which would change what a JSON string or a URL says: those become
// upper-case %22, %5C and %25.
func normalize(body []byte, secrets []string) []byte {
	var inSecret [256]bool
	for _, s := range secrets {
		for i := 0; i < len(s); i++ {
			inSecret[s[i]] = true
		}
	}
	if bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '%') < 0 {
		return body
	}
	const hexDigits = "0123456789ABCDEF"
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == '/':
			out = append(out, '/')
			i++
		case c == '\\' && i+1 < len(body) && body[i+1] == '\\':
			out = append(out, '\\', '\\') // an escaped backslash stays one
			i++
		case c == '\\' && i+5 < len(body) && body[i+1] == 'u':
			r, width := jsonUnicodeEscape(body[i:])
			switch {
			case width == 0 || r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
				out = append(out, c)
				continue
			case r == '"' || r == '\\':
				out = append(out, '\\', byte(r))
			default:
				out = utf8.AppendRune(out, r)
			}
			i += width - 1
		case c == '%' && i+2 < len(body):
			v, err := strconv.ParseUint(string(body[i+1:i+3]), 16, 8)
			d := byte(v)
			switch {
			case err != nil || !inSecret[d]:
				out = append(out, c)
				continue
			case d == '"' || d == '\\' || d == '%' || d <= ' ' || d == 0x7f:
				out = append(out, '%', hexDigits[d>>4], hexDigits[d&0xf])
			default:
				out = append(out, d)
			}
			i += 2
		default:
			out = append(out, c)
		}
	}
	return out
}

// jsonUnicodeEscape decodes the \uXXXX escape (or surrogate pair of them)
// at the start of b; width 0 means there is none.
func jsonUnicodeEscape(b []byte) (rune, int) {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		r2, ok := hex4(b[6:])
		if !ok {
			return 0, 0
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, 12
		}
		return 0, 0
	}
	return r, 6
}

// scrub makes a URL from an answer printable: no user information, query,
// API key or password.
func (t *Transport) scrub(s string) string {
	s = scrub(s, t.key())
	if u := t.user(); u != nil {
		if p, ok := u.Password(); ok && p != "" {
			s = strings.ReplaceAll(s, p, redacted)
		}
	}
	return s
}
