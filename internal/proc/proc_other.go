//go:build !unix

package proc

import (
	"os"
	"os/exec"
	"time"
)

// Prepare does nothing where there are no process groups.
func Prepare(cmd *exec.Cmd) {}

// Stop kills the process; without process groups its children are not
// reached.
func Stop(pid int, exited <-chan struct{}, grace time.Duration) { Kill(pid) }

// Kill kills the process and the extra ones given.
func Kill(pid int, extra ...int) {
	for _, p := range append([]int{pid}, extra...) {
		if pr, err := os.FindProcess(p); err == nil {
			_ = pr.Kill()
		}
	}
}

// Alive cannot tell here; it reports false.
func Alive(pgid int) bool { return false }
