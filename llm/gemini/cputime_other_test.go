//go:build !unix

package gemini

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
