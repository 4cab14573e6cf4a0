// Package sandbox confines the commands rein runs (bash calls, command
// hooks, MCP servers) to a policy: which directories they may write, and
// whether they may use the network.
//
// Two mechanisms are used, the first one available:
//
//   - bubblewrap (the bwrap program): the command runs in new PID, mount
//     and (with the network off) network namespaces, the file system
//     bound read-only except the writable directories. The new PID
//     namespace also hides rein's own /proc/<pid>/environ, and every
//     process the command starts, setsid'd or not, dies with it.
//   - Landlock, applied by a small helper child (the calling program run
//     again with HelperArg, see RunHelper) to itself before it starts the
//     command, so the restriction is inherited and cannot be lifted. The
//     helper is a child subreaper: processes the command leaves behind
//     are killed when the command ends or the helper is told to stop.
//
// When neither is available, Wrap follows Policy.Fallback: refuse the
// command, or run it unconfined (still through the helper, which reaps
// its orphans). Notice says so once, in words for a person.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// helperRegistered is set by RunHelper: the running program can act as
// the helper, so Wrap may start it with HelperArg.
var helperRegistered atomic.Bool

// Mode is how much of the file system a confined command may change.
type Mode string

const (
	// ReadOnly lets the command read everything and write nothing but
	// a private temporary directory.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite lets the command write the workspace and the
	// temporary directory; everything else, and the protected paths
	// inside the workspace, stay read-only. The default when a sandbox
	// is available.
	WorkspaceWrite Mode = "workspace-write"
	// Off runs commands unconfined (orphans are still reaped).
	Off Mode = "off"
)

// ParseMode parses a mode name as written in config and flags; "" is
// WorkspaceWrite.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return WorkspaceWrite, nil
	case ReadOnly, WorkspaceWrite, Off:
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox mode %q is not one of read-only, workspace-write, off", s)
}

// Fallback is what Wrap does when the policy asks for confinement and no
// mechanism is available.
type Fallback string

const (
	// Unconfined runs the command without confinement (after Notice has
	// said so once). The default.
	Unconfined Fallback = "unconfined"
	// Refuse makes Wrap return an *UnavailableError.
	Refuse Fallback = "refuse"
)

// Backend names a confinement mechanism.
type Backend string

const (
	Bwrap    Backend = "bwrap"
	Landlock Backend = "landlock"
	None     Backend = "none"
)

// Policy says how a command is confined. The zero value with Workspace
// set is workspace-write, network on, unconfined fallback.
type Policy struct {
	Mode Mode
	// NoNetwork cuts the command off the network (bwrap: a new network
	// namespace with only loopback; Landlock: TCP connect and bind
	// refused).
	NoNetwork bool
	// Workspace is the directory WorkspaceWrite makes writable; it must
	// be absolute.
	Workspace string
	// Writable lists more directories to make writable.
	Writable []string
	// TempDir is the command's private temporary directory: writable in
	// WorkspaceWrite, seen as /tmp under bwrap and named by TMPDIR in
	// every confined mode. The shared /tmp is not writable. "" means a
	// directory private to this process, made on first use (see
	// PrivateTemp).
	TempDir string
	// Protected lists paths inside the workspace that stay read-only;
	// nil means DefaultProtected(Workspace). bwrap binds each existing
	// one read-only over itself (a mount point cannot be renamed or
	// removed, so renaming a parent does not get around it); Landlock
	// cannot (its rules only add access). Missing ones are found by
	// Watch when a command creates them.
	Protected []string
	// Hidden lists files and directories a command may not read; nil
	// means DefaultHidden of the user's home directory. bwrap mounts an
	// empty directory (or an empty file) over each existing one;
	// Landlock cannot hide a path.
	Hidden []string
	// Fallback is what happens when no mechanism is available.
	Fallback Fallback
	// Backend forces a mechanism; "" picks the best available.
	Backend Backend
	// Helper is the program that implements HelperArg (see RunHelper);
	// "" means the running executable.
	Helper string
}

