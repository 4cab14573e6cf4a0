// Package cputime reads the CPU time of the process, the figure
// benchmarks report beside wall time on a shared, busy machine.
package cputime

import "time"

// Self is the user plus system CPU time of this process so far; zero
// where the platform does not say.
func Self() time.Duration { return self() }
