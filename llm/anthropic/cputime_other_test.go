//go:build !unix

package anthropic

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }
