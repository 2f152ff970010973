package errors

import (
	"net/http"
	"strconv"
	"strings"
)

// Problem is one message of a PowerDNS answer. It is the "error" string of
// a single-error body, or one element of the "errors" array of a 5.1
// multi-error body.
type Problem struct {
	// Reason classifies Message.
	Reason Reason `json:"reason"`
	// Name is the owner name the message is about, exactly as PowerDNS
	// printed it. It is absolute with its trailing dot for RRset messages,
	// as sent for names PowerDNS refused to parse, and empty when the
	// wording has none.
	Name string `json:"name,omitempty"`
	// Type is the record type the message is about, as printed ("CNAME").
	Type string `json:"type,omitempty"`
	// Content is the record content the message is about, where the wording
	// quotes one (a duplicate, an unparsable content, a nameserver).
	Content string `json:"content,omitempty"`
	// Message is the message itself, whole.
	Message string `json:"message"`
}

// Key returns the RRset the problem is about, and false when the wording
// does not name both an owner and a type.
func (p Problem) Key() (Key, bool) {
	if p.Name == "" || p.Type == "" {
		return Key{}, false
	}
	return Key{Name: lowerASCII(p.Name), Type: strings.ToUpper(p.Type)}, true
}

// Key identifies an RRset named by a problem. Its name is lower-cased (DNS
// names compare case-insensitively and the request may have used any case)
// and its type upper-cased, so it converts directly to rrset.Key and
// compares with keys built from canonical names.
type Key struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// APIError is a non-2xx answer of the PowerDNS API, with every message it
// carried. Build one with Parse; inspect one through wrapping with ReasonOf
// and the Is… predicates.
type APIError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int `json:"statusCode"`
	// Message is the answer's summary, never empty. It is the "error"
	// string of a JSON body ("Multiple errors found in RRset" for a
	// multi-error body), the text of a plain-text or HTML body, or the
	// status text when the body said nothing.
	Message string `json:"message"`
	// Problems holds one entry per message, at least one.
	Problems []Problem `json:"problems"`
	// Truncated reports that the body was cut: it held MaxBodySize bytes or
	// more, or its JSON broke off before the closing brace. Problems then
	// holds the messages that arrived whole and may be incomplete.
	Truncated bool `json:"truncated,omitempty"`

	// cause is the error the HTTP client library returned for the answer.
	cause error
}

// maxErrorProblems bounds how many problems Error lists, so that a refused
// PATCH of thousands of RRsets does not produce a megabyte log line.
const maxErrorProblems = 10

// Error renders the status and the messages, e.g.
//
//	powerdns: 422 Unprocessable Entity: RRset v4.example.com. IN CNAME: Conflicts with pre-existing RRset
func (e *APIError) Error() string {
	if e == nil {
		return "powerdns: <nil>"
	}
	var b strings.Builder
	b.WriteString("powerdns: ")
	b.WriteString(statusLine(e.StatusCode))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Problems) != 1 || e.Problems[0].Message != e.Message {
		for i, p := range e.Problems {
			if i == maxErrorProblems {
				b.WriteString("; and ")
				b.WriteString(strconv.Itoa(len(e.Problems) - i))
				b.WriteString(" more")
				break
			}
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString("; ")
			}
			b.WriteString(p.Message)
		}
	}
	if e.Truncated {
		b.WriteString(" (body truncated)")
	}
	return b.String()
}

// Unwrap returns the error the HTTP client library reported for this answer,
// when the APIError was built with FromResponse.
func (e *APIError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.cause
}

// Reason returns the reason of the answer. That is the one reason all
// problems share or, when they differ, the one that comes first in the
// order the Reason constants are declared (Conflict first).
func (e *APIError) Reason() Reason {
	if e == nil || len(e.Problems) == 0 {
		return Unknown
	}
	best := e.Problems[0].Reason
	for _, p := range e.Problems[1:] {
		if precedence(p.Reason) < precedence(best) {
			best = p.Reason
		}
	}
	return best
}

// Has reports whether any problem has reason r.
func (e *APIError) Has(r Reason) bool {
	if e == nil {
		return false
	}
	for _, p := range e.Problems {
		if p.Reason == r {
			return true
		}
	}
	return false
}

// Keys returns the RRsets the problems name, each once, in the order they
// first appear. These are the RRsets PowerDNS refused: a caller that must
// still apply the rest of a PATCH leaves them out and sends it again.
// Problems that name no RRset (a bad changetype, a 404) contribute nothing.
func (e *APIError) Keys() []Key {
	if e == nil {
		return nil
	}
	var keys []Key
	seen := make(map[Key]struct{}, len(e.Problems))
	for _, p := range e.Problems {
		k, ok := p.Key()
		if !ok {
			continue
		}
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		keys = append(keys, k)
	}
	return keys
}

func statusLine(code int) string {
	if text := http.StatusText(code); text != "" {
		return strconv.Itoa(code) + " " + text
	}
	return "status " + strconv.Itoa(code)
}

// lowerASCII lower-cases ASCII letters only: PowerDNS compares names
// case-insensitively in ASCII and prints other bytes escaped.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
