package coding

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/work"
)

// Switched is what NewSession and Resume did.
type Switched struct {
	// ID is the session the agent continues in and Old the one it left
	// (full ids; the old one can be resumed).
	ID, Old string
	// Messages is the conversation of the session now: empty after
	// NewSession.
	Messages []llm.Message
}

// NewSession starts a new conversation in a new session log, as /clear
// does: the current session is flushed, closed and stays resumable;
// the SessionEnd hooks run with reason "clear" and the SessionStart
// hooks with source "clear". The model, tools and permission mode stay
// as they are. Call it only while no prompt runs.
func (a *Agent) NewSession(ctx context.Context) (Switched, error) {
	old, err := a.switchable()
	if err != nil {
		return Switched{}, err
	}
	if err := old.Flush(); err != nil {
		return Switched{}, err
	}
	root := a.Workspace()
	next, err := session.Create(session.Options{Cwd: root, Dir: session.DefaultDir(root), Redact: a.s.o.Redactor.Bytes})
	if err != nil {
		return Switched{}, fmt.Errorf("creating the session log: %w", err)
	}
	return a.switchTo(ctx, old, next, "clear", "clear")
}

// Resume continues the session ref names (an id, a unique prefix of
// one, "last" or a file path, as rein --resume takes) in place of the
// current one, which is closed and stays resumable. The model, tools
// and permission mode stay as they are. A session another rein holds is
// a *session.LockedError. Call it only while no prompt runs.
func (a *Agent) Resume(ctx context.Context, ref string) (Switched, error) {
	old, err := a.switchable()
	if err != nil {
		return Switched{}, err
	}
	path, err := FindSession(a.Workspace(), ref)
	if err != nil {
		return Switched{}, err
	}
	if same, _ := sameFile(path, old.Path()); same {
		return Switched{}, fmt.Errorf("session %s is the current one", ShortID(old.ID()))
	}
	if err := old.Flush(); err != nil {
		return Switched{}, err
	}
	next, err := session.Open(path, session.Options{Redact: a.s.o.Redactor.Bytes})
	if err != nil {
		return Switched{}, err
	}
	return a.switchTo(ctx, old, next, "other", "resume")
}

// switchable is the current session when the agent may leave it: it has
// one, no prompt runs and no sub-agent works in it.
func (a *Agent) switchable() (*session.Session, error) {
	s := a.Session()
	if s == nil {
		return nil, errors.New("this agent keeps no session log (--no-session)")
	}
	if a.Busy() {
		return nil, errors.New("the agent is working; wait for it or stop it first")
	}
	if n := len(a.sub.Active()); n > 0 {
		return nil, fmt.Errorf("%d sub-agent(s) still run in this session; wait for them or stop them (/agents)", n)
	}
	return s, nil
}

// switchTo moves the agent from old to next, running the session hooks
// with the reasons given; on failure next is closed and the agent stays
// where it was.
func (a *Agent) switchTo(ctx context.Context, old, next *session.Session, endReason, startSource string) (Switched, error) {
	if err := a.h.SwitchStore(next); err != nil {
		next.Close()
		return Switched{}, err
	}
	a.perm.end(endReason)
	so := a.h.StreamOptions()
	so.SessionID = next.ID()
	a.h.SetStreamOptions(so)
	a.perm.cmds.SetSession(next.ID(), next.Path())
	a.mu.Lock()
	a.sess = next
	a.mu.Unlock()
	if w := a.s.work; w != nil && w.agent == "" {
		if list, err := work.Decode(next.WorkItems()); err == nil {
			w.ledger.Reset(list)
		}
	}
	sw := Switched{ID: next.ID(), Old: old.ID(), Messages: next.Context().Messages}
	if err := old.Close(); err != nil {
		a.s.o.warnf("warning: closing session %s: %v", ShortID(old.ID()), err)
	}
	if v := a.perm.cmds.SessionStart(ctx, startSource); v.Context != "" {
		_ = a.h.NextTurn(v.Context)
	}
	return sw, nil
}

// sameFile reports whether the paths name one file.
func sameFile(p, q string) (bool, error) {
	a, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	b, err := os.Stat(q)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// ResumeHint says how to come back to the agent's session from the
// shell ("" without a session log): the command that resumes it and the
// one that continues the workspace's latest session.
func (a *Agent) ResumeHint() string {
	s := a.Session()
	if s == nil || len(s.Entries()) == 0 {
		return ""
	}
	return fmt.Sprintf("resume this session with: rein -r %s (or rein -c for the latest)", ShortID(s.ID()))
}

// Sessions lists the sessions of the workspace a user may resume,
// newest first: sub-agents' sessions are left out.
func (a *Agent) Sessions() ([]session.Info, error) {
	infos, err := session.List(session.DefaultDir(a.Workspace()))
	if err != nil {
		return nil, err
	}
	out := infos[:0]
	for _, in := range infos {
		if in.Agent == nil {
			out = append(out, in)
		}
	}
	return out, nil
}
