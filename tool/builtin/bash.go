package builtin

import (
	"context"
	"errors"
	"fmt"
	"github.com/reinhq/rein/internal/proc"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/tool"
)

// Defaults of BashOptions.
const (
	BashDefaultTimeout = 120 * time.Second
	BashMaxTimeout     = time.Hour
	BashHeadBytes      = 2_000
	BashTailBytes      = 12_000
	BashMaxLogBytes    = 100 << 20
	BashKillGrace      = 2 * time.Second
	BashUpdateInterval = 500 * time.Millisecond
	// bashDrain is how long output is still read after the shell exits,
	// for background processes that hold the pipe open.
	bashDrain = 200 * time.Millisecond
	// bashUpdateBytes is how much recent output a progress update carries.
	bashUpdateBytes = 4_000
)

// BashOptions configures the bash tool. Zero fields take the defaults.
type BashOptions struct {
	// Shell runs the command as `Shell -c command`; empty means bash from
	// PATH, or /bin/sh when there is none.
	Shell string
	// BaseEnv is the environment commands start from (KEY=VALUE); nil
	// inherits the process's own (os.Environ). Pass a filtered copy to keep
	// credentials such as provider API keys away from commands.
	BaseEnv []string
	// Env is added to BaseEnv (KEY=VALUE; later entries win). PAGER=cat,
	// GIT_PAGER=cat and GIT_TERMINAL_PROMPT=0 are set before it so that
	// commands never wait for a pager or a prompt.
	Env []string
	// SessionEnv, when set, is called before each command with the
	// environment built so far (BaseEnv, the pager variables, Env); the
	// variables it returns (KEY=VALUE) are added last. It must not block
	// for long.
	SessionEnv func(env []string) []string
	// DefaultTimeout bounds a command that names no timeout (120s).
	DefaultTimeout time.Duration
	// MaxTimeout caps the timeout a command may ask for (1h).
	MaxTimeout time.Duration
	// HeadBytes and TailBytes are how much of the start and the end of a
	// long output are kept in memory and shown (2,000 and 12,000). Output
	// up to their sum is shown whole.
	HeadBytes, TailBytes int
	// MaxLogBytes caps the log file of a long output (100 MiB); output
	// past it is counted and its tail kept, but not saved.
	MaxLogBytes int64
	// KillGrace is how long the process group has between SIGTERM and
	// SIGKILL (2s).
	KillGrace time.Duration
	// UpdateInterval is the least time between progress updates (500ms).
	UpdateInterval time.Duration
	// Sandbox confines every command; nil means workspace-write for the
	// workspace with the network on, unconfined (with a notice) where no
	// mechanism is available. Set Mode to sandbox.Off to turn it off.
	// An empty Workspace is the workspace root.
	Sandbox *sandbox.Policy
	// Redact, when set, masks secrets in the output logs written under
	// tool.OutputDir (the model still sees the output as it was).
	Redact *redact.Redactor
	// Jobs receives the background jobs the model starts; nil means a
	// table of the tool's own. Call Jobs.KillAll when the session ends.
	Jobs *Jobs
}

func (o BashOptions) withDefaults() BashOptions {
	if o.Shell == "" {
		o.Shell = "/bin/sh"
		if p, err := exec.LookPath("bash"); err == nil {
			o.Shell = p
		}
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = BashDefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = BashMaxTimeout
	}
	o.DefaultTimeout = min(o.DefaultTimeout, o.MaxTimeout)
	if o.HeadBytes <= 0 {
		o.HeadBytes = BashHeadBytes
	}
	if o.TailBytes <= 0 {
		o.TailBytes = BashTailBytes
	}
	if o.MaxLogBytes <= 0 {
		o.MaxLogBytes = BashMaxLogBytes
	}
	if o.KillGrace <= 0 {
		o.KillGrace = BashKillGrace
	}
	if o.UpdateInterval <= 0 {
		o.UpdateInterval = BashUpdateInterval
	}
	if o.Jobs == nil {
		o.Jobs = &Jobs{}
	}
	return o
}

type bashArgs struct {
	Command string `json:"command" jsonschema:"The command line."`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed."`
	// Background starts a long-running job (a server, a watcher) and
	// returns at once.
	Background bool `json:"background,omitempty" jsonschema:"Keep running after the call (a server); returns its log file."`
}

