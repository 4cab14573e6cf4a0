//go:build unix

package session

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this
// host. A process owned by another user counts as alive.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
