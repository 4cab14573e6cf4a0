package proc

import "syscall"

// setDeathSig asks for SIGKILL when the thread that started the process
// exits with rein, unless a signal was already chosen. Go checks, after
// setting it, that rein did not die during the fork.
func setDeathSig(a *syscall.SysProcAttr) {
	if a.Pdeathsig == 0 {
		a.Pdeathsig = syscall.SIGKILL
	}
}
