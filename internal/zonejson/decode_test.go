package zonejson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mirror is what encoding/json decodes the same fields into: the reference
// the decoder is held to.
type mirror struct {
	Name       string `json:"name"`
	SOAEditAPI string `json:"soa_edit_api"`
	SOAEdit    string `json:"soa_edit"`
	Serial     uint32 `json:"serial"`
	RRsets     []struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		TTL     uint32 `json:"ttl"`
		Records []struct {
			Content  string `json:"content"`
			Disabled bool   `json:"disabled"`
		} `json:"records"`
		Comments []struct {
			Content    string `json:"content"`
			Account    string `json:"account"`
			ModifiedAt uint64 `json:"modified_at"`
		} `json:"comments"`
	} `json:"rrsets"`
}

func (m mirror) zone() Zone {
	z := Zone{Name: m.Name, SOAEditAPI: m.SOAEditAPI, SOAEdit: m.SOAEdit, Serial: m.Serial}
	for _, rr := range m.RRsets {
		out := RRset{Name: rr.Name, Type: rr.Type, TTL: rr.TTL}
		for _, r := range rr.Records {
			out.Records = append(out.Records, Record{Content: r.Content, Disabled: r.Disabled})
		}
		for _, c := range rr.Comments {
			out.Comments = append(out.Comments, Comment{Content: c.Content, Account: c.Account, ModifiedAt: c.ModifiedAt})
		}
		z.RRsets = append(z.RRsets, out)
	}
	return z
}

// normal makes empty slices nil, which encoding/json and Decode may leave
// either way without meaning anything different.
func normal(z Zone) Zone {
	if len(z.RRsets) == 0 {
		z.RRsets = nil
	}
	for i := range z.RRsets {
		if len(z.RRsets[i].Records) == 0 {
			z.RRsets[i].Records = nil
		}
		if len(z.RRsets[i].Comments) == 0 {
			z.RRsets[i].Comments = nil
		}
	}
	return z
}

// sameAsEncodingJSON decodes data both ways: both must fail, or both
// succeed with the same fields. Where encoding/json finds the JSON cut
// short, Decode's error must say so (io.ErrUnexpectedEOF), and only there.
func sameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	var m mirror
	wantErr := json.Unmarshal(data, &m)
	got, err := Decode(data)
	if wantErr != nil {
		require.Error(t, err, "encoding/json refuses %q: %v", data, wantErr)
		var se *json.SyntaxError
		cut := errors.As(wantErr, &se) && se.Error() == "unexpected end of JSON input"
		require.Equal(t, cut, errors.Is(err, io.ErrUnexpectedEOF), "cut short: encoding/json says %v, Decode %v", wantErr, err)
		return
	}
	require.NoError(t, err, "encoding/json accepts %q", data)
	require.Equal(t, normal(m.zone()), normal(got), "%q", data)
}

