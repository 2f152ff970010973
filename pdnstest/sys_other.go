//go:build !linux

package pdnstest

import (
	"os"
	"syscall"
)

// processAttr can neither chroot nor switch users here: only the host's
// programs run, as the harness's user.
func processAttr(string, *runAs) *syscall.SysProcAttr { return nil }

// processAlive cannot tell here; assume alive so nothing is swept.
func processAlive(int) bool { return true }

// tryLockFile cannot lock files here: the caller goes on without.
func tryLockFile(*os.File) bool { return true }

func unlockFile(*os.File) {}
