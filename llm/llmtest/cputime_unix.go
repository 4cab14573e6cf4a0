//go:build unix

package llmtest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used, user and system,
// and whether the platform reports it. Benchmarks report figures per CPU
// second beside those per wall-clock second: on a shared, busy machine
// wall-clock time also counts the wait for a core.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
