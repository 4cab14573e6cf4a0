package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// bwrapArgs returns bwrap's arguments, up to and including "--", for p
// and a command to be run in dir. seccompFD is the descriptor the
// command's seccomp program is read from, or -1 for none.
func bwrapArgs(p Policy, dir string, seccompFD int) []string {
	a := []string{
		"--die-with-parent", // the namespace dies with bwrap, bwrap with rein (Pdeathsig)
		"--unshare-pid",     // hides rein's /proc/<pid>/environ; all descendants die together
		"--unshare-ipc",
		// A user namespace with every capability dropped: run as root,
		// the command cannot remount, unmount or mount anything, and
		// cannot make a namespace of its own to regain capabilities.
		"--unshare-user",
		"--disable-userns",
		"--cap-drop", "ALL",
		"--new-session", // no controlling terminal: no TIOCSTI into the user's shell
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		// The kernel checks /proc/sys writes by user id, not by
		// capability: root without capabilities could still change
		// sysctls. Bound read-only, it cannot.
		"--ro-bind", "/proc/sys", "/proc/sys",
		"--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
	}
	for _, h := range p.hidden() {
		if real, err := filepath.EvalSymlinks(h); err == nil {
			h = real
		}
		st, err := os.Stat(h)
		switch {
		case err != nil:
		case st.IsDir():
			a = append(a, "--tmpfs", h, "--remount-ro", h)
		default:
			a = append(a, "--ro-bind", "/dev/null", h)
		}
	}
	if p.TempDir != "" {
		a = append(a, "--bind", p.TempDir, "/tmp")
	}
	w := p.writable()
	for _, d := range w {
		a = append(a, "--bind", d, d)
	}
	if len(w) == 0 && filepath.IsAbs(p.Workspace) {
		// Read-only mode: a workspace under /tmp must stay visible
		// through the private /tmp.
		a = append(a, "--ro-bind-try", p.Workspace, p.Workspace)
	}
	prot := p.protected()
	for _, d := range pins(p.Workspace, prot) {
		a = append(a, "--bind", d, d)
	}
	for _, q := range prot {
		a = append(a, "--ro-bind", q, q)
	}
	if p.NoNetwork {
		a = append(a, "--unshare-net")
	}
	if seccompFD >= 0 {
		a = append(a, "--seccomp", strconv.Itoa(seccompFD))
	}
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	return append(a, "--")
}

// pins returns the directories between the workspace and each protected
// path (the workspace and the paths themselves excluded), outermost
// first. Bound onto themselves they become mount points, which rename
// and rmdir refuse (EBUSY): `mv .git x` cannot carry .git/config away
// from its read-only bind and leave room for a planted one.
func pins(workspace string, protected []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range protected {
		rel, err := filepath.Rel(workspace, q)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		d := workspace
		for _, part := range parts[:len(parts)-1] {
			d = filepath.Join(d, part)
			if seen[d] {
				continue
			}
			seen[d] = true
			if st, err := os.Lstat(d); err == nil && st.IsDir() {
				out = append(out, d)
			}
		}
	}
	return out
}

func wrapBwrap(cmd *exec.Cmd, p Policy) error {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("sandbox: bubblewrap: %w", err)
	}
	fd := -1
	if p.NoNetwork {
		f, err := seccompFile()
		if err != nil {
			return err
		}
		if f != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
			fd = 2 + len(cmd.ExtraFiles)
		}
	}
	args := append([]string{path}, bwrapArgs(p, cmd.Dir, fd)...)
	args = append(args, cmd.Path)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = path, args
	setDeathSig(cmd)
	return nil
}

// setDeathSig makes the started process die when rein's thread that
// started it exits (with rein).
func setDeathSig(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
