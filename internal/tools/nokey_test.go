package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/pdnstest"
)

// TestNoAPIKeyScript: the script make test runs over its own output fails
// on a log holding a key of the harness, and passes a clean one.
func TestNoAPIKeyScript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.log")
	leaked := filepath.Join(dir, "leaked.log")
	require.NoError(t, os.WriteFile(clean, []byte("=== RUN TestX\n--- PASS: TestX\n"), 0o600))
	require.NoError(t, os.WriteFile(leaked, []byte("ok\nerror: bad key "+pdnstest.APIKeyPrefix+"00ff\n"), 0o600))

	out, err := exec.Command("./no-api-key.sh", clean).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command("./no-api-key.sh", clean, leaked).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "leaked.log")
	assert.NotContains(t, string(out), pdnstest.APIKeyPrefix+"00ff", "the script names the line, not the key")
}