// BashDetails is the Details of a bash result and of its progress
// updates.
type BashDetails struct {
	Command string `json:"command"`
	// ExitCode is the shell's exit status, or -1 when it was stopped or
	// killed by a signal.
	ExitCode  int    `json:"exit_code"`
	Signal    string `json:"signal,omitempty"`
	TimedOut  bool   `json:"timed_out,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// OutputBytes counts all output, including what was not kept.
	OutputBytes int64 `json:"output_bytes"`
	// LogPath is the file holding a long output, relative to the root.
	LogPath string `json:"log_path,omitempty"`
	Running bool   `json:"running,omitempty"`
	// Sandbox is the mechanism that confined the command: bwrap,
	// landlock or none.
	Sandbox string `json:"sandbox,omitempty"`
	// Job is the id of a background job.
	Job int `json:"job,omitempty"`
}

func bashDescription(o BashOptions) string {
	return fmt.Sprintf(`Run a command with %s -c in the workspace root; returns stdout, stderr and the exit code. A fresh shell per call, stdin empty: chain steps with &&. Killed with all it started after timeout seconds (default %d, at most %d) or when the call ends, unless background. Long output keeps its start and end. %s`,
		shellName(o.Shell), int(o.DefaultTimeout/time.Second), int(o.MaxTimeout/time.Second), sandboxLine(o.Sandbox))
}

// sandboxLine tells the model how its commands are confined.
func sandboxLine(p *sandbox.Policy) string {
	pol := sandbox.Policy{Mode: sandbox.WorkspaceWrite}
	if p != nil {
		pol = *p
		if pol.Mode == "" {
			pol.Mode = sandbox.WorkspaceWrite
		}
	}
	b := sandbox.Expected(pol)
	switch {
	case b == sandbox.None:
		return "Commands are not sandboxed."
	case pol.Mode == sandbox.ReadOnly:
		return "Sandbox: read-only; if it blocks you, ask the user."
	}
	net, protected := "", ""
	if pol.NoNetwork {
		net = ", no network"
	}
	if b == sandbox.Bwrap {
		protected = " (not .git/hooks, .git/config, .rein, .claude, .mcp.json)"
	}
	return "Sandbox: writes only in the workspace and temp dir" + protected + net + "; if it blocks you, ask the user."
}

func shellName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// Bash returns the bash tool: a command run in its own process group in
// the workspace root, with bounded output, progress updates, and the
// whole group killed on timeout or cancellation.
func Bash(w Workspace, opts BashOptions) *tool.Tool {
	o := opts.withDefaults()
	t := tool.MustNew("bash", bashDescription(o), func(ctx context.Context, call *tool.Call, in bashArgs) (tool.Result, error) {
		return runBash(ctx, w, o, call, in)
	})
	t.Mode = tool.Sequential
	// bash enforces its own timeout; the generic middleware only backs it up.
	t.Timeout = o.MaxTimeout + o.KillGrace + 30*time.Second
	return t
}

type stopKind int

const (
	exited stopKind = iota
	timedOut
	cancelled
)

func runBash(ctx context.Context, w Workspace, o BashOptions, call *tool.Call, in bashArgs) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Result{}, errors.New("command is empty; give the shell command to run")
	}
	if in.Timeout < 0 {
		return tool.Result{}, fmt.Errorf("timeout must be a positive number of seconds (got %d)", in.Timeout)
	}
	timeout := o.DefaultTimeout
	capped := false
	if in.Timeout > 0 {
		timeout = time.Duration(in.Timeout) * time.Second
		if timeout > o.MaxTimeout || timeout/time.Second != time.Duration(in.Timeout) {
			timeout, capped = o.MaxTimeout, true
		}
	}
	root, err := w.root()
	if err != nil {
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("the command was not started: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot start the command: %v", err)
	}
	cmd := exec.Command(o.Shell, "-c", in.Command)
	cmd.Dir = root
	base := o.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = append(append([]string(nil), base...), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Env = append(cmd.Env, o.Env...)
	if o.SessionEnv != nil {
		cmd.Env = append(cmd.Env, o.SessionEnv(cmd.Env)...)
	}
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe keeps stdout and stderr in order
	proc.Prepare(cmd)
	direct := cmd.Path
	backend, sweep, err := wrapSandbox(cmd, o, root)
	wrapped := cmd.Path != direct
	if err != nil {
		pr.Close()
		pw.Close()
		return tool.Result{}, err
	}
	if in.Background {
		pr.Close()
		pw.Close()
		return startJob(cmd, o, root, in, backend, sweep)
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		_ = sweep()
		return tool.Result{}, fmt.Errorf("cannot start %s: %v", o.Shell, err)
	}
	pw.Close()
	pid := cmd.Process.Pid
	unrecord := recordGroup(root, pid, in.Command)
	defer unrecord()
	sink := newOutputSink(root, o)

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 64<<10)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				sink.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	exitedCh := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exitedCh)
	}()

	stopUpdates, updatesDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(updatesDone)
		if call == nil || call.Update == nil {
			return
		}
		tick := time.NewTicker(o.UpdateInterval)
		defer tick.Stop()
		var seen uint64
		for {
			select {
			case <-stopUpdates:
				return
			case <-tick.C:
				v, total, recent := sink.recent(bashUpdateBytes)
				if v == seen {
					continue
				}
				seen = v
				call.Update(tool.Result{
					Content: []llm.Content{llm.Text(cleanOutput(recent))},
					Details: BashDetails{Command: in.Command, ExitCode: -1, OutputBytes: total, Running: true},
				})
			}
		}
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	stop := exited
	select {
	case <-exitedCh:
		// The shell ended: whatever it left in its group goes with it.
		proc.Kill(pid)
	case <-timer.C:
		stop = timedOut
		proc.Stop(pid, exitedCh, o.KillGrace)
	case <-ctx.Done():
		stop = cancelled
		proc.Stop(pid, exitedCh, o.KillGrace)
	}
	<-exitedCh
	// The shell is gone. Children left in the background may hold the
	// pipe open: read what is already there, then stop waiting for EOF.
	if err := pr.SetReadDeadline(time.Now().Add(bashDrain)); err != nil {
		pr.Close()
	}
	<-readDone
	pr.Close()
	close(stopUpdates)
	<-updatesDone
	sink.close()

	d := BashDetails{Command: in.Command, ExitCode: -1, OutputBytes: sink.total, LogPath: sink.logPath, Sandbox: string(backend)}
	var status string
	switch stop {
	case timedOut:
		d.TimedOut = true
		status = fmt.Sprintf("timed out after %s: the command and its child processes were killed. Give a larger timeout (at most %ds), or run it in the background with its output redirected to a file.",
			timeout, int(o.MaxTimeout/time.Second))
	case cancelled:
		d.Cancelled = true
		status = "cancelled: the command and its child processes were killed."
	default:
		var ee *exec.ExitError
		switch {
		case waitErr == nil:
			d.ExitCode = 0
		case errors.As(waitErr, &ee):
			if sig := exitSignal(ee); sig != "" {
				d.Signal = sig
			} else if code := ee.ExitCode(); wrapped && code > 128 && code < 128+65 {
				// bwrap and the helper report a signal as a shell does.
				d.Signal = signalFromCode(code - 128)
			} else {
				d.ExitCode = code
			}
		default:
			return tool.Result{}, fmt.Errorf("waiting for the command failed: %v", waitErr)
		}
		if d.Signal != "" {
			status = "killed by signal " + d.Signal
		} else {
			status = fmt.Sprintf("exit code: %d", d.ExitCode)
		}
	}
	if capped {
		status += fmt.Sprintf(" (the timeout asked for was capped at %ds)", int(o.MaxTimeout/time.Second))
	}
	out := sink.render()
	if d.ExitCode != 0 && backend != sandbox.None {
		status += sandboxHint(out, o.Sandbox)
	}
	status += sweep()
	var b strings.Builder
	b.Grow(len(out) + len(status) + 2)
	if out == "" {
		b.WriteString("(no output)\n")
	} else {
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString(status)
	res := tool.Result{
		Content: []llm.Content{llm.Text(b.String())},
		IsError: stop != exited || d.ExitCode != 0,
		Details: d,
	}
	if sink.cut() {
		res.Notes = []string{"truncated"} // as tool.Limit notes it
	}
	return res, nil
}
