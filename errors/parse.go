package errors

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBodySize is how much of an answer's body is worth reading. Measured on
// PowerDNS 4.7, 4.9 and 5.1: a refused PATCH names the first RRset refused,
// in 100 bytes or so on every version; 5.1 lists every problem of that one
// RRset (89 bytes each for duplicates, 445 KB for one RRset of 5,000
// duplicated records) and, on zone creation, every conflict of the zone (111
// bytes each). 64 KiB keeps some 600 problems, far more than the one RRset
// per refusal a caller isolates, while a hostile or broken answer of any
// size costs the reader 64 KiB. Parse looks at no more than this, and a
// transport that keeps error bodies should read no more; a longer body is
// reported as Truncated.
const MaxBodySize = 64 << 10

// maxTextMessage bounds the message taken from a body that is not PowerDNS
// JSON. PowerDNS's own text bodies are one status line; anything longer is a
// proxy's page, of which the start says enough.
const maxTextMessage = 4 << 10

// Parse classifies a non-2xx answer of the PowerDNS API. It reads both JSON
// shapes, {"error": "…"} and 5.1's {"error": "Multiple errors found in
// RRset", "errors": ["…", …]} (one Problem per element; the summary is not a
// problem), as well as plain-text and HTML bodies. Any status and any bytes
// give a usable *APIError with a non-empty Message and at least one Problem:
// an empty, truncated, oversized or garbled body never makes it fail or
// panic. Only the first MaxBodySize bytes are read.
//
// The reason of each problem comes from the status where the status alone
// decides it (3xx, 400, 401, 403, 404, 409, 5xx), and otherwise from the
// message's wording, as printed by PowerDNS 4.7 to 5.1.
func Parse(statusCode int, body []byte) *APIError {
	return FromResponse(statusCode, body, nil)
}

// FromResponse is Parse for an answer that an HTTP client library already
// turned into an error. The APIError keeps cause, reachable with
// errors.Unwrap, errors.Is and errors.As.
func FromResponse(statusCode int, body []byte, cause error) *APIError {
	// A body of MaxBodySize bytes was most likely cut there by whoever read
	// it, as Parse cuts a longer one.
	cut := len(body) >= MaxBodySize
	if cut {
		body = body[:MaxBodySize]
	}
	e := &APIError{StatusCode: statusCode, Truncated: cut, cause: cause}

	var msgs []string
	if doc, ok := decodeJSON(body); ok {
		e.Message = doc.message
		msgs = doc.items
		e.Truncated = e.Truncated || doc.broken
		if len(msgs) == 0 && doc.message != "" {
			msgs = []string{doc.message}
		}
	} else if text := plainText(body); text != "" {
		e.Message = text
		msgs = []string{text}
	}
	if e.Message == "" && len(msgs) > 0 {
		e.Message = msgs[0]
	}
	if e.Message == "" {
		e.Message = statusText(statusCode)
	}
	if len(msgs) == 0 {
		msgs = []string{e.Message}
	}

	e.Problems = make([]Problem, 0, len(msgs))
	for _, msg := range msgs {
		e.Problems = append(e.Problems, problemFor(statusCode, msg))
	}
	return e
}

// problemFor classifies one message of an answer with the given status.
func problemFor(statusCode int, msg string) Problem {
	switch {
	case statusCode >= 300 && statusCode <= 399:
		// A redirect that reaches the classifier was not followed: a
		// write answered with one is never sent on (it would arrive as a
		// GET, or elsewhere), so the request could not be served here.
		return Problem{Reason: InvalidRequest, Message: msg}
	case statusCode == http.StatusBadRequest:
		return Problem{Reason: InvalidRequest, Message: msg}
	case statusCode == http.StatusUnauthorized, statusCode == http.StatusForbidden:
		return Problem{Reason: Unauthorized, Message: msg}
	case statusCode == http.StatusNotFound:
		return Problem{Reason: ZoneNotFound, Message: msg}
	case statusCode == http.StatusConflict:
		return Problem{Reason: ZoneExists, Message: msg}
	case statusCode >= 500 && statusCode <= 599:
		return Problem{Reason: ServerError, Message: msg}
	}
	p := classify(msg)
	if p.Reason == Unknown && statusCode >= 400 && statusCode <= 499 && statusCode != http.StatusUnprocessableEntity {
		// 405, 413, 415 and the like: the request was wrong, whatever the
		// body says. An unexplained 422 stays Unknown.
		p.Reason = InvalidRequest
	}
	return p
}

