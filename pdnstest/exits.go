package pdnstest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Containers exit one at a time.
//
// The Docker engine Debian 12 ships (docker.io 20.10.24) can deadlock when
// containers exit at once: the exit of one takes its network's lock, then
// the engine's (getSvcRecords, as the container leaves the network), while
// the engine's watch of another container's deleted endpoint takes them the
// other way round (processEndpointDelete). From then on the engine answers
// nothing that touches networking and its embedded DNS answers nothing: seen
// here once in eight runs of the suite, when a test binary stopped its
// dozen servers at once (every gpgsql frontend lost its database's name,
// every later stop timed out, and the engine had to be restarted). Later
// engines take the locks in one order. So the harness stops, kills and
// removes containers one at a time, across every test binary on the host:
// a mutex within this process and a lock file between processes.
var exitMu sync.Mutex

// exitLockFile is the lock file shared by every test binary on the host.
var exitLockFile = filepath.Join(os.TempDir(), "pdnstest-container-exits.lock")

// exitPoll is how often a waiting exit tries the lock file again.
const exitPoll = 20 * time.Millisecond

// oneExitAtATime runs fn, which makes containers exit, when no other exit
// of this harness runs on the host, or gives up when ctx ends first.
func oneExitAtATime(ctx context.Context, fn func() error) error {
	exitMu.Lock()
	defer exitMu.Unlock()
	unlock, err := lockExits(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// lockExits takes the host-wide lock file, polling so that ctx can end the
// wait. Where no lock file can be had (it cannot be opened, or the system
// has no file locks), the mutex alone serialises this process's exits.
func lockExits(ctx context.Context) (unlock func(), err error) {
	f := openExitLock()
	if f == nil {
		return func() {}, nil
	}
	for {
		if tryLockFile(f) {
			return func() { unlockFile(f); _ = f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-time.After(exitPoll):
		}
	}
}

// openExitLock opens the lock file, nil when it cannot.
func openExitLock() *os.File {
	f, err := os.OpenFile(exitLockFile, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil
	}
	return f
}
