package mcp

import (
	"fmt"
	"github.com/reinhq/rein/internal/proc"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// CommandWrapper may replace the command of a stdio server before it
// starts, to run it in a sandbox, say. It must return a command whose
// standard input and output are the server's.
type CommandWrapper func(server string, cmd *exec.Cmd) (*exec.Cmd, error)

// process is a started stdio server: its pipes and its process group.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	log    *os.File
	done   chan struct{} // closed when the leader has been reaped
	err    error         // the leader's wait error, set before done closes
	once   sync.Once
}

// buildCommand is the one place a server's command line becomes an
// exec.Cmd: environment, working directory, process group, stderr log and
// the optional wrapper.
func (m *Manager) buildCommand(name string, sc *ServerConfig) (*exec.Cmd, []string, error) {
	var missing []string
	args := make([]string, len(sc.Args))
	for i, a := range sc.Args {
		args[i] = expand(a, m.getenv, &missing)
	}
	command := expand(sc.Command, m.getenv, &missing)
	path, err := exec.LookPath(command)
	if err != nil {
		return nil, missing, fmt.Errorf("command %q not found: install it or fix \"command\" in the config (%v)", command, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = command
	env := m.opts.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	for k, v := range sc.Env {
		env = append(env, k+"="+expand(v, m.getenv, &missing))
	}
	cmd.Env = env
	cmd.Dir = m.opts.Workdir
	if sc.Cwd != "" {
		dir := expand(sc.Cwd, m.getenv, &missing)
		if !filepath.IsAbs(dir) && m.opts.Workdir != "" {
			dir = filepath.Join(m.opts.Workdir, dir)
		}
		cmd.Dir = dir
	}
	proc.Prepare(cmd)
	if m.opts.Wrap != nil {
		if cmd, err = m.opts.Wrap(name, cmd); err != nil {
			return nil, missing, err
		}
	}
	return cmd, missing, nil
}

// start builds and starts the command of a stdio server, its stderr
// appended to the server's log file.
func (m *Manager) start(name string, sc *ServerConfig) (*process, error) {
	cmd, missing, err := m.buildCommand(name, sc)
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	if lp := m.LogPath(name); lp != "" {
		if err := m.logDir(); err == nil {
			if f, err := os.OpenFile(lp, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
				fmt.Fprintf(f, "--- %s: starting %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(cmd.Args, " "))
				if len(missing) > 0 {
					fmt.Fprintf(f, "--- unset environment variables: %s\n", strings.Join(missing, ", "))
				}
				p.log = f
				cmd.Stderr = f
			}
		}
	}
	if cmd.Stderr == nil {
		cmd.Stderr = io.Discard
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		p.closeLog()
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		p.closeLog()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		p.closeLog()
		return nil, fmt.Errorf("starting %q: %w", sc.Command, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *process) closeLog() {
	if p.log != nil {
		p.log.Close()
	}
}

// exited reports whether the leader has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitText describes how the process ended, or "" while it runs.
func (p *process) exitText() string {
	if !p.exited() {
		return ""
	}
	if p.err == nil {
		return "exited with status 0"
	}
	return p.err.Error()
}

// stop closes the server's input, gives it grace to exit, then stops its
// whole process group; it returns once the leader is reaped.
func (p *process) stop(grace time.Duration) {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		proc.Stop(p.cmd.Process.Pid, p.done, grace)
		if !p.exited() {
			_ = p.cmd.Process.Kill()
		}
		<-p.done
		p.closeLog()
	})
}

// stopNow is stop for a process that must go at once.
func (p *process) stopNow() { p.stop(0) }
