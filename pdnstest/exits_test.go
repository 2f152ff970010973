//go:build linux

package pdnstest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExitsWaitForTheLockFile: an exit waits while another process holds
// the host-wide lock file (here another open file of it, which flock
// treats alike), gives up when its context ends, and runs once the lock is
// free.
func TestExitsWaitForTheLockFile(t *testing.T) {
	old := exitLockFile
	exitLockFile = filepath.Join(t.TempDir(), "exits.lock")
	t.Cleanup(func() { exitLockFile = old })

	other, err := os.OpenFile(exitLockFile, os.O_CREATE|os.O_RDWR, 0o666)
	require.NoError(t, err)
	defer other.Close()
	require.True(t, tryLockFile(other))

	ran := false
	ctx, cancel := context.WithTimeout(context.Background(), 5*exitPoll)
	defer cancel()
	err = oneExitAtATime(ctx, func() error { ran = true; return nil })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, ran, "no exit while another holds the lock")

	freed := make(chan struct{})
	go func() {
		defer close(freed)
		time.Sleep(3 * exitPoll)
		unlockFile(other)
	}()
	require.NoError(t, oneExitAtATime(context.Background(), func() error { ran = true; return nil }))
	<-freed
	assert.True(t, ran, "the exit runs once the lock is free")
	assert.True(t, tryLockFile(other), "and frees it after")
}
