package harness

import (
	"context"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/tool"
)

// SystemFunc builds the system prompt of one turn from the turn's
// snapshot. It is called once per snapshot (at the start of a prompt and
// at every save point) on the run's goroutine.
type SystemFunc func(ctx context.Context, s Snapshot) ([]llm.SystemPart, error)

// Options configure New. Provider and Model are required.
type Options struct {
	Provider llm.Provider
	Model    llm.Model
	// System is the static system prompt; SystemFunc, when set, is used
	// instead.
	System     []llm.SystemPart
	SystemFunc SystemFunc
	// Prompt, when set and SystemFunc is not, builds the system prompt of
	// every snapshot (see package prompt); its tool middleware (which
	// points the model to context files in folders it reads from) joins
	// Middleware, first; and it is refreshed after every compaction, so
	// the context files are read again.
	Prompt *prompt.Builder
	// Tools is every tool the harness may offer; ActiveTools narrows it
	// (tool or toolset names, see tool.Registry.Select); nil means all,
	// or, on a session whose log records active tools, those of them
	// that Tools holds (see GoneTools).
	Tools       *tool.Registry
	ActiveTools []string
	// AddedTools reports whether a tool the log of a resumed session does
	// not record is offered all the same (an MCP server added to the
	// workspace since); nil offers none. Only used when ActiveTools is nil.
	AddedTools func(name string) bool
	Thinking   llm.ThinkingLevel
	// MaxTokens caps each reply (zero: the model's MaxOutput); Temperature,
	// when set, is sent with every request the provider allows it on.
	MaxTokens   int
	Temperature *float64
	// StreamOptions are the request options of every turn (headers,
	// metadata, session id, provider extras, payload callback).
	StreamOptions llm.Options

	// Guard stops wasted tool calls before they run (see package guard).
	// Guards are on by default: nil means a guard configured by
	// GuardConfig (the default rules when that is nil too), resolving read
	// paths against Limit.Workdir. New reads no files: a workspace's
	// harness-config.json is found by guard.Discover. One
	// guard serves every prompt of the harness. NoGuards turns them off.
	Guard       *guard.Guard
	GuardConfig *guard.Config
	NoGuards    bool
	// Middleware wraps every tool call (the enforcer, say). The chain is,
	// outermost first: the permission gate (Permissions), the hooks' tool
	// middleware (tool_call, tool_result), the guard, the prompt's
	// just-in-time context, Middleware in order, tool.Limit(Limit),
	// tool.Timeout(ToolTimeout), the tool; ToolChain says why.
	Middleware []tool.Middleware
	// Permissions, when set, put a permission gate outside the whole tool
	// chain, before the hooks (see package permission). Every decision is
	// written to the log as a custom entry of kind PermissionEntryKind.
	Permissions *permission.Options
	// Approvals, when set with Permissions, is where calls that need
	// approval wait: each emits EventPermissionRequest and
	// AnswerPermission resumes it. Nil leaves Permissions.Asker in charge
	// (nil there too denies such calls at once).
	Approvals *permission.Broker
	// Limit configures the output limit; a zero ContextWindow takes the
	// window of the turn's model.
	Limit tool.LimitOptions
	// ToolTimeout bounds a tool call that sets no timeout of its own; zero
	// means tool.DefaultTimeout.
	ToolTimeout time.Duration

	// Store is the session log; nil means a fresh in-memory store.
	Store Store
	// Hooks are the hook handlers; nil means a new empty set (see
	// Harness.Hooks). Handlers may be added and removed at any time.
	Hooks *hook.Hooks
	// Stop is the stop policy.
	Stop StopPolicy
	// SteeringMode and FollowUpMode set how queued messages are delivered;
	// empty means QueueOneAtATime.
	SteeringMode, FollowUpMode QueueMode
	// Clock stamps messages and in-memory entries; nil means time.Now.
	Clock func() time.Time

	// Context manages the context window: masking of old tool output and
	// compaction (see package compact and docs/context.md). The zero value
	// is on, with the default thresholds.
	Context compact.Settings
	// Pinned, when set, returns text every compaction summary ends with,
	// verbatim, under "## Open work items (verbatim)" (the open work
	// items, see package work); "" adds nothing. Called once per
	// compaction.
	Pinned func() string
	// Summarizers write compaction summaries, tried in order before the
	// session's own model; nil means the session's model alone.
	Summarizers []compact.Summarizer
}