func TestDecodeLikeEncodingJSON(t *testing.T) {
	cases := map[string]string{
		"zone": `{"account": "", "api_rectify": false, "dnssec": false, "id": "example.com.", "kind": "Native", "soa_edit_api": "DEFAULT",
			"masters": [], "name": "example.com.", "rrsets": [
			{"comments": [{"account": "pdnskit/reconcile", "content": "managed-by=external-dns", "modified_at": 1796027265}],
			 "name": "www.example.com.", "records": [{"content": "192.0.2.1", "disabled": false, "modified_at": 1}], "ttl": 300, "type": "A"},
			{"comments": [], "name": "example.com.", "records": [{"content": "a.misconfigured.dns.server.invalid. hostmaster.example.com. 1 10800 3600 604800 3600", "disabled": true}], "ttl": 3600, "type": "SOA"}
			], "serial": 2026113001, "soa_edit": "", "url": "/api/v1/servers/localhost/zones/example.com."}`,
		"null":                       `null`,
		"null with space":            " \n null \t",
		"empty object":               `{}`,
		"empty rrsets":               `{"rrsets": []}`,
		"null rrsets":                `{"rrsets": null}`,
		"null fields":                `{"name": null, "rrsets": [{"name": null, "type": null, "ttl": null, "records": null, "comments": null}]}`,
		"null elements":              `{"rrsets": [null, {"records": [null], "comments": [null]}]}`,
		"escapes":                    `{"rrsets": [{"name": "a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude00", "records": [{"content": "\"v=spf1 -all\""}]}]}`,
		"lone surrogates":            `{"name": "\ud800x\udc00\ud800\u0041\ud83d"}`,
		"invalid utf-8":              "{\"name\": \"a\xffb\xc3\"}",
		"raw utf-8":                  `{"name": "bücher.example.", "rrsets": [{"records": [{"content": "\"日本語\""}]}]}`,
		"keys in any case":           `{"NAME": "x.", "RRSETS": [{"Name": "a.", "TTL": 5, "Records": [{"CONTENT": "c", "Disabled": true}]}]}`,
		"duplicate keys":             `{"name": "a.", "name": "b.", "rrsets": [{"ttl": 1}], "rrsets": [{"ttl": 2}, {"ttl": 3}]}`,
		"duplicate keys, fewer":      `{"rrsets": [{"name": "a.", "ttl": 1}, {"ttl": 5}], "rrsets": [{"ttl": 2}]}`,
		"duplicate keys in a record": `{"rrsets": [{"records": [{"content": "a", "content": "b", "disabled": true, "disabled": false}]}]}`,
		"unknown values skipped":     `{"x": {"y": [1, -2.5e+3, true, false, null, "s", {"z": []}]}, "rrsets": [{"extra": [[[]]], "ttl": 0}]}`,
		"ttl max":                    `{"rrsets": [{"ttl": 4294967295}]}`,
		"ttl too large":              `{"rrsets": [{"ttl": 4294967296}]}`,
		"ttl negative":               `{"rrsets": [{"ttl": -1}]}`,
		"ttl fraction":               `{"rrsets": [{"ttl": 1.0}]}`,
		"ttl exponent":               `{"rrsets": [{"ttl": 1e2}]}`,
		"ttl string":                 `{"rrsets": [{"ttl": "300"}]}`,
		"content number":             `{"rrsets": [{"records": [{"content": 1}]}]}`,
		"disabled string":            `{"rrsets": [{"records": [{"disabled": "true"}]}]}`,
		"records object":             `{"rrsets": [{"records": {}}]}`,
		"top-level array":            `[]`,
		"top-level string":           `"zone"`,
		"trailing data":              `{} {}`,
		"trailing comma":             `{"rrsets": [1,]}`,
		"leading zero":               `{"x": 01}`,
		"bad escape":                 `{"name": "\x"}`,
		"bad unicode escape":         `{"name": "\u12"}`,
		"control character":          "{\"name\": \"a\tb\"}",
		"unterminated string":        `{"name": "abc`,
		"unterminated object":        `{"name": "abc"`,
		"missing colon":              `{"name" "abc"}`,
		"bare word":                  `{"name": nope}`,
		"empty":                      ``,
		"modified_at large":          `{"rrsets": [{"comments": [{"modified_at": 18446744073709551615}]}]}`,
		"modified_at too large":      `{"rrsets": [{"comments": [{"modified_at": 18446744073709551616}]}]}`,
		"type error then syntax":     `{"name": 1, "rrsets": [}`,
		"nested wrong kinds":         `{"rrsets": [{"records": [{"content": [1, 2]}], "ttl": {}}]}`,
		"deeply nested skipped":      `{"x": ` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`,
		"nested too deeply":          `{"x": ` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		"nested too deeply, cut":     `{"x": ` + strings.Repeat(`{"y": `, 10001),
		"soa_edit_api":               `{"soa_edit_api": "INCEPTION-INCREMENT", "SOA_EDIT_API": "DEFAULT"}`,
		"soa_edit_api number":        `{"soa_edit_api": 1}`,
		"soa settings":               `{"soa_edit_api": "SOA-EDIT", "soa_edit": "INCEPTION-INCREMENT", "name": "x."}`,
		"soa settings in any case":   `{"SOA_EDIT_API": "EPOCH", "Soa_Edit": "NONE"}`,
		"soa settings null":          `{"soa_edit_api": null, "soa_edit": null}`,
		"ttl minus zero":             `{"rrsets": [{"ttl": -0}]}`,
		"ttl huge":                   `{"rrsets": [{"ttl": 1` + strings.Repeat("0", 400) + `}]}`,
		"unicode key folding s":      "{\"rr\u017fets\": [{\"ttl\": 3}]}",
		"whitespace everywhere":      " { \"rrsets\" : [ { \"ttl\" : 7 } ] } ",
		"number forms skipped":       `{"x": [0, -0, 0.5, 1E9, 1e-9, -12.34e+5]}`,
		"malformed numbers":          `{"x": 1.}`,
		"malformed exponent":         `{"x": 1e}`,
		"minus alone":                `{"x": -}`,
		"unicode key case folding":   "{\"nam\u212a\": \"x\"}",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) { sameAsEncodingJSON(t, []byte(data)) })
	}
}

func TestDecodeErrors(t *testing.T) {
	_, err := Decode([]byte(`{"rrsets": [{"ttl": "300"}]}`))
	var te *TypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "rrsets.0.ttl", te.Field)
	assert.Contains(t, te.Error(), "rrsets.0.ttl has a value of the wrong kind (string)")

	_, err = Decode([]byte(`{"rrsets": [`))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 12, se.Offset)
	assert.Contains(t, se.Error(), "offset 12")
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "JSON cut short reads as an answer cut short")

	_, err = Decode([]byte(`{"rrsets": ]}`))
	require.ErrorAs(t, err, &se)
	assert.NotErrorIs(t, err, io.ErrUnexpectedEOF, "malformed JSON is not cut short")

	_, err = Decode([]byte(`{"name": 1, "rrsets": [{"ttl": 3`))
	require.ErrorAs(t, err, &se, "a syntax error wins over a type error before it, as with encoding/json")
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "an answer cut short after a wrong kind is still cut short")

	_, err = Decode([]byte(`{"name": 1, "rrsets": [}`))
	require.ErrorAs(t, err, &se)
	assert.NotErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestDecodeLargeZone(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"name": "big.example.", "rrsets": [`)
	for i := range 5000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "h%d.big.example.", "type": "A", "ttl": %d, "records": [{"content": "192.0.2.%d", "disabled": false}], "comments": [{"content": "managed-by=w", "account": "pdnskit/reconcile", "modified_at": 1}]}`, i, i, i%250)
	}
	b.WriteString(`]}`)
	sameAsEncodingJSON(t, []byte(b.String()))
	z, err := Decode([]byte(b.String()))
	require.NoError(t, err)
	assert.Len(t, z.RRsets, 5000)
	assert.Equal(t, "h4999.big.example.", z.RRsets[4999].Name)
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"name": "example.com.", "rrsets": [{"name": "www.example.com.", "type": "A", "ttl": 300, "records": [{"content": "192.0.2.1", "disabled": false}], "comments": [{"content": "c", "account": "a", "modified_at": 5}]}]}`))
	f.Add([]byte(`{"rrsets": [{"records": [{"content": "\"a\\\"b\" \"\u00e9\"", "disabled": true}]}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"NAME": "\ud800", "Rrsets": null, "x": [1, {"y": -0.5e3}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsEncodingJSON(t, data)
	})
}

// servedZone is n A RRsets with an ownership comment each, as PowerDNS
// serves them.
func servedZone(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"name": "big.example.", "rrsets": [`)
	for i := range n {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, `{"comments": [{"account": "pdnskit/reconcile", "content": "managed-by=bench", "modified_at": 1796027265}], "name": "host-%d.big.example.", "records": [{"content": "192.0.2.%d", "disabled": false, "modified_at": 1796027265}], "ttl": 300, "type": "A"}`, i, i%250)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// TestDecodeAllocations bounds the allocations per RRset of a served zone:
// six, measured — the name, the records and comments slices, the record's
// content and the comment's content and account (each string is a copy, as
// with encoding/json; the type "A" costs none, Go makes one-byte strings
// without allocating). The zone's slice of RRsets grows by doubling, a few
// allocations in all. A value that escapes per element shows up here
// before it shows up in a profile.
func TestDecodeAllocations(t *testing.T) {
	const n = 1000
	data := servedZone(n)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Decode(data); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs/n, 6.1, "%.0f allocations for %d RRsets", allocs, n)
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data := servedZone(n)
		b.Run(fmt.Sprintf("zonejson/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("encoding-json/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var m mirror
				if err := json.Unmarshal(data, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
