//go:build unix

package builtin

import (
	"fmt"
	"os/exec"
	"syscall"
)

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGHUP: "SIGHUP", syscall.SIGILL: "SIGILL", syscall.SIGINT: "SIGINT",
	syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM", syscall.SIGUSR1: "SIGUSR1",
	syscall.SIGUSR2: "SIGUSR2", syscall.SIGXCPU: "SIGXCPU",
}

// exitSignal names the signal that ended the process, or "".
func exitSignal(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return signalName(ws.Signal())
	}
	return ""
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return fmt.Sprintf("%s (%s)", n, s)
	}
	return fmt.Sprintf("%d (%s)", int(s), s)
}

// signalFromCode names signal number n.
func signalFromCode(n int) string { return signalName(syscall.Signal(n)) }
