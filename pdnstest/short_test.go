package pdnstest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShortStartsNothing: under -short the harness says why it starts no
// server.
func TestShortStartsNothing(t *testing.T) {
	if !testing.Short() {
		t.Skip("run with -short")
	}
	assert.True(t, short())
	_, err := SharedServer()
	require.ErrorIs(t, err, errShort)
	assert.True(t, strings.HasPrefix(err.Error(), "-short"), err.Error())
}