// jsonBody is what decodeJSON salvages from a PowerDNS JSON error body.
type jsonBody struct {
	message string   // the "error" member
	items   []string // the "errors" members that arrived whole
	broken  bool     // decoding stopped before the closing brace
}

// decodeJSON reads a JSON object body token by token, so that a body cut
// short still yields every member that arrived whole. It reports false when
// the body is not an object or carries neither "error" nor "errors".
func decodeJSON(body []byte) (jsonBody, bool) {
	var doc jsonBody
	body = bytes.TrimLeft(body, " \t\r\n")
	if len(body) == 0 || body[0] != '{' {
		return doc, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return doc, false
	}
	doc.broken = !decodeMembers(dec, &doc)
	if !doc.broken {
		if _, err := dec.Token(); err != nil {
			doc.broken = true
		}
	}
	return doc, doc.message != "" || len(doc.items) > 0
}

// decodeMembers reads the members of the object dec is in, up to (not
// including) its closing brace. As with encoding/json, a member given twice
// counts once, with its last value. It returns false when the input broke
// off.
func decodeMembers(dec *json.Decoder, doc *jsonBody) bool {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := tok.(string)
		switch key {
		case "error":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return false
			}
			doc.message = jsonText(raw)
		case "errors":
			doc.items = nil
			if !decodeItems(dec, doc) {
				return false
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return false
			}
		}
	}
	return true
}

// decodeItems reads the value of "errors" into doc.items: an array of
// strings from PowerDNS, though any value is accepted. It returns false when
// the input broke off.
func decodeItems(dec *json.Decoder, doc *jsonBody) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch tok {
	case json.Delim('['):
		// Read element by element, so that a cut body keeps the elements
		// that arrived whole.
		for dec.More() {
			var item json.RawMessage
			if err := dec.Decode(&item); err != nil {
				return false
			}
			if s := jsonText(item); s != "" {
				doc.items = append(doc.items, s)
			}
		}
		_, err := dec.Token()
		return err == nil
	case json.Delim('{'):
		// Not what PowerDNS sends; skip it.
		var ignored jsonBody
		if !decodeMembers(dec, &ignored) {
			return false
		}
		_, err := dec.Token()
		return err == nil
	case nil:
		return true
	}
	// A lone scalar: one message.
	s, ok := tok.(string)
	if !ok {
		raw, _ := json.Marshal(tok)
		s = string(raw)
	}
	if s != "" {
		doc.items = append(doc.items, s)
	}
	return true
}

// jsonText returns a JSON string's value, or any other value's compact text;
// "" for null.
func jsonText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	if buf.String() == "null" {
		return ""
	}
	return buf.String()
}

// plainText turns a text or HTML body into one line: valid UTF-8, control
// characters and runs of blanks folded into single spaces, an HTML page
// reduced to its title (or its text), at most maxTextMessage bytes.
func plainText(body []byte) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if looksLikeHTML(s) {
		if t := htmlTitle(s); strings.TrimSpace(t) != "" {
			s = t
		} else {
			s = stripTags(s)
		}
		s = html.UnescapeString(s)
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if len(s) > maxTextMessage {
		cut := maxTextMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func looksLikeHTML(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "<") && strings.Contains(t, ">")
}

// htmlTitle returns the text of the first <title> element, as PowerDNS
// (<!html><title>Not Found</title>…) and most proxies put the status there.
func htmlTitle(s string) string {
	lower := strings.ToLower(s)
	start := strings.Index(lower, "<title")
	if start < 0 {
		return ""
	}
	open := strings.IndexByte(lower[start:], '>')
	if open < 0 {
		return ""
	}
	from := start + open + 1
	end := strings.Index(lower[from:], "</title")
	if end < 0 {
		return s[from:]
	}
	return s[from : from+end]
}

// stripTags drops everything between '<' and '>'.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func statusText(code int) string {
	if text := http.StatusText(code); text != "" {
		return text
	}
	return "HTTP status " + strconv.Itoa(code)
}
