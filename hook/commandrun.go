package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Commands runs external command hooks the way Claude Code does: the
// event as JSON on stdin, CLAUDE_PROJECT_DIR and REIN_PROJECT_DIR in the
// environment, exit status 0 for success, 2 to block (stderr is the
// reason), anything else a non-blocking error shown to the user, and
// optional JSON on stdout (see Output). The hooks matching one event run
// in parallel; identical commands run once. Safe for concurrent use.
type Commands struct {
	Config CommandConfig
	// ProjectDir is the workspace: the hooks' working directory and
	// CLAUDE_PROJECT_DIR.
	ProjectDir string
	// SessionID (rein's id; hooks receive SessionUUID of it) and
	// TranscriptPath are passed on stdin. Once hooks may
	// run, change them only with SetSession.
	SessionID, TranscriptPath string
	// Exec runs the commands; nil means a zero Exec.
	Exec *Exec
	// Env is the base environment; nil means the process's.
	Env []string
	// Report receives what the user should see: non-blocking errors,
	// systemMessage texts, blocked prompts. It may be called from several
	// goroutines at once. Nil drops them.
	Report func(Report)
	// MaxStopBlocks caps consecutive Stop hook blocks in one run; zero
	// means DefaultMaxStopBlocks.
	MaxStopBlocks int
	// ContextEnv, when set, returns variables added to the environment of
	// the hooks of an event from the event's context (TRACEPARENT and
	// TRACESTATE of the caller's span).
	ContextEnv func(ctx context.Context) []string
	// Mode, when set, returns the permission mode in Claude Code's words
	// (default, acceptEdits, plan, bypassPermissions), sent with every
	// event as permission_mode.
	Mode func() string
	// AgentID and AgentType, when set, mark the hooks of a sub-agent's
	// session: every event they run carries agent_id and agent_type, and
	// the end of the agent's run fires SubagentStop (with
	// agent_transcript_path, the TranscriptPath) instead of Stop. Set them
	// before hooks may run.
	AgentID, AgentType string
	// EnvFileDir, when set, returns the folder of a session's env files
	// (given rein's session id and the TranscriptPath): SessionStart hooks
	// get CLAUDE_ENV_FILE naming a file in it, and EnvDir names it for the
	// readers of those files (ReadEnvDir). Set it before hooks may run.
	EnvFileDir func(sessionID, transcriptPath string) string

	mu         sync.Mutex
	stopBlocks int
}

// DefaultMaxStopBlocks is how many times in a row Stop hooks may keep the
// agent going before rein lets it stop.
const DefaultMaxStopBlocks = 5

// Report is a message about a hook for the user.
type Report struct {
	Event   CommandEvent
	Command string
	Source  string
	// Error is set for failures (exit status other than 0 and 2, a
	// timeout, a command that does not start, output that is not valid
	// JSON or too large); Message holds texts such as systemMessage.
	Error   bool
	Message string
}

func (r Report) String() string {
	return fmt.Sprintf("%s hook %q: %s", r.Event, r.Command, r.Message)
}

// Output is the JSON a hook may print on stdout with exit status 0.
type Output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	// Decision is "block" (or "approve" for PreToolUse, older form).
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Verdict is what the hooks of one event decided together.
type Verdict struct {
	// Decision folds PreToolUse decisions (deny > ask > allow; "" when no
	// hook decided) and is "block" when a hook blocked another event.
	Decision string
	// Reason joins the reasons of the deciding hooks.
	Reason string
	// UpdatedInput is the last updatedInput of a hook that did not deny.
	UpdatedInput json.RawMessage
	// Context joins additionalContext (and the plain stdout of
	// UserPromptSubmit and SessionStart hooks).
	Context string
	// Stop is set when a hook said "continue": false; it holds the
	// stopReason.
	Stop    string
	Stopped bool
}

// Input is the JSON sent on stdin; fields beyond the common ones are set
// per event.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  CommandEvent    `json:"hook_event_name"`
	PermissionMode string          `json:"permission_mode,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the text of the model's last reply (Stop).
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
	Source               string  `json:"source,omitempty"`
	Reason               string  `json:"reason,omitempty"`
	Trigger              string  `json:"trigger,omitempty"`
	Instructions         *string `json:"custom_instructions,omitempty"`
	Message              string  `json:"message,omitempty"`
	// AgentID and AgentType name the sub-agent an event concerns
	// (SubagentStart, SubagentStop) or runs in (every event of a child).
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	// AgentTranscriptPath is the sub-agent's own log (SubagentStop).
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"`
	// Rein carries rein's own name and arguments of the tool, which
	// tool_name and tool_input give in Claude Code's terms.
	Rein *ReinTool `json:"rein,omitempty"`
}

