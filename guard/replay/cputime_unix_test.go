//go:build unix

package replay

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start, which unlike
// ns/op does not grow when other processes compete for the machine.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}
