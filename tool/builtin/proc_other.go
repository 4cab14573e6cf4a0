//go:build !unix

package builtin

import (
	"fmt"
	"os/exec"
)

// exitSignal names the signal that ended the process; there is none here.
func exitSignal(ee *exec.ExitError) string { return "" }

// signalFromCode names signal number n.
func signalFromCode(n int) string { return fmt.Sprintf("signal %d", n) }