// ReinTool is a call in rein's own terms.
type ReinTool struct {
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Has reports whether any hook is configured for ev.
func (c *Commands) Has(ev CommandEvent) bool {
	return c != nil && len(c.Config[ev]) > 0
}

// SetSession changes the session the hooks are told about, as when the
// conversation moves to a fork. Safe while hooks run: a hook already
// started keeps the old values.
func (c *Commands) SetSession(id, transcript string) {
	c.mu.Lock()
	c.SessionID, c.TranscriptPath = id, transcript
	c.mu.Unlock()
}

// Run runs the hooks of in.HookEventName that match names and folds
// their results. It returns when every hook has ended (each is bounded
// by its timeout) or ctx ends.
func (c *Commands) Run(ctx context.Context, in Input, names ...string) Verdict {
	var v Verdict
	if c == nil {
		return v
	}
	hooks := c.Config.hooksFor(in.HookEventName, names...)
	if len(hooks) == 0 {
		return v
	}
	c.mu.Lock()
	in.SessionID, in.TranscriptPath, in.Cwd = SessionUUID(c.SessionID), c.TranscriptPath, c.ProjectDir
	envDir := c.envDirLocked()
	c.mu.Unlock()
	if in.AgentID == "" && c.AgentID != "" {
		in.AgentID, in.AgentType = c.AgentID, c.AgentType
	}
	if in.PermissionMode == "" && c.Mode != nil {
		in.PermissionMode = c.Mode()
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return v
	}
	results := make([]result, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := c.env(ctx)
			if f := envFileFor(envDir, in.HookEventName, i); f != "" {
				env = append(env, EnvFileVar+"="+f)
			}
			results[i] = c.runOne(ctx, in.HookEventName, h, stdin, env)
		}()
	}
	wg.Wait()
	return fold(in.HookEventName, results)
}

// result is one hook's outcome, interpreted.
type result struct {
	decision string // deny, ask, allow, block or ""
	reason   string
	updated  json.RawMessage
	context  string
	stop     bool
	stopWhy  string
}

func (c *Commands) env(ctx context.Context) []string {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	// CLAUDECODE=1 tells hooks written for Claude Code that they run under
	// an agent, as Claude Code's own environment does.
	env = append(env[:len(env):len(env)], "CLAUDE_PROJECT_DIR="+c.ProjectDir, "REIN_PROJECT_DIR="+c.ProjectDir, "CLAUDECODE=1")
	if c.ContextEnv != nil {
		env = append(env, c.ContextEnv(ctx)...)
	}
	return env
}

func (c *Commands) report(r Report) {
	if c.Report != nil {
		c.Report(r)
	}
}

// EnvDir is the folder of the current session's env files, "" when
// EnvFileDir is not set.
func (c *Commands) EnvDir() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.envDirLocked()
}

func (c *Commands) envDirLocked() string {
	if c.EnvFileDir == nil || c.SessionID == "" {
		return ""
	}
	return c.EnvFileDir(c.SessionID, c.TranscriptPath)
}

