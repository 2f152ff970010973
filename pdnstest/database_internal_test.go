package pdnstest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestartDatabaseRefused: a server whose database server others share,
// or that has none, refuses RestartDatabase, saying why; WithOwnDatabase
// on a backend without a database server fails the start.
func TestRestartDatabaseRefused(t *testing.T) {
	for _, tc := range []struct {
		backend Backend
		want    string
	}{
		{GPGSQL, "shares its database server"},
		{GMySQL, "shares its database server"},
		{GSQLite3, "has no database server"},
		{LMDB, "has no database server"},
	} {
		t.Run(string(tc.backend), func(t *testing.T) {
			srv := &Server{Backend: tc.backend, Version: "5.1.5"}
			err := srv.RestartDatabase(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("WithOwnDatabase on gsqlite3", func(t *testing.T) {
		srv, err := Launch(context.Background(), WithTarget(Target{Provider: Process, Root: HostRoot, Backend: GSQLite3}), WithOwnDatabase())
		assert.Nil(t, srv)
		assert.ErrorContains(t, err, "WithOwnDatabase")
	})
}
