package pdnstest

import (
	"errors"
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
