//go:build unix

package gemini

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used,
// so that benchmarks can report throughput per CPU second, which a busy
// machine distorts far less than wall-clock time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
