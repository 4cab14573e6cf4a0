//go:build unix

package anthropic

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system.
// Benchmarks report figures per CPU second as well as per wall second,
// because on a shared machine wall time also counts waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
