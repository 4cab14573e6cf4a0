package main

import (
	"context"
	"fmt"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/telemetry/otelpipe"
)

// runOptions are the flags shared by the commands that run the agent.
type runOptions struct {
	model     string
	script    string
	baseURL   string
	workdir   string
	maxTurns  int
	tools     string
	output    string
	thinking  string
	noSession bool
	strict    bool
	verify    []string // --verify: commands that must pass before success
	contract  string   // --contract: the contract file
	// permissionMode is the --permission-mode flag; answerable says that
	// someone can answer approval requests.
	permissionMode string
	answerable     bool

	// Flags of the command line peers share (see flags.go).
	systemPrompt   string        // --system-prompt: replaces rein's system prompt
	appendSystem   string        // --append-system-prompt: appended to it
	requestTimeout time.Duration // --request-timeout: bound on one model call, retries included
	idleTimeout    time.Duration // --idle-timeout: a silent stream fails after this long
	print          bool          // -p/--print: run once
	cont           bool          // -c/--continue: the workspace's last session
	resume         string        // --resume ID
	plain          bool          // --plain: the line chat, not the terminal UI

	// disableMCP names MCP servers not to start ("all": none).
	disableMCP []string
	// agents is Claude Code's --agents JSON (see agents.go).
	agents string
	// budget is --max-cost, --max-input-tokens and --max-output-tokens;
	// frontend names the command in run records ("" is run); noRecords
	// keeps runs out of .rein/runs.
	budget    telemetry.Limits
	frontend  string
	noRecords bool
	// claude holds Claude Code's flags; check maps them onto allowRules,
	// denyRules, permissionMode and tools.
	claude                claudeFlags
	allowRules, denyRules []string
	// keepTools and keepThinking: the flags were not given, so a resumed
	// session's own settings apply.
	keepTools, keepThinking bool
}

// options turns the flags into the options of coding.Open. sessionPath
// is the session to continue ("" for a new one).
func (o *runOptions) options(e *env, sessionPath string, noSession bool) (coding.Options, error) {
	maxTurns := o.maxTurns
	if maxTurns == 0 {
		maxTurns = -1
	}
	co := coding.Options{
		Workdir:        o.workdir,
		Model:          o.model,
		BaseURL:        o.baseURL,
		RequestTimeout: o.requestTimeout,
		IdleTimeout:    o.idleTimeout,
		Thinking:       llm.ThinkingLevel(o.thinking),
		Tools:          o.tools,
		AllowRules:     o.allowRules,
		DenyRules:      o.denyRules,
		DisableMCP:     o.disableMCP,
		Agents:         o.agents,
		PermissionMode: o.permissionMode,
		Interactive:    o.answerable,
		Terminal:       isTerminalIn(e),
		SystemPrompt:   o.systemPrompt,
		AppendSystem:   o.appendSystem,
		MaxTurns:       maxTurns,
		Strict:         o.strict,
		Verify:         o.verify,
		Contract:       o.contract,
		Session:        sessionPath,
		NoSession:      noSession,
		Getenv:         e.getenv,
		Warn:           e.warn,
		OnRetry:        e.failoverEvent,
		Redactor:       redactor(),
		Version:        version,
		Budget:         o.budget,
		Frontend:       o.frontend,
		NoRunRecords:   o.noRecords,
		Tracing:        otelpipe.Setup,
	}
	if co.Frontend == "" {
		co.Frontend = "run"
	}
	set, closeLogs, err := coding.OpenLogs(e.getenv, e.stderr, co.Frontend == "tui", o.workdir, redactor())
	if err != nil {
		return co, &exitError{code: 2, err: err}
	}
	co.Logs = set
	e.atExit(closeLogs)
	if o.answerable {
		co.ConfirmTrust = confirmTrust(e)
	}
	if sessionPath != "" {
		if o.keepTools {
			co.Tools = ""
		}
		co.ThinkingSet = !o.keepThinking
	}
	switch {
	case o.script != "" && o.model != "" && o.model != "faux" && o.model != "faux/faux":
		return co, fmt.Errorf("--script only applies to --model faux")
	case o.script != "":
		replies, err := faux.LoadScriptFile(o.script)
		if err != nil {
			return co, err
		}
		co.Provider, co.ModelInfo = faux.New(replies...), faux.Model()
	case o.model == "faux" || o.model == "faux/faux":
		return co, fmt.Errorf("the faux model replays a script: add --script FILE (one JSON reply a line, e.g. {\"text\": \"hello\"})")
	}
	return co, nil
}

// newAgent opens the agent the flags describe. sessionPath is the
// session to continue; "" creates a new one unless noSession.
func newAgent(ctx context.Context, e *env, o *runOptions, sessionPath string, noSession bool) (*coding.Agent, error) {
	co, err := o.options(e, sessionPath, noSession)
	if err != nil {
		return nil, err
	}
	return coding.Open(ctx, co)
}

// warn prints one of coding's messages on standard error.
func (e *env) warn(msg string) {
	e.mu.Lock()
	w := e.stderr
	e.mu.Unlock()
	fmt.Fprintln(w, "rein:", msg)
}
