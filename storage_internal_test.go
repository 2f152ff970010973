package reconcile

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/claimrec"
	"github.com/pdnskit/reconcile/rrset"
)

// TestKindsFitTheColumn: no metadata kind the library generates can be
// longer than the 32 characters every SQL backend stores for a kind, at
// any sequence, the first, the last before the sequence starts over, and
// after it; nor can the library's comment accounts exceed theirs.
func TestKindsFitTheColumn(t *testing.T) {
	r, err := New("http://127.0.0.1:1", WithManagedBy("me"))
	require.NoError(t, err)
	assert.Len(t, r.instance, 12)
	assert.Len(t, newInstance(), 12)
	prefixes := []string{lockHeldPrefix, lockWaitPrefix, claimrec.ClaimPrefix, claimrec.ReleasePrefix}
	for _, start := range []uint64{0, kindSeqs - 3, math.MaxUint64 - 2, 35, 36*36*36 - 2} {
		r.seq.Store(start)
		for range 4 {
			for _, p := range prefixes {
				k := r.kind(p)
				assert.LessOrEqual(t, len(k), kindColumn, "%q after sequence %d", k, start)
				assert.True(t, r.ownKind(k) || !strings.HasPrefix(k, "X-PDNSKIT-L-") && !strings.HasPrefix(k, "X-PDNSKIT-W-"), k)
			}
		}
	}
	// The longest: the last sequence before it starts over.
	r.seq.Store(kindSeqs - 2)
	assert.Len(t, r.kind(lockHeldPrefix), kindColumn)
	assert.Equal(t, lockHeldPrefix+r.instance+"-0", r.kind(lockHeldPrefix), "the sequence starts over")
	for _, w := range []string{"", "me", strings.Repeat("ÿ", 100)} {
		assert.LessOrEqual(t, len(claimrec.LegacyKind(w)), kindColumn)
	}
	for _, a := range []string{commentAccount, noteAccount} {
		assert.NoError(t, checkAccount("account", a))
	}
	assert.LessOrEqual(t, rrset.MaxCommentSize, 65535, "gmysql's TEXT")
}