// envFileFor returns the CLAUDE_ENV_FILE of the index-th hook of ev, or
// "" when ev has none (Claude Code gives it to SessionStart hooks; rein
// runs no Setup, CwdChanged or FileChanged hooks) or its folder cannot be
// made, in which case the hook runs without it.
func envFileFor(dir string, ev CommandEvent, index int) string {
	if dir == "" || ev != SessionStart {
		return ""
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return EnvFilePath(dir, ev, index)
}

func (c *Commands) runOne(ctx context.Context, ev CommandEvent, h CommandHook, stdin []byte, env []string) result {
	x := c.Exec
	if x == nil {
		x = &Exec{}
	}
	o := x.Run(ctx, Command{Command: h.Command, Dir: c.ProjectDir, Env: env, Stdin: stdin, Timeout: h.timeout()})
	rep := Report{Event: ev, Command: h.Command, Source: h.Source, Error: true}
	stderr := strings.TrimSpace(string(o.Stderr))
	switch {
	case o.Cancelled:
		return result{}
	case o.StartErr != nil:
		rep.Message = "could not start: " + o.StartErr.Error()
		c.report(rep)
		return result{}
	case o.TimedOut:
		rep.Message = fmt.Sprintf("did not finish within %s and was killed; ignored", h.timeout())
		c.report(rep)
		return result{}
	case o.ExitCode == 2:
		if stderr == "" {
			stderr = fmt.Sprintf("A %s hook (%s) blocked this without giving a reason.", ev, h.Command)
		}
		return c.blocked(ev, stderr, rep)
	case o.ExitCode != 0:
		rep.Message = fmt.Sprintf("failed with exit status %d", o.ExitCode)
		if o.ExitCode == 127 {
			rep.Message += " (command not found?)"
		}
		if stderr != "" {
			rep.Message += ": " + clip(stderr, 500)
		}
		c.report(rep)
		return result{}
	}
	if o.Truncated {
		rep.Message = "printed more than the output limit; the output was cut and is ignored"
		c.report(rep)
		return result{}
	}
	out := bytes.TrimSpace(o.Stdout)
	if len(out) == 0 {
		return result{}
	}
	if out[0] != '{' {
		if ev == UserPromptSubmit || ev == SessionStart {
			return result{context: string(out)}
		}
		return result{}
	}
	var js Output
	if err := json.Unmarshal(out, &js); err != nil {
		rep.Message = "printed output that is not valid JSON; ignored: " + clip(string(out), 200)
		c.report(rep)
		return result{}
	}
	if js.SystemMessage != "" {
		c.report(Report{Event: ev, Command: h.Command, Source: h.Source, Message: js.SystemMessage})
	}
	r := result{context: js.HookSpecificOutput.AdditionalContext}
	if js.Continue != nil && !*js.Continue {
		r.stop, r.stopWhy = true, js.StopReason
		if r.stopWhy == "" {
			r.stopWhy = fmt.Sprintf("a %s hook stopped the run", ev)
		}
	}
	hs := js.HookSpecificOutput
	switch {
	case ev == PreToolUse && hs.PermissionDecision != "":
		switch hs.PermissionDecision {
		case "allow", "deny", "ask":
			r.decision, r.reason = hs.PermissionDecision, hs.PermissionDecisionReason
		default:
			rep.Message = fmt.Sprintf("permissionDecision %q is not allow, deny or ask; ignored", hs.PermissionDecision)
			c.report(rep)
		}
	case ev == PreToolUse && js.Decision == "approve":
		r.decision, r.reason = "allow", js.Reason
	case js.Decision == "block":
		r.decision, r.reason = "block", js.Reason
		if ev == PreToolUse {
			r.decision = "deny"
		}
		if r.reason == "" {
			r.reason = fmt.Sprintf("A %s hook (%s) blocked this without giving a reason.", ev, h.Command)
		}
		if ev == UserPromptSubmit {
			c.report(Report{Event: ev, Command: h.Command, Source: h.Source, Message: "blocked the prompt: " + r.reason})
		}
	}
	if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
		r.updated = hs.UpdatedInput
	}
	return r
}

// blocked interprets exit status 2 per event.
func (c *Commands) blocked(ev CommandEvent, stderr string, rep Report) result {
	switch ev {
	case PreToolUse:
		return result{decision: "deny", reason: stderr}
	case PostToolUse, Stop, SubagentStop:
		return result{decision: "block", reason: stderr}
	case UserPromptSubmit:
		rep.Error, rep.Message = false, "blocked the prompt: "+stderr
		c.report(rep)
		return result{decision: "block", reason: stderr}
	case PreCompact:
		return result{decision: "block", reason: stderr}
	}
	rep.Message = stderr
	c.report(rep)
	return result{}
}

func fold(ev CommandEvent, rs []result) Verdict {
	var v Verdict
	rank := map[string]int{"deny": 3, "block": 3, "ask": 2, "allow": 1}
	var reasons, contexts, stops []string
	for _, r := range rs {
		if rank[r.decision] > rank[v.Decision] {
			v.Decision, reasons = r.decision, nil
		}
		if r.decision != "" && r.decision == v.Decision && r.reason != "" {
			reasons = append(reasons, r.reason)
		}
		if r.updated != nil && r.decision != "deny" {
			v.UpdatedInput = r.updated
		}
		if r.context != "" {
			contexts = append(contexts, r.context)
		}
		if r.stop {
			v.Stopped = true
			stops = append(stops, r.stopWhy)
		}
	}
	v.Reason = strings.Join(reasons, "\n")
	v.Context = strings.Join(contexts, "\n")
	v.Stop = strings.Join(stops, "; ")
	return v
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