// DefaultProtected returns the paths inside the workspace that stay
// read-only in WorkspaceWrite: the files that make programs run outside
// the sandbox later — git's hooks and config (core.fsmonitor, aliases,
// filters), rein's own config, and the Claude-style settings and MCP
// server list that agents read at start-up.
func DefaultProtected(workspace string) []string {
	return []string{
		filepath.Join(workspace, ".git", "hooks"),
		filepath.Join(workspace, ".git", "config"),
		filepath.Join(workspace, ".rein"),
		filepath.Join(workspace, ".claude"),
		filepath.Join(workspace, ".mcp.json"),
	}
}

// DefaultHidden returns the files and directories under home that hold
// credentials and that commands have no need to read: SSH and GnuPG
// keys, cloud, container and cluster credentials, and password files.
// An empty home gives nil.
func DefaultHidden(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, n := range []string{
		".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube",
		".docker", ".netrc", ".git-credentials", ".pgpass", ".config/gh",
		".pypirc", ".cargo/credentials.toml", ".vault-token",
	} {
		out = append(out, filepath.Join(home, filepath.FromSlash(n)))
	}
	return out
}

// UnavailableError is returned by Wrap when the policy asks for
// confinement, no mechanism is available and the fallback is Refuse.
type UnavailableError struct{ Mode Mode }

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("the command was not run: the sandbox mode is %s but neither bubblewrap nor Landlock is available on this system, and the configured policy refuses to run commands unconfined. Ask the user for permission to run it unconfined, or install bubblewrap (apt-get install bubblewrap)", e.Mode)
}

// ErrUnavailable is matched by errors.Is for every *UnavailableError.
var ErrUnavailable = errors.New("sandbox unavailable")

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Wrap rewrites cmd, which must not have been started, so that it runs
// confined by p, and returns the mechanism used. cmd.Path, cmd.Args,
// cmd.Dir, cmd.Env and cmd.SysProcAttr's process-group settings are
// kept in meaning; the process started is bwrap or the helper, whose
// death takes the command and everything it started with it. Wrap is
// safe for concurrent use.
func Wrap(cmd *exec.Cmd, p Policy) (Backend, error) {
	if cmd.Process != nil {
		return None, errors.New("sandbox: the command has already started")
	}
	if cmd.Err != nil {
		return None, cmd.Err
	}
	mode := p.Mode
	if mode == "" {
		mode = WorkspaceWrite
	}
	p.Mode = mode
	if mode != Off && mode != ReadOnly && mode != WorkspaceWrite {
		return None, fmt.Errorf("sandbox: unknown mode %q", mode)
	}
	if mode == WorkspaceWrite && !filepath.IsAbs(p.Workspace) {
		return None, fmt.Errorf("sandbox: the workspace %q is not an absolute path", p.Workspace)
	}
	b := p.Backend
	if mode == Off {
		b = None
	} else if b == "" {
		b = Detect()
	}
	helper := p.Helper != "" || helperRegistered.Load()
	if b == Landlock && !helper {
		b = None // Landlock needs the helper child
	}
	if b == Bwrap || b == Landlock {
		if p.TempDir == "" {
			tmp, err := PrivateTemp()
			if err != nil {
				return None, err
			}
			p.TempDir = tmp
		}
		if !filepath.IsAbs(p.TempDir) {
			return None, fmt.Errorf("sandbox: the temporary directory %q is not an absolute path", p.TempDir)
		}
	}
	switch b {
	case Bwrap:
		setEnv(cmd, "TMPDIR", "/tmp")
		if err := wrapBwrap(cmd, p); err != nil || !helper {
			return Bwrap, err
		}
		// bwrap runs under the helper too: when rein dies just after
		// starting it, the inner bwrap (pid 1 of the sandbox) can miss
		// its parent-death signal; the helper, a subreaper that gets its
		// own, then inherits it and kills it, and the namespace with it.
		return Bwrap, wrapHelper(cmd, p, false)
	case Landlock:
		setEnv(cmd, "TMPDIR", p.TempDir)
		return Landlock, wrapHelper(cmd, p, true)
	case None:
		if mode != Off && p.Fallback == Refuse {
			return None, &UnavailableError{Mode: mode}
		}
		if !helper {
			return None, nil
		}
		return None, wrapHelper(cmd, p, false)
	}
	return None, fmt.Errorf("sandbox: unknown backend %q", b)
}

