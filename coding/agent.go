package coding

import (
	"context"
	"errors"
	"sync"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool/builtin"
)

// ErrClosed is returned by the methods of an Agent after Close.
var ErrClosed = errors.New("coding: the agent is closed")

// Agent is a configured coding agent: the harness with its tools, model,
// prompt, permissions and hooks, its session log, MCP servers and
// background jobs. Its methods are safe for concurrent use; one prompt
// runs at a time (Submit while one runs fails with the harness's busy
// error: Steer or FollowUp it instead).
type Agent struct {
	s      *setup
	h      *harness.Harness
	found  *prompt.Found
	perm   *perms
	jobs   *builtin.Jobs
	bridge *mcpTools
	// sub runs the agent's children (never nil); defs are the agents it
	// may spawn (nil when it may not).
	sub  *subagent.Runtime
	defs subagent.Definitions

	// subs are the coding-level subscribers, who also get the events
	// forwarded from sub-agents.
	smu      sync.Mutex
	subs     []*subscriber
	watchers []*watcher
	noted    map[string]bool // notes said once (noteOnce)
	busyMode lane.QueueMode  // how Send delivers ("": steer)

	// life ends when the agent closes; every run's context ends with it.
	life context.Context
	kill context.CancelFunc

	mu     sync.Mutex
	sess   *session.Session // nil without a log; replaced by Fork
	closed bool
	// lastRun is the latest prompt's run.
	lastRun *telemetry.Run
	runs    sync.WaitGroup // Submit calls and background hook runs
	// inbox holds collected and interrupting messages (see Queue).
	inboxOnce sync.Once
	inbox     *lane.Inbox
}

func newAgent(s *setup, h *harness.Harness, sess *session.Session, found *prompt.Found, ps *perms, jobs *builtin.Jobs, bridge *mcpTools) *Agent {
	a := &Agent{s: s, h: h, sess: sess, found: found, perm: ps, jobs: jobs, bridge: bridge}
	a.life, a.kill = context.WithCancel(context.Background())
	if ps.cmds.Has(command.Notification) {
		h.Subscribe(func(_ context.Context, ev harness.Event) error {
			if ev.Type == harness.EventPermissionRequest && ev.Permission != nil {
				a.background(func(ctx context.Context) {
					ps.cmds.Notify(ctx, "rein needs your permission to use "+ev.Permission.Tool)
				})
			}
			return nil
		})
	}
	return a
}

// background runs f on its own goroutine, bounded by the agent's life;
// Close waits for it.
func (a *Agent) background(f func(ctx context.Context)) {
	if !a.enter() {
		return
	}
	go func() {
		defer a.runs.Done()
		f(a.life)
	}()
}

// enter counts one operation that Close must wait for; it reports false
// once the agent is closed.
func (a *Agent) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.runs.Add(1)
	return true
}

// Harness is the agent's harness, for what this package does not wrap:
// model, thinking and tool settings, the context window, the event
// stream's raw form.
func (a *Agent) Harness() *harness.Harness { return a.h }

// Session is the session log the agent writes to, nil with NoSession. A
// fork replaces it.
func (a *Agent) Session() *session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess
}

// Workspace is the directory the tools work in.
func (a *Agent) Workspace() string { return a.s.ws.Root }

// Found is what the workspace offers the prompt: context files, skills,
// templates, guard config.
func (a *Agent) Found() *prompt.Found { return a.found }

// Interactive reports whether approval requests wait for an answer
// (Options.Interactive).
func (a *Agent) Interactive() bool { return a.perm.broker != nil }

// Close ends the agent: a running prompt is aborted and its tools are
// killed, background jobs are stopped (each reported to Warn), the
// SessionEnd hooks run, the MCP servers stop and the session log is
// flushed and unlocked. It waits for the running prompt to return, so
// the log ends well-formed. Close is idempotent.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.kill()
	a.h.Abort()
	a.runs.Wait()
	// Children still running are cancelled; each gets its terminal
	// entry before the log closes.
	if a.sub != nil {
		a.sub.Close()
	}
	a.perm.end("other")
	for _, j := range a.jobs.KillAll() {
		a.s.o.warnf("stopped background job %d (pid %d): %s", j.ID, j.PID, j.Command)
	}
	a.bridge.close()
	if a.s.stopTraces != nil {
		_ = a.s.stopTraces(context.Background())
	}
	if s := a.Session(); s != nil {
		return s.Close()
	}
	return nil
}

// PermissionMode is the current permission mode ("" without a gate).
func (a *Agent) PermissionMode() permission.Mode {
	if g := a.h.Permission(); g != nil {
		return g.Mode()
	}
	return ""
}
