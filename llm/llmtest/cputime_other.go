//go:build !unix

package llmtest

import "time"

// CPUTime reports no CPU time where the platform has no getrusage.
func CPUTime() (time.Duration, bool) { return 0, false }
