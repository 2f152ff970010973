package reconcile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

func TestValidOwner(t *testing.T) {
	for _, ok := range []string{"ns/name", "team=a/obj", "ünïcode/名前", strings.Repeat("x", 253)} {
		assert.Empty(t, validOwner(ok), "%q", ok)
	}
	for _, bad := range []string{
		"has space", "tab\there", "no\u00a0break", "em\u2003space", "ideographic\u3000space",
		"next\u0085line", "caf\xe9", strings.Repeat("x", 254),
	} {
		assert.NotEmpty(t, validOwner(bad), "%q", bad)
	}
}

// TestNewStamp: an owner that cannot be stored is an *InputError naming
// the zone and the owner, before any request; no owner is no check.
func TestNewStamp(t *testing.T) {
	st, err := newStamp(testZone, "me", "ns/obj")
	require.NoError(t, err)
	assert.Equal(t, stamp{writer: "me", owner: "ns/obj"}, st)
	_, err = newStamp(testZone, "me", "")
	require.NoError(t, err)

	_, err = newStamp(testZone, "me", "has space")
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.Equal(t, testZone, in.Zone)
	assert.Contains(t, err.Error(), testZone)
	assert.Contains(t, err.Error(), `"has space"`)
}

// TestDesiredComment: a desired RRset keeps its comment through
// canonicalisation; one that cannot be written is an *InputError; two
// spellings of one key with different comments are refused.
func TestDesiredComment(t *testing.T) {
	st := stamp{writer: "me"}
	www := rrset.RRset{Name: "WWW", Type: "a", TTL: 300, Records: []string{"192.0.2.1"}, Comment: "ticket 42"}
	set, err := st.desiredSet(testZone, []rrset.RRset{www})
	require.NoError(t, err)
	got, ok := set.Get(rrset.Key{Name: "www." + testZone, Type: "A"})
	require.True(t, ok)
	assert.Equal(t, "ticket 42", got.Comment)

	bad := www
	bad.Comment = "nul\x00"
	_, err = st.desiredSet(testZone, []rrset.RRset{bad})
	var input *InputError
	require.ErrorAs(t, err, &input)
	var re *rrset.RecordError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, rrset.ReasonInvalidComment, re.Reason)

	other := www
	other.Name, other.Comment = "www."+testZone, "ticket 43"
	_, err = st.desiredSet(testZone, []rrset.RRset{www, other})
	assert.ErrorAs(t, err, &input)
	other.Comment = www.Comment
	_, err = st.desiredSet(testZone, []rrset.RRset{www, other})
	assert.NoError(t, err)
}
