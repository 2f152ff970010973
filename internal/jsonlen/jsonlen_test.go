package jsonlen

import (
	"encoding/json"
	"testing"
)

func TestStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `"quoted"`, `back\slash`, "tab\tnew\nline\r", "\b\f", "\x00\x01\x1f",
		"<html>&amp;", "é ü 日本", "\u2028\u2029", "\xff\xfe", "a\xc3", "\U0001F600",
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := String(s); got != len(want) {
			t.Errorf("String(%q) = %d, encoding/json writes %d bytes (%s)", s, got, len(want), want)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("claims a.example. A 1 =ns/a")
	f.Add("<\u2028\xff>")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := String(s); got != len(want) {
			t.Errorf("String(%q) = %d, encoding/json writes %d bytes", s, got, len(want))
		}
	})
}