// TestStorageRefusals: every value some backend cannot store is refused,
// with a *StorageError naming its field, within the error of New or of the
// call; a value at the limit is not.
func TestStorageRefusals(t *testing.T) {
	for _, w := range []string{"Пётр", "writer-🦀", "名前"} {
		_, err := New("http://127.0.0.1:1", WithManagedBy(w))
		var ce *ConfigError
		require.ErrorAs(t, err, &ce, w)
		assert.Equal(t, "WithManagedBy", ce.Option)
		var se *StorageError
		require.ErrorAs(t, err, &se, w)
		assert.Equal(t, "WithManagedBy", se.Field)
		assert.Equal(t, w, se.Value)
	}
	_, err := New("http://127.0.0.1:1", WithManagedBy("ÿ-é-latin-1"))
	require.NoError(t, err)

	for _, o := range []string{"ns/Пётр", "ns/🦀"} {
		err := checkOwner(o)
		var se *StorageError
		require.ErrorAs(t, err, &se, o)
		assert.Equal(t, "WithOwner", se.Field)
		_, err = newStamp(testZone, "me", o)
		var in *InputError
		require.ErrorAs(t, err, &in)
		require.ErrorAs(t, err, &se)
	}
	assert.NoError(t, checkOwner("ns/ünï"))
	assert.NoError(t, checkOwner(""))
	var se *StorageError
	assert.False(t, errors.As(checkOwner("has space"), &se), "a space is no storage matter")

	spec := func(f func(*ZoneSpec)) ZoneSpec {
		s := ZoneSpec{Nameservers: []string{"ns1.example.net."}}
		f(&s)
		return s
	}
	at := strings.Repeat("é", accountColumn)
	for _, tc := range []struct {
		name, field string
		spec        ZoneSpec
	}{
		{"account too long", "ZoneSpec.Account", spec(func(s *ZoneSpec) { s.Account = at + "x" })},
		{"account emoji", "ZoneSpec.Account", spec(func(s *ZoneSpec) { s.Account = "team-🦀" })},
		{"account NUL", "ZoneSpec.Account", spec(func(s *ZoneSpec) { s.Account = "a\x00b" })},
		{"masters too long", "ZoneSpec.Masters", spec(func(s *ZoneSpec) {
			s.Kind, s.Masters = "Slave", []string{strings.Repeat("1", 64), strings.Repeat("2", 63)}
		})},
		{"soa-edit", "ZoneSpec.SOAEdit", spec(func(s *ZoneSpec) { s.SOAEdit = "ЕПОХА" })},
		{"soa-edit-api", "ZoneSpec.SOAEditAPI", spec(func(s *ZoneSpec) { s.SOAEditAPI = "🦀" })},
		{"nsec3param", "ZoneSpec.NSEC3Param", spec(func(s *ZoneSpec) { s.NSEC3Param = "1 0 0 Ω" })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.spec.canonical(testZone)
			var in *InputError
			require.ErrorAs(t, err, &in)
			var se *StorageError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.field, se.Field)
			assert.Contains(t, err.Error(), tc.field)
		})
	}
	_, err = spec(func(s *ZoneSpec) {
		s.Account = at
		s.Kind, s.Masters = "Slave", []string{strings.Repeat("1", 63), strings.Repeat("2", 63)}
	}).canonical(testZone)
	assert.NoError(t, err, "at the limits")

	z, err := rrset.ParseZone(testZone)
	require.NoError(t, err)
	st := stamp{writer: "me"}
	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "TXT", TTL: 60, Records: []string{txtOfLength(t, testZone, contentColumn)}})
	require.NoError(t, err, "at the limit")
	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "TXT", TTL: 60, Records: []string{txtOfLength(t, testZone, contentColumn+1)}})
	var in *InputError
	require.ErrorAs(t, err, &in)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "RRset.Records", se.Field)
	assert.Less(t, len(err.Error()), 300, "the message quotes the content cut short")

	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "LUA", TTL: 60, Records: []string{`A "return 'snow ☃'"`}})
	require.ErrorAs(t, err, &se, "LUA keeps its text as written")
	assert.Equal(t, "RRset.Records", se.Field)
	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "LUA", TTL: 60, Records: []string{`A "return 'café'"`}})
	require.NoError(t, err)
	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "TXT", TTL: 60, Records: []string{"snow ☃"}})
	require.NoError(t, err, "escaped as \\DDD")

	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "A", TTL: 60, Records: []string{"192.0.2.1"}, Comment: "deploy 🚀"})
	var re *rrset.RecordError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, rrset.ReasonInvalidComment, re.Reason)
	_, err = st.canonicalRRset(z, rrset.RRset{Name: "t", Type: "A", TTL: 60, Records: []string{"192.0.2.1"}, Comment: "Пётр: déployé \uffff"})
	assert.NoError(t, err, "the Basic Multilingual Plane is stored by every backend")

}

// txtOfLength is a canonical TXT content of exactly n bytes (n > 300):
// k quoted strings of at most 255 characters, a space between them.
func txtOfLength(t *testing.T, zone string, n int) string {
	t.Helper()
	k := (n + 1 + 257) / 258 // each string takes at most 258 bytes with its quotes and space
	chars := n - 3*k + 1
	parts := make([]string, k)
	for i := range parts {
		l := chars / k
		if i < chars%k {
			l++
		}
		parts[i] = `"` + strings.Repeat("a", l) + `"`
	}
	s := strings.Join(parts, " ")
	require.Equal(t, n, len(s))
	rr, err := rrset.New(zone, "t", "TXT", 60, s)
	require.NoError(t, err)
	require.Equal(t, s, rr.Records[0], "canonical as written")
	return s
}
