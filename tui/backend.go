package tui

import (
	"context"
	"time"

	"github.com/reinhq/rein/llm"
)

// Backend is what the UI drives: the agent and its session. The command
// line implements it over a harness; tests implement it over a harness
// with a scripted model. Prompt, Navigate and the commands' Run are
// called from their own goroutines, the others from the UI's; none may
// block for long except Prompt and Navigate.
type Backend interface {
	// Prompt runs the agent on text until the run ends. Its events reach
	// the UI as EventMsg, sent by the caller's harness listener.
	Prompt(ctx context.Context, text string) error
	// Steer queues text for the running turn; FollowUp for when the agent
	// would stop.
	Steer(text string) error
	FollowUp(text string) error
	// Abort stops the running turn.
	Abort()
	// Status describes the agent for the status line.
	Status() Status
	// Tree lists the entries of the session's conversation tree in file
	// order; Navigate moves the conversation to an entry and returns the
	// messages of the new path; Label names an entry.
	Tree() (entries []TreeEntry, leaf string, err error)
	Navigate(ctx context.Context, id string) ([]llm.Message, error)
	Label(id, label string) error
	// Fork copies the path to entry id ("" = the current leaf) into a
	// new session, leaving the current one as it is, and continues in
	// the new one when it can: then Status reports the new session and
	// the next prompt is written to it. It is called only while idle. An
	// error means there is no fork; a fork the backend cannot move to is
	// Forked with Switched false and a Note saying why.
	Fork(id string) (Forked, error)
}

// Sender is implemented by a backend that decides itself how text typed
// while the agent works is delivered (steered, followed up, collected or
// interrupting: a queue mode the user picks with a command); Send returns
// the line the UI shows. Without it such text steers.
type Sender interface {
	Send(text string) (string, error)
}

// SessionSwitcher is implemented by a backend that can start a new
// conversation (/clear) and continue another session (/resume). Its
// methods are called off the UI goroutine, only while idle.
type SessionSwitcher interface {
	// NewSession continues in a new, empty session; the old one stays
	// resumable.
	NewSession(ctx context.Context) (Switched, error)
	// Resume continues in the session ref names (an id or a unique
	// prefix of one).
	Resume(ctx context.Context, ref string) (Switched, error)
	// Sessions lists the sessions that may be resumed, newest first.
	Sessions() ([]SessionInfo, error)
}

// Switched is what NewSession or Resume did.
type Switched struct {
	// ID is the session now and Old the one left.
	ID, Old string
	// Messages is the conversation of the session now.
	Messages []llm.Message
	// Text is the notice to show.
	Text string
}

// SessionInfo describes a session /resume offers.
type SessionInfo struct {
	ID       string
	Modified time.Time
	Messages int
	// First is the start of its first prompt.
	First string
}

// ModeCycler is implemented by a backend whose permission mode shift+tab
// cycles; CycleMode returns the new mode. It is called on the UI
// goroutine and must not block.
type ModeCycler interface {
	CycleMode() (string, error)
}

// Forked is what a fork made.
type Forked struct {
	// ID names the new session and Old the one forked, as the user
	// would give them to resume one.
	ID, Old string
	// Switched: the backend continues in the new session.
	Switched bool
	// Messages is the conversation of the new session, shown when the
	// fork was made at an earlier entry than the current one.
	Messages []llm.Message
	// Note is anything more to tell: how to continue a fork the backend
	// did not move to, and why it did not.
	Note string
}

// Status is what the status line shows of the agent.
type Status struct {
	Model         string
	Thinking      string
	ContextWindow int
	Session       string
	Workspace     string
	// Mode is the permission mode, shown in the status line ("": none).
	Mode string
	// MaxCost is the spending limit of a prompt in US dollars (0: none),
	// shown beside what was spent.
	MaxCost float64
}

// TreeEntry is one node of the session tree.
type TreeEntry struct {
	ID, Parent string
	// Role is user, assistant, tool_result or the entry type (compaction,
	// branch_summary, model_change…).
	Role  string
	Text  string
	Label string
}
