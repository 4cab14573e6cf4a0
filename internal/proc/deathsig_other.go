//go:build unix && !linux

package proc

import "syscall"

// setDeathSig does nothing where there is no parent-death signal.
func setDeathSig(a *syscall.SysProcAttr) {}
