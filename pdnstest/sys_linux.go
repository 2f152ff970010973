package pdnstest

import (
	"errors"
	"syscall"
)

// processAttr runs pdns_server inside root (unless it is the host's), and
// kills it if the test binary dies before its cleanup runs.
func processAttr(root string) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if root != HostRoot {
		attr.Chroot = root
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
