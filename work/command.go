package work

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/reinhq/rein/internal/proc"
	"github.com/reinhq/rein/sandbox"
)

// DefaultCommandTimeout bounds a verify command that sets no timeout.
const DefaultCommandTimeout = 10 * time.Minute

// maxOutput is how much of a command's output Evidence keeps: its tail.
const maxOutput = 8 << 10

// killGrace is how long a timed-out command has between SIGTERM and
// SIGKILL.
const killGrace = 2 * time.Second

// CommandOptions say where and how RunCommand runs a command.
type CommandOptions struct {
	// Dir is the workspace: the command's working directory and what the
	// tree hash covers. It must be absolute.
	Dir string
	// Sandbox confines the command as bash's are (see package sandbox);
	// nil means workspace-write with Dir as the workspace. Mode
	// sandbox.Off runs it unconfined.
	Sandbox *sandbox.Policy
	// Env is the command's environment; nil means the process's own.
	// Front-ends pass the environment without secrets they give bash.
	Env []string
	// Timeout bounds the command; zero means DefaultCommandTimeout.
	Timeout time.Duration
	// Shell runs the command line as Shell -c COMMAND; "" means bash when
	// it is installed, else sh.
	Shell string
	// Hasher computes the tree hash; nil means a fresh one (every file
	// read). Keep one per workspace to hash only what changed.
	Hasher *TreeHasher
	// Clock stamps the evidence; nil means time.Now.
	Clock func() time.Time
	// Tree, when set, is the tree hash of Dir as it is now (the caller
	// just took it), which saves hashing it again before the command.
	Tree string
}

// Evidence is the record of one verification: a command the harness ran
// itself, with its outcome and the tree it ran on. It is what a
// verification entry of the session log holds (a custom entry of kind
// EvidenceKind).
type Evidence struct {
	// Command is the command line run.
	Command string `json:"command"`
	// ExitCode is the command's exit status; -1 when it timed out, was
	// cancelled or was killed by a signal.
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Timeout is the limit it ran under, in milliseconds.
	TimeoutMS int64 `json:"timeout_ms"`
	// Output is the tail of its combined output (at most 8 KiB).
	Output string `json:"output,omitempty"`
	// Tree is the content hash of the workspace's tracked tree when the
	// command started (see TreeHasher). Evidence counts only while the
	// tree still has this hash.
	Tree string `json:"tree"`
	// TreeAfter is the tree hash when the command ended, when the command
	// itself changed the tree (a build writing an untracked file, say);
	// the evidence stands for that tree too.
	TreeAfter string `json:"tree_after,omitempty"`
	// Started is when it started; DurationMS how long the command took.
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
	// Sandbox names the confinement used (bwrap, landlock, none).
	Sandbox string `json:"sandbox,omitempty"`
}

// EvidenceKind is the kind of the custom entries that record Evidence.
const EvidenceKind = "verification"

// Passed reports whether the command exited with want.
func (e *Evidence) Passed(want int) bool { return !e.TimedOut && e.ExitCode == want }

// Fresh reports whether the evidence was taken on the tree whose hash
// is tree: evidence from before a later edit is stale.
func (e *Evidence) Fresh(tree string) bool {
	return tree != "" && (e.Tree == tree || e.TreeAfter == tree)
}

// Summary is one line about the outcome, for messages and logs.
func (e *Evidence) Summary() string {
	switch {
	case e.TimedOut:
		return fmt.Sprintf("`%s` timed out after %s and was killed", e.Command, time.Duration(e.TimeoutMS)*time.Millisecond)
	case e.ExitCode < 0:
		return fmt.Sprintf("`%s` was killed before it finished", e.Command)
	}
	return fmt.Sprintf("`%s` exited with %d", e.Command, e.ExitCode)
}

// RunCommand runs command in o.Dir, confined by o.Sandbox, and returns
// its Evidence: the tree hashes taken before it starts (and after it
// ends, when it changed the tree), its exit code and
// the tail of its output. A command that fails or times out is not an
// error: the evidence says so. The error is for a command that could not
// be run at all (no workspace, a sandbox that refuses, no shell) and
// for ctx ending, in which case the process group is killed first.
// Safe for concurrent use.
func RunCommand(ctx context.Context, o CommandOptions, command string) (Evidence, error) {
	now := o.Clock
	if now == nil {
		now = time.Now
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	ev := Evidence{Command: command, ExitCode: -1, TimeoutMS: timeout.Milliseconds()}
	if !filepath.IsAbs(o.Dir) {
		return ev, fmt.Errorf("verify: the workspace %q is not an absolute path", o.Dir)
	}
	hasher := o.Hasher
	if hasher == nil {
		hasher = &TreeHasher{}
	}
	tree := o.Tree
	if tree == "" {
		var err error
		if tree, err = hasher.Hash(ctx, o.Dir); err != nil {
			return ev, fmt.Errorf("verify: hashing the workspace tree: %w", err)
		}
	}
	ev.Tree = tree
	shell := o.Shell
	if shell == "" {
		shell = "sh"
		if p, err := exec.LookPath("bash"); err == nil {
			shell = p
		}
	}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir, cmd.Env = o.Dir, o.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	// Children left in the background may hold the output open: once the
	// shell is gone, stop waiting for them soon.
	cmd.WaitDelay = time.Second
	proc.Prepare(cmd)
	pol := sandbox.Policy{Mode: sandbox.WorkspaceWrite}
	if o.Sandbox != nil {
		pol = *o.Sandbox
	}
	if pol.Workspace == "" {
		pol.Workspace = o.Dir
	}
	backend, err := sandbox.Wrap(cmd, pol)
	if err != nil {
		return ev, fmt.Errorf("verify: %w", err)
	}
	ev.Sandbox = string(backend)
	ev.Started = now().UTC()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return ev, fmt.Errorf("verify: cannot start %s: %w", shell, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	pid := cmd.Process.Pid
	select {
	case <-exited:
		proc.Kill(pid) // whatever it left in its group goes with it
	case <-timer.C:
		ev.TimedOut = true
		proc.Stop(pid, exited, killGrace)
		<-exited
	case <-ctx.Done():
		proc.Stop(pid, exited, 0)
		<-exited
		return ev, ctx.Err()
	}
	ev.DurationMS = time.Since(start).Milliseconds()
	ev.Output = out.String()
	if after, err := hasher.Hash(ctx, o.Dir); err == nil && after != ev.Tree {
		ev.TreeAfter = after
	}
	var ee *exec.ExitError
	switch {
	case ev.TimedOut:
	case waitErr == nil:
		ev.ExitCode = 0
	case errors.As(waitErr, &ee):
		ev.ExitCode = ee.ExitCode() // -1 when a signal ended it
	default:
		return ev, fmt.Errorf("verify: waiting for the command: %w", waitErr)
	}
	return ev, nil
}

// tail keeps the last maxOutput bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*maxOutput {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-maxOutput:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > maxOutput {
		b, t.cut = b[len(b)-maxOutput:], true
	}
	b = bytes.ToValidUTF8(b, []byte("?"))
	if t.cut {
		return "…" + string(b)
	}
	return string(b)
}
