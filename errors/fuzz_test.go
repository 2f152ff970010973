package errors_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	pdnserrors "github.com/pdnskit/reconcile/errors"
)

var validReasons = map[pdnserrors.Reason]bool{
	pdnserrors.Conflict: true, pdnserrors.DuplicateRecord: true, pdnserrors.SingleRecordType: true,
	pdnserrors.DuplicateRRset: true, pdnserrors.InvalidContent: true, pdnserrors.InvalidName: true,
	pdnserrors.OutOfZone: true, pdnserrors.Placement: true, pdnserrors.UnknownType: true,
	pdnserrors.InvalidRequest: true, pdnserrors.Unauthorized: true, pdnserrors.ZoneNotFound: true,
	pdnserrors.ZoneExists: true, pdnserrors.ServerError: true, pdnserrors.Unknown: true,
}

// FuzzParse checks that Parse never fails on any status and body, and never
// loses or invents a message.
func FuzzParse(f *testing.F) {
	for _, tc := range wordingCases {
		b, _ := json.Marshal(map[string]string{"error": tc.msg})
		f.Add(422, b)
		f.Add(422, []byte(tc.msg))
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "bodies", "*.json"))
	recorded, _ := filepath.Glob(filepath.Join("..", "testdata", "pdns", "*", "*.json"))
	for _, path := range append(seeds, recorded...) {
		raw, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			f.Fatal(err)
		}
		f.Add(a.Status, []byte(a.Body))
	}
	f.Add(422, []byte(`{"error": "Multiple errors found in RRset", "errors": ["RRset a. IN A: x", 7, null, "", {"e": 1}]}`))
	f.Add(422, []byte(`{"error": "a", "error": "b", "errors": ["c"], "errors": []}`))
	f.Add(422, []byte(`{"errors": [`))
	f.Add(500, []byte("<html><title>&lt;oops&gt;</title>"))
	f.Add(0, []byte{0xff, 0xfe, 0x00})

	f.Fuzz(func(t *testing.T, status int, body []byte) {
		got := pdnserrors.Parse(status, body)
		if got == nil {
			t.Fatal("nil APIError")
		}
		if got.StatusCode != status {
			t.Fatalf("status %d, want %d", got.StatusCode, status)
		}
		if got.Message == "" {
			t.Fatal("empty Message")
		}
		if len(got.Problems) == 0 {
			t.Fatal("no problems")
		}
		for _, p := range got.Problems {
			if !validReasons[p.Reason] {
				t.Fatalf("reason %q", p.Reason)
			}
			if p.Message == "" {
				t.Fatal("problem without message")
			}
			for field, v := range map[string]string{"Name": p.Name, "Type": p.Type, "Content": p.Content} {
				if !strings.Contains(p.Message, v) {
					t.Fatalf("%s %q not in message %q", field, v, p.Message)
				}
			}
		}
		if got.Error() == "" {
			t.Fatal("empty Error()")
		}
		_ = got.Keys()
		_ = got.Reason()

		// A complete PowerDNS-shaped body: the problems are exactly its
		// messages, whole.
		if want, summary, ok := powerDNSMessages(body); ok {
			if len(got.Problems) != len(want) {
				t.Fatalf("%d problems, want %d (%q)", len(got.Problems), len(want), want)
			}
			for i, p := range got.Problems {
				if p.Message != want[i] {
					t.Fatalf("problem %d: %q, want %q", i, p.Message, want[i])
				}
			}
			if summary != "" && got.Message != summary {
				t.Fatalf("message %q, want %q", got.Message, summary)
			}
			if got.Truncated {
				t.Fatal("complete body reported truncated")
			}
			return
		}
		// A plain-text body that says something: every word of the message
		// comes from it.
		text := strings.ToValidUTF8(string(body), "\uFFFD")
		words := strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
		if len(words) > 0 && !strings.HasPrefix(words[0], "{") && !strings.HasPrefix(words[0], "<") {
			for _, word := range strings.Fields(strings.TrimSuffix(got.Message, "…")) {
				if !strings.Contains(text, word) {
					t.Fatalf("word %q of message %q not in body", word, got.Message)
				}
			}
		}
	})
}

// powerDNSMessages returns the messages of a complete JSON body of the form
// PowerDNS sends, {"error": string, "errors": [string, ...]}, and false for
// any other body.
func powerDNSMessages(body []byte) (msgs []string, summary string, ok bool) {
	if len(body) > pdnserrors.MaxBodySize || !strings.HasPrefix(strings.TrimLeft(string(body), " \t\r\n"), "{") {
		return nil, "", false
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return nil, "", false
	}
	if raw, present := doc["error"]; present {
		if json.Unmarshal(raw, &summary) != nil {
			return nil, "", false
		}
	}
	var items []string
	if raw, present := doc["errors"]; present {
		if json.Unmarshal(raw, &items) != nil {
			return nil, "", false
		}
	}
	for _, it := range items {
		if it != "" {
			msgs = append(msgs, it)
		}
	}
	if len(msgs) == 0 && summary != "" {
		msgs = []string{summary}
	}
	return msgs, summary, len(msgs) > 0
}
