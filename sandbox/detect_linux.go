package sandbox

import (
	"os/exec"
	"sync"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Detect returns the best confinement mechanism this system offers:
// Bwrap when the bwrap program is installed and can create namespaces
// here, else Landlock when the kernel has it, else None. The probe runs
// once per process.
func Detect() Backend { return detect() }

// Guess is Detect without starting a process: Bwrap when the bwrap
// program is on the PATH, else Landlock when the kernel has it, else
// None. It costs no start-up time, so a program can describe its
// sandbox before the first command; a bwrap that is installed but
// cannot create namespaces is found by Detect at the first command,
// which then falls back as Wrap documents.
func Guess() Backend {
	if _, err := exec.LookPath("bwrap"); err == nil {
		return Bwrap
	}
	if LandlockABI() > 0 {
		return Landlock
	}
	return None
}

var detect = sync.OnceValue(func() Backend {
	if bwrapWorks() {
		return Bwrap
	}
	if LandlockABI() > 0 {
		return Landlock
	}
	return None
})

// LandlockABI returns the kernel's Landlock ABI version, or 0 when the
// kernel has no Landlock.
func LandlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// bwrapWorks reports whether bwrap is installed and can set up the
// namespaces Wrap asks for (containers often forbid them).
func bwrapWorks() bool {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return false
	}
	// The probe uses every flag bwrapArgs does that an older bwrap or a
	// locked-down container may refuse (user namespaces, --disable-userns
	// since bubblewrap 0.8).
	cmd := exec.Command(path, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--", "true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if helperRegistered.Load() {
		// Under the helper, like every bwrap rein starts: if rein dies
		// during the probe, the probe's inner bwrap is reaped too.
		if err := wrapHelper(cmd, Policy{}, false); err != nil {
			return false
		}
	}
	return cmd.Run() == nil
}
