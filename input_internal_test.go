package reconcile

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
