//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this
// host. A process owned by another user counts as alive.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// pidNamespace names this process's pid namespace ("" where the system
// has none to show).
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}
