package apikey_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/examples/internal/apikey"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "key")
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(good, []byte("  s3cret\n"), 0o600))
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))

	t.Setenv(apikey.Env, "from-env")
	key, source, err := apikey.Read(good)
	require.NoError(t, err)
	assert.Equal(t, "s3cret", key, "the file wins, trimmed")
	assert.Equal(t, "-api-key-file "+good, source)

	key, source, err = apikey.Read("")
	require.NoError(t, err)
	assert.Equal(t, "from-env", key)
	assert.Equal(t, "$"+apikey.Env, source)

	_, _, err = apikey.Read(empty)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	_, _, err = apikey.Read(filepath.Join(dir, "missing"))
	require.Error(t, err)

	t.Setenv(apikey.Env, "")
	_, _, err = apikey.Read("")
	assert.ErrorIs(t, err, apikey.ErrMissing)
}
