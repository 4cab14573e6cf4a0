package builtin

import (
	"fmt"
	"github.com/reinhq/rein/internal/proc"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/tool"
)

// wrapSandbox confines cmd by the tool's policy. A refusal (no mechanism
// and a policy that refuses to run unconfined) is an error the model
// sees, saying what to do. sweep, called once the command and all it
// started have ended, moves aside protected files (.mcp.json,
// .claude/…) the command created and returns a note saying so, or "".
func wrapSandbox(cmd *exec.Cmd, o BashOptions, root string) (backend sandbox.Backend, sweep func() string, err error) {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite}
	if o.Sandbox != nil {
		p = *o.Sandbox
	}
	if p.Workspace == "" {
		p.Workspace = root
	}
	sweep = func() string { return "" }
	if p.Mode == sandbox.Off {
		b, err := sandbox.Wrap(cmd, p)
		return b, sweep, err
	}
	// rein writes its own records under .rein while the command runs;
	// made first, it is bound read-only rather than watched.
	_ = os.MkdirAll(filepath.Join(root, ".rein"), 0o755)
	w := sandbox.NewWatch(p)
	b, err := sandbox.Wrap(cmd, p)
	if err != nil || b == sandbox.None {
		_, _ = w.Sweep() // let go of the watch: nothing ran
		return b, sweep, err
	}
	return b, func() string { return plantedNote(w.Sweep()) }, nil
}

// plantedNote tells the model which protected files its command
// created and where they went.
func plantedNote(moved []sandbox.Planted, err error) string {
	var b strings.Builder
	for _, m := range moved {
		switch {
		case m.Restored && m.MovedTo == "":
			fmt.Fprintf(&b, "\nThe command removed %s, which commands may not change (it can make programs run outside the sandbox later); it was put back. Ask the user to change it if that is needed.", m.Path)
		case m.Restored:
			fmt.Fprintf(&b, "\nThe command changed or moved %s, which commands may not change (it can make programs run outside the sandbox later); the original was put back and the command's version is at %s. Ask the user to change it if that is needed.", m.Path, m.MovedTo)
		default:
			fmt.Fprintf(&b, "\nThe command created %s, which commands may not create (it can make programs run outside the sandbox later); it was moved to %s. Ask the user to create it if it is needed.", m.Path, m.MovedTo)
		}
	}
	if err != nil {
		fmt.Fprintf(&b, "\n%v", err)
	}
	return b.String()
}

// sandboxHint returns a note for the model when a failed command's
// output looks like the sandbox stopped it.
func sandboxHint(out string, p *sandbox.Policy) string {
	lower := strings.ToLower(out)
	for _, sign := range []string{"read-only file system", "permission denied", "operation not permitted", "network is unreachable", "could not resolve host", "temporary failure in name resolution"} {
		if strings.Contains(lower, sign) {
			mode := sandbox.WorkspaceWrite
			if p != nil && p.Mode != "" {
				mode = p.Mode
			}
			return fmt.Sprintf("\nThe command may have been stopped by the sandbox (mode %s: writes only in the workspace and the temporary directory%s). Do not try to get around it; if the command is needed, ask the user for permission to run it outside the sandbox.",
				mode, map[bool]string{true: ", no network", false: ""}[p != nil && p.NoNetwork])
		}
	}
	return ""
}

// startJob starts cmd as a background job whose output goes to a log
// file under tool.OutputDir, registers it in o.Jobs and returns at once.
func startJob(cmd *exec.Cmd, o BashOptions, root string, in bashArgs, backend sandbox.Backend, sweep func() string) (tool.Result, error) {
	dir := filepath.Join(root, filepath.FromSlash(tool.OutputDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return tool.Result{}, fmt.Errorf("cannot start the job: %v", err)
	}
	_ = ignoreOutputDir(dir)
	f, err := os.CreateTemp(dir, "job-*.log")
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot start the job: %v", err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		os.Remove(f.Name())
		_ = sweep()
		return tool.Result{}, fmt.Errorf("cannot start %s: %v", o.Shell, err)
	}
	f.Close()
	pid := cmd.Process.Pid
	unrecord := recordGroup(root, pid, in.Command)
	done := make(chan struct{})
	logPath := rel(root, f.Name())
	info := o.Jobs.add(in.Command, pid, logPath, done)
	go func() {
		defer close(done)
		_ = cmd.Wait()
		proc.Kill(pid)
		unrecord()
		_ = sweep() // the job's log cannot carry the note: it is closed
	}()
	text := fmt.Sprintf("Started background job %d (pid %d); its output goes to %s. It runs until it ends or the session ends.", info.ID, pid, logPath)
	return tool.Result{
		Content: []llm.Content{llm.Text(text)},
		Details: BashDetails{Command: in.Command, ExitCode: -1, LogPath: logPath, Running: true, Sandbox: string(backend), Job: info.ID},
	}, nil
}