// Effective returns the mechanism Wrap would use for p: None for mode
// Off, when nothing is available, or for Landlock when the program has
// not registered the helper (RunHelper) and p names none.
func Effective(p Policy) Backend { return effective(p, Detect) }

// Expected is Effective with Guess in place of Detect: what Wrap will
// most likely use, known without starting a process (for descriptions
// written at start-up).
func Expected(p Policy) Backend { return effective(p, Guess) }

func effective(p Policy, detect func() Backend) Backend {
	if p.Mode == Off {
		return None
	}
	b := p.Backend
	if b == "" {
		b = detect()
	}
	if b == Landlock && p.Helper == "" && !helperRegistered.Load() {
		return None
	}
	return b
}

// Notice returns one sentence for a person about how commands will be
// confined under p on this system, naming what is missing when nothing
// is: the text to show once at start-up.
func Notice(p Policy) string {
	mode := p.Mode
	if mode == "" {
		mode = WorkspaceWrite
	}
	if mode == Off {
		return "sandbox: off — commands run unconfined with full access to this user's files and network"
	}
	net := "network on"
	if p.NoNetwork {
		net = "network off"
	}
	b := p.Backend
	if b == "" {
		b = Detect()
	}
	if b == Landlock && p.Helper == "" && !helperRegistered.Load() {
		b = None
	}
	switch b {
	case Bwrap:
		return fmt.Sprintf("sandbox: %s, %s, with bubblewrap", mode, net)
	case Landlock:
		return fmt.Sprintf("sandbox: %s, %s, with Landlock (bubblewrap is not installed, so protected files such as .git/config are put back after each command rather than kept read-only, and rein's environment is hidden by Landlock's ptrace rule only)", mode, net)
	}
	if p.Fallback == Refuse {
		return fmt.Sprintf("sandbox: %s was asked for, but neither bubblewrap nor Landlock is available: commands will be refused (install bubblewrap, or set the sandbox mode to off)", mode)
	}
	return fmt.Sprintf("sandbox: %s was asked for, but neither bubblewrap nor Landlock is available: commands run UNCONFINED (install bubblewrap, or set fallback to refuse)", mode)
}

// cleanDirs returns the absolute, existing directories of dirs, deduplicated.
func cleanDirs(dirs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		if _, err := os.Stat(d); err != nil || seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

// writable returns the directories p makes writable besides the
// private temporary directory.
func (p Policy) writable() []string {
	if p.Mode == WorkspaceWrite {
		return cleanDirs(append([]string{p.Workspace}, p.Writable...))
	}
	return nil
}

// hidden returns the existing paths p hides, not inside a writable
// directory (hiding the workspace itself would hide the work).
func (p Policy) hidden() []string {
	hid := p.Hidden
	if hid == nil {
		home, _ := os.UserHomeDir()
		hid = DefaultHidden(home)
	}
	var out []string
	for _, h := range hid {
		if !filepath.IsAbs(h) || strings.Contains(h, "\x00") {
			continue
		}
		if _, err := os.Lstat(h); err != nil {
			continue
		}
		if under(p.Workspace, h) || under(h, p.Workspace) {
			continue
		}
		out = append(out, filepath.Clean(h))
	}
	return out
}

// under reports whether path is dir or inside it.
func under(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func (p Policy) protected() []string {
	if p.Mode != WorkspaceWrite {
		return nil
	}
	var out []string
	for _, q := range p.protectedAll() {
		if _, err := os.Lstat(q); err == nil {
			out = append(out, q)
		}
	}
	return out
}

// protectedAll returns the absolute protected paths of p, existing or
// not.
func (p Policy) protectedAll() []string {
	prot := p.Protected
	if prot == nil {
		prot = DefaultProtected(p.Workspace)
	}
	var out []string
	for _, q := range prot {
		if filepath.IsAbs(q) && !strings.Contains(q, "\x00") {
			out = append(out, filepath.Clean(q))
		}
	}
	return out
}
