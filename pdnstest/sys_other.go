//go:build !linux

package pdnstest

import "syscall"

// processAttr cannot chroot here: only the host's pdns_server can run.
func processAttr(string) *syscall.SysProcAttr { return nil }

// processAlive cannot tell here; assume alive so nothing is swept.
func processAlive(int) bool { return true }
