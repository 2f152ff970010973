package claimrec

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func claims(n int) []Claim {
	out := make([]Claim, n)
	for i := range out {
		out[i] = Claim{Name: fmt.Sprintf("h%05d.example.", i), Type: "A", Stamp: int64(1_700_000_000_000_000_000 + i)}
		if i%3 == 0 {
			out[i].Owner = fmt.Sprintf("ns/object-%d", i)
		}
	}
	return out
}

// TestValuesReadBack: what Values writes, Parse reads back as it was, for
// claim and release records, at any budget.
func TestValuesReadBack(t *testing.T) {
	for _, budget := range []int{1, 64, 1024, ValueBytes} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			rec := Record{Writer: "dns-operator", Claims: claims(500)}
			got, ok := Parse("X-PDNSKIT-O-0123-1", rec.Values(budget))
			require.True(t, ok)
			assert.Equal(t, rec, got)

			rel := Record{Writer: "dns-operator"}
			for _, c := range rec.Claims {
				rel.Releases = append(rel.Releases, Release{Name: c.Name, Type: c.Type, Record: "X-PDNSKIT-O-0123-1"})
			}
			got, ok = Parse("X-PDNSKIT-R-0123-2", rel.Values(budget))
			require.True(t, ok)
			assert.Equal(t, rel, got)
		})
	}
}

// TestValuesPacked: claims share values, each within the budget as JSON,
// so that 1,000 claims take a few rows rather than 1,000.
func TestValuesPacked(t *testing.T) {
	rec := Record{Writer: "w", Claims: claims(1000)}
	values := rec.Values(ValueBytes)
	assert.Equal(t, "writer w", values[0])
	assert.LessOrEqual(t, len(values), 1+6, "1,000 claims of about 60 bytes in values of 16 KiB")
	for _, v := range values[1:] {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(b), ValueBytes)
		assert.True(t, strings.HasPrefix(v, "claims "), v)
	}
	// Owners are escaped in JSON: the budget counts what is sent.
	html := Record{Writer: "w", Claims: []Claim{{Name: "a.", Type: "A", Stamp: 1, Owner: "<&>"}, {Name: "b.", Type: "A", Stamp: 1, Owner: "<&>"}}}
	both := html.Values(1 << 10)
	require.Len(t, both, 2)
	b, err := json.Marshal(both[1])
	require.NoError(t, err)
	assert.Len(t, html.Values(len(b))[1:], 1, "both fit in what their value weighs, escapes counted")
	assert.Len(t, html.Values(len(b) - 1)[1:], 2)
	assert.Equal(t, []string{"writer w"}, Record{Writer: "w"}.Values(ValueBytes), "an empty record is its writer line")
}

// TestParseEarlierForms: the values earlier versions wrote, one claim or
// release each, and the one kind per writer of the first versions.
func TestParseEarlierForms(t *testing.T) {
	got, ok := Parse("X-PDNSKIT-O-AAA-1", []string{"writer me", "claim a.x. A 10", "claim b.x. AAAA 11 ns/b"})
	require.True(t, ok)
	assert.Equal(t, Record{Writer: "me", Claims: []Claim{{Name: "a.x.", Type: "A", Stamp: 10}, {Name: "b.x.", Type: "AAAA", Stamp: 11, Owner: "ns/b"}}}, got)

	got, ok = Parse("X-PDNSKIT-R-AAA-2", []string{"writer me", "release a.x. A X-PDNSKIT-O-AAA-1"})
	require.True(t, ok)
	assert.Equal(t, Record{Writer: "me", Releases: []Release{{Name: "a.x.", Type: "A", Record: "X-PDNSKIT-O-AAA-1"}}}, got)

	got, ok = Parse(LegacyKind("old"), []string{"writer old", "claim e.x. A 5"})
	require.True(t, ok)
	assert.Equal(t, Record{Writer: "old", Claims: []Claim{{Name: "e.x.", Type: "A", Stamp: 5}}}, got)
	_, ok = Parse("X-PDNSKIT-OWNER-0000", []string{"writer forged", "claim f.x. A 5"})
	assert.False(t, ok, "a legacy kind must be its writer's")
}

// TestParseSaysNothingOfWhatItCannotRead: a kind that is not a record, a
// record without its writer line (not whole yet), and values cut or not
// written by this package say nothing; the rest of the record stands.
func TestParseSaysNothingOfWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		values     []string
	}{
		{"not a record", "ALLOW-AXFR-FROM", []string{"writer me", "claim a.x. A 1"}},
		{"no writer line", "X-PDNSKIT-O-AAA-1", []string{"claims a.x. A 1 ="}},
		{"empty writer", "X-PDNSKIT-O-AAA-1", []string{"writer ", "claims a.x. A 1 ="}},
		{"nothing at all", "X-PDNSKIT-R-AAA-1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok := Parse(tc.kind, tc.values)
			assert.False(t, ok)
		})
	}
	got, ok := Parse("X-PDNSKIT-O-AAA-1", []string{
		"writer me",
		"claims a.x. A 1 = b.x. A", // cut: not a whole number of groups
		"claims c.x. A nan = d.x. A 2 =ns/d e.x. A 3 ns/e",
		"claim broken", "claim g.x. A notanumber", "other",
		"releases a.x. A X-PDNSKIT-O-AAA-0", // a release in a claim record
		"claims f.x. TXT 4 =",
	})
	require.True(t, ok)
	assert.Equal(t, Record{Writer: "me", Claims: []Claim{{Name: "d.x.", Type: "A", Stamp: 2, Owner: "ns/d"}, {Name: "f.x.", Type: "TXT", Stamp: 4}}}, got,
		"a group without its owner mark, or with a stamp that is not a number, says nothing")

	got, ok = Parse("X-PDNSKIT-R-AAA-2", []string{"writer me", "releases a.x. A", "claims a.x. A 1 =", "releases b.x. A X-PDNSKIT-O-AAA-1"})
	require.True(t, ok)
	assert.Equal(t, Record{Writer: "me", Releases: []Release{{Name: "b.x.", Type: "A", Record: "X-PDNSKIT-O-AAA-1"}}}, got)
}

func FuzzParse(f *testing.F) {
	f.Add("X-PDNSKIT-O-A-1", "writer w\nclaims a.x. A 1 =ns/a b.x. AAAA 2 =\nclaim c.x. A 3")
	f.Add("X-PDNSKIT-R-A-2", "writer w\nreleases a.x. A X-PDNSKIT-O-A-1\nrelease b.x. A X-PDNSKIT-O-A-1")
	f.Fuzz(func(t *testing.T, kind, text string) {
		rec, ok := Parse(kind, strings.Split(text, "\n"))
		if !ok {
			return
		}
		if strings.ContainsAny(rec.Writer, "\n") {
			t.Fatalf("writer %q spans values", rec.Writer)
		}
		// What was read, written again, reads back the same.
		again, ok := Parse(kind, rec.Values(ValueBytes))
		if !ok {
			t.Fatalf("%+v does not read back", rec)
		}
		if IsRelease(kind) {
			rec.Claims = nil
		}
		assert.Equal(t, fmt.Sprint(rec.Claims, rec.Releases), fmt.Sprint(again.Claims, again.Releases))
	})
}
