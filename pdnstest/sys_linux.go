package pdnstest

import (
	"errors"
	"os"
	"syscall"
)

// processAttr runs a server inside root (unless it is the host's), as user
// when one is given, and kills it if the test binary dies before its
// cleanup runs.
func processAttr(root string, user *runAs) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if root != HostRoot {
		attr.Chroot = root
	}
	if user != nil {
		attr.Credential = &syscall.Credential{Uid: user.uid, Gid: user.gid}
	}
	return attr
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// tryLockFile takes an exclusive lock on f without waiting: false while
// another process holds it. A file system without locks counts as locked,
// so that the caller goes on.
func tryLockFile(f *os.File) bool {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return !errors.Is(err, syscall.EWOULDBLOCK)
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