// QueueMode says how many queued messages one drain delivers.
type QueueMode string

// Queue modes.
const (
	// QueueOneAtATime delivers the oldest queued message per safe point.
	QueueOneAtATime QueueMode = "one-at-a-time"
	// QueueAll delivers every queued message at once.
	QueueAll QueueMode = "all"
)

func (m QueueMode) valid() bool { return m == "" || m == QueueOneAtATime || m == QueueAll }

// StopMode says what ends a run successfully.
type StopMode string

// Stop modes.
const (
	// Interactive: the model's final answer ends the run.
	Interactive StopMode = "interactive"
	// Strict: the run ends successfully only when the model calls the
	// work_complete tool, which the harness adds. A final answer without
	// it is answered with a reminder, at most MaxReminders times; then the
	// run ends with StopWorkIncomplete.
	Strict StopMode = "strict"
)

// StopPolicy decides when a run ends, beyond the model's own answer.
type StopPolicy struct {
	// Mode is Interactive (the default) or Strict.
	Mode StopMode
	// MaxTurns caps the turns of one run; zero means agent.DefaultMaxTurns,
	// negative means no cap.
	MaxTurns int
	// MaxNudges bounds the nudges after empty replies (see agent.Config).
	MaxNudges int
	// MaxReminders bounds the work_complete reminders of strict mode; zero
	// means DefaultMaxReminders, negative means none.
	MaxReminders int
	// Reminder is the reminder's text; empty means DefaultReminder.
	Reminder string
	// Verify, when set, checks the task's contract whenever the run would
	// end as completed, before the agent_stop hook; failures go back to
	// the model as one message, at most VerifyRetries times (zero means
	// DefaultVerifyRetries, negative none), then the run ends with
	// StopContractUnmet. A run never ends completed without a passing
	// check.
	Verify        Verifier
	VerifyRetries int
	// StallTurns ends the run with StopStalled after this many consecutive
	// turns without progress (see docs/harness.md); zero means
	// DefaultStallTurns, negative disables stall detection.
	StallTurns int
}

// Defaults of the stop policy.
const (
	DefaultMaxReminders = 2
	DefaultStallTurns   = 3
	DefaultReminder     = "You have not called the work_complete tool. If the task is finished and verified, call work_complete with a short summary; otherwise keep working."
	// DefaultStopBlock is sent to the model when an agent_stop hook
	// blocks without a message.
	DefaultStopBlock = "Do not stop yet: the task is not finished. Continue."
)

func (p StopPolicy) maxReminders() int {
	switch {
	case p.MaxReminders == 0:
		return DefaultMaxReminders
	case p.MaxReminders < 0:
		return 0
	}
	return p.MaxReminders
}

func (p StopPolicy) stallTurns() int {
	switch {
	case p.StallTurns == 0:
		return DefaultStallTurns
	case p.StallTurns < 0:
		return 0
	}
	return p.StallTurns
}

func (p StopPolicy) reminder() string {
	if p.Reminder != "" {
		return p.Reminder
	}
	return DefaultReminder
}

// StopReason says why a run ended: the loop's reasons (see agent) and the
// harness's own.
type StopReason = agent.StopReason

// Stop reasons.
const (
	StopCompleted  = agent.StopCompleted
	StopLength     = agent.StopLength
	StopMaxTurns   = agent.StopMaxTurns
	StopEmptyReply = agent.StopEmptyReply
	StopToolStop   = agent.StopToolStop
	StopError      = agent.StopError
	StopAborted    = agent.StopAborted
	// StopWorkIncomplete: strict mode, the model kept answering without
	// calling work_complete after every reminder.
	StopWorkIncomplete StopReason = "work_incomplete"
	// StopStalled: the transcript made no progress for StallTurns turns.
	StopStalled StopReason = "stalled"
)

// Phase is what the harness is doing.
type Phase string

// Phases. Structural operations (Prompt, Compact, Navigate) need PhaseIdle.
const (
	PhaseIdle          Phase = "idle"
	PhaseTurn          Phase = "turn"
	PhaseCompaction    Phase = "compaction"
	PhaseBranchSummary Phase = "branch_summary"
)
