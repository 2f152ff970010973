package rrset_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/rrset"
)

// TestZone: a Zone parsed once builds what New, NewLive and CanonicalName
// build from the zone's name, with the same errors.
func TestZone(t *testing.T) {
	z, err := rrset.ParseZone("Example.COM")
	require.NoError(t, err)
	assert.Equal(t, "example.com.", z.String())
	for _, c := range []struct{ name, typ, content string }{
		{"@", "MX", "10 mail"}, {"API", "A", "192.0.2.1"}, {"www.example.com", "CNAME", "@"},
		{"x", "TXT", "unquoted"}, {"out.example.org.", "A", "192.0.2.1"}, {"bad", "A", "192.0.2.300"},
	} {
		got, gotErr := z.New(c.name, c.typ, 300, c.content)
		want, wantErr := rrset.New("Example.COM", c.name, c.typ, 300, c.content)
		assert.Equal(t, want, got, "%v", c)
		assert.Equal(t, wantErr, gotErr, "%v", c)
		got, gotErr = z.NewLive(c.name, c.typ, 300, c.content)
		want, wantErr = rrset.NewLive("Example.COM", c.name, c.typ, 300, c.content)
		assert.Equal(t, want, got, "%v", c)
		assert.Equal(t, wantErr, gotErr, "%v", c)
		gotName, gotErr := z.CanonicalName(c.name)
		wantName, wantErr := rrset.CanonicalName("Example.COM", c.name)
		assert.Equal(t, wantName, gotName)
		assert.Equal(t, wantErr, gotErr)
	}
	_, err = rrset.ParseZone("a..b")
	var nameErr *rrset.NameError
	assert.ErrorAs(t, err, &nameErr)

	var zero rrset.Zone
	_, err = zero.New("www", "A", 300, "192.0.2.1")
	assert.ErrorAs(t, err, &nameErr)
	_, err = zero.NewLive("www", "A", 300, "192.0.2.1")
	assert.ErrorAs(t, err, &nameErr)
	_, err = zero.CanonicalName("www")
	assert.ErrorAs(t, err, &nameErr)
}
