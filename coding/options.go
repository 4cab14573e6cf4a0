package coding

import (
	"os"
	"time"

	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/telemetry/logs"
	"github.com/reinhq/rein/tool/builtin"
	"github.com/reinhq/rein/trust"
)

// Options configure Open. The zero value opens the project around the
// current directory with the model its config (or a provider key in the
// environment) names, a new session log, and no one to answer approval
// requests. Options are read by Open only; the Agent keeps no reference
// to the caller's values.
type Options struct {
	// Workdir is the workspace the tools work in. "" means the nearest
	// directory at or above the current one holding .rein/ or .git (see
	// ProjectRoot); a relative path is taken from the current directory.
	Workdir string

	// Model names the model: provider/model, an alias (sonnet, opus,
	// gpt…) or "" for the config's "model" (else the first provider whose
	// key is set). Ignored when Provider is set.
	Model string
	// Provider and ModelInfo, when Provider is set, are used as given
	// instead of resolving Model from the catalog: a scripted model in
	// tests and the demo, or a provider an embedder built itself.
	Provider  llm.Provider
	ModelInfo llm.Model
	// BaseURL sends requests to another server of the model's protocol.
	BaseURL string
	// RequestTimeout bounds one model call, retries included (0: none);
	// IdleTimeout fails a stream that sends nothing for that long (0: the
	// provider's default).
	RequestTimeout, IdleTimeout time.Duration
	// Thinking is the reasoning effort; "" is the model's own (a
	// continued session's level unless ThinkingSet).
	Thinking    llm.ThinkingLevel
	ThinkingSet bool

	// Tools names the tools to offer: tool or toolset names, comma-
	// separated, "-name" removing one; "none" offers none; "" means the
	// coding toolset. MCP servers and the skill tool are added to it.
	Tools string
	// AllowRules and DenyRules are permission rules for this agent only,
	// in the settings files' syntax ("Bash(git diff:*)", "Read",
	// "Edit(./src/**)"): Claude Code's --allowedTools and
	// --disallowedTools. A deny wins over an allow, as in the files.
	AllowRules, DenyRules []string
	// restoreTools: a continued session names its active tools; every
	// built-in tool is handed to the harness, which restores them.
	restoreTools bool
	// DisableMCP names MCP servers not to start ("all": none of them).
	DisableMCP []string
	// MCPServers are MCP servers for this agent only, beside the
	// configured ones (a server of the same name replaces the configured
	// one): the servers an editor hands an ACP session. They start like
	// the configured ones and are not subject to workspace trust, since
	// the caller chose them.
	MCPServers map[string]mcp.ServerConfig
	// Files, when set, is where read, write and edit take and put text
	// (an editor's buffers, over ACP), after rein's path checks; bash
	// and the searches still see the disk. See builtin.Files.
	Files builtin.Files
	// Agents is Claude Code's --agents value: a JSON object of agent
	// definitions by name, above those of the agent folders (see
	// AgentCatalog and docs/agents.md).
	Agents string

	// PermissionMode is a mode in rein's or Claude Code's words (see
	// permission.ParseMode); "" means the settings' defaultMode, else
	// DefaultMode.
	PermissionMode string
	// DefaultMode is the mode when neither PermissionMode nor the
	// settings name one; "" means auto_read (Claude Code's default): on a
	// terminal what would ask asks, and where no one answers it is
	// denied with the reason returned to the model. A front-end that runs
	// a task nobody watches by design (rein long, the demo) sets its own.
	DefaultMode string
	// Interactive says someone answers approval requests (they arrive as
	// events, see Event.Approval); without, calls that need approval are
	// denied at once.
	Interactive bool
	// ConfirmTrust, when set, is asked once when the workspace holds
	// files that would run commands, send requests or keys elsewhere or
	// loosen the sandbox and the user has not trusted their content (see
	// package trust); true records the content as trusted. Without it an
	// Interactive agent ignores that content, saying so once, and any
	// other stops Open with a *trust.UntrustedError before the first
	// request.
	ConfirmTrust func(*trust.Status) bool
	// Terminal says the front-end runs on a terminal; with Interactive it
	// makes the default permission mode auto_read.
	Terminal bool

	// SystemPrompt replaces rein's stable system prompt tier; Append is
	// added below the session tier. Context files and skills stay.
	SystemPrompt, AppendSystem string
	// MaxTurns stops a run after that many turns: 0 is the harness
	// default, negative no cap. Strict ends a run only when the model
	// calls work_complete.
	MaxTurns int
	Strict   bool
	// Verify lists commands that must exit 0 before a run may end as
	// completed (rein run --verify); Contract names a contract file, ""
	// meaning .rein/contract.json when it exists. The harness runs the
	// checks itself, in the sandbox, and sends failures back to the
	// model; a malformed contract stops Open with a *work.ContractError.
	// See docs/long-horizon.md.
	Verify   []string
	Contract string

	// Session is the session log to continue: a file path. "" creates a
	// new one unless NoSession. A continued session's model, thinking
	// level, tools, base URL and workspace are used where the options
	// above leave them empty.
	Session   string
	NoSession bool

	// Getenv reads the environment (config locations, keys, REIN_*); nil
	// means os.Getenv. Environ is the environment handed to commands
	// (bash, hooks, MCP servers) before secrets are removed; nil means
	// os.Environ.
	Getenv  func(string) string
	Environ func() []string
	// Warn receives what the user should read about the set-up and the
	// hooks: config warnings, notes, hook messages. Each message is one
	// line such as "warning: …" or "note: …". Nil drops them. It may be
	// called from any goroutine.
	Warn func(string)
	// OnRetry receives the failover's retries, key rotations and
	// fallbacks; nil drops them.
	OnRetry func(failover.Event)
	// Redactor masks secrets in the session log, tool output and saved
	// output; nil means one built from Environ.
	Redactor *redact.Redactor
	// Version is the version MCP servers are told; "" means "dev".
	Version string

	// Budget limits what each prompt may spend; a limit left zero takes
	// the workspace's telemetry.json default (none when it has none). A
	// prompt over budget ends with a *telemetry.BudgetError (see
	// docs/observability.md).
	Budget telemetry.Limits
	// Frontend names the program in run records (run, chat, tui, demo,
	// acp, http); "" means sdk. NoRunRecords writes no record to
	// .rein/runs (the session still gets its run entries).
	Frontend     string
	NoRunRecords bool
	// Tracer, when set, receives the spans of every prompt. Otherwise
	// Tracing, when set, starts one if the OTEL_* variables or the
	// workspace's telemetry.json ask for traces (telemetry.TracesWanted):
	// pass otel.Setup from package telemetry/otel. A setup that fails is
	// one warning, and the agent runs without traces. Close flushes it.
	Tracer  telemetry.Tracer
	Tracing telemetry.TraceSetup
	// Logs, when set, receives each subsystem's log lines at the levels
	// it was built with (REIN_LOG in the command); nil logs nothing.
	Logs *logs.Set

	// AgentDefinitions are the agents the model may delegate to with the
	// agent tool (see docs/agents.md); nil means those AgentCatalog
	// finds. Options.Tools "-agent" offers no agent tool.
	// SubagentLimits bound the delegation: depth, live children,
	// children running at once (zero fields are the defaults).
	AgentDefinitions subagent.Definitions
	SubagentLimits   subagent.Limits
	// child is set when the agent is a sub-agent of another.
	child *childLink
	// Lanes schedules the agent's prompts and model requests with every
	// other agent sharing it: one prompt at a time per session (FIFO), a
	// global cap on concurrent model requests, provider back-off (see
	// docs/lanes.md). nil means lane.Default, the one scheduler of the
	// process. Priority is the priority of the agent's model requests
	// (sub-agents: lane.Worker); a context's lane.WithPriority wins.
	Lanes    *lane.Scheduler
	Priority lane.Priority
}

// defaults fills in the functions Open needs.
func (o *Options) defaults() {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Redactor == nil {
		o.Redactor = redact.FromEnv(o.Environ())
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}
