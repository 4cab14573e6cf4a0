package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Snapshot is the configuration one turn runs on, taken at the start of
// a prompt and at every save point. Everything in it is shared and must
// not be modified.
type Snapshot struct {
	Provider llm.Provider
	Model    llm.Model
	Thinking llm.ThinkingLevel
	// MaxTokens and Temperature are the reply limit and sampling
	// temperature (see Options).
	MaxTokens   int
	Temperature *float64
	// Tools are the tools offered to the model (the active tools, plus
	// work_complete in strict mode); ActiveTools are the active names.
	Tools       *tool.Registry
	ActiveTools []string
	// Options are the stream options (maps copied from the configuration).
	Options llm.Options
	// System is the static system prompt when a SystemFunc is called with
	// the snapshot, and the turn's system prompt afterwards.
	System []llm.SystemPart
	// Messages is the conversation the turn continues: the persisted
	// context plus the messages of the run so far. For a prompt's first
	// turn it is the context before the prompt (the prompt is persisted
	// after the snapshot, once before_agent_start has run).
	Messages []llm.Message
	// Turn is the 1-based turn of the run the snapshot is for.
	Turn int
}

// snapshot takes the configuration for the next turn into r.snap and
// records its changes in the log.
func (r *run) snapshot(ctx context.Context) error {
	h := r.h
	h.mu.Lock()
	c := h.cfg
	gone, tell := h.gone, !h.goneTold && len(h.gone) > 0
	h.goneTold = true
	h.mu.Unlock()
	s := Snapshot{
		Provider: c.provider, Model: c.model, Thinking: c.thinking, MaxTokens: c.maxTokens, Temperature: c.temp,
		Tools: c.offered, ActiveTools: c.names, Options: cloneOptions(c.options),
		System: c.system, Messages: r.msgs[:len(r.msgs):len(r.msgs)], Turn: r.turn + 1,
	}
	switch {
	case r.system != nil:
		s.System = r.system
	case c.systemFunc != nil:
		sys, err := callSystem(ctx, c.systemFunc, s)
		if err != nil {
			return &Error{Code: CodeConfig, Op: "system_prompt", Err: err}
		}
		s.System = sys
	}
	if len(gone) > 0 {
		s.System = append(slices.Clip(s.System), goneNote(gone))
	}
	if err := h.record(&c); err != nil {
		return err
	}
	if tell {
		r.tell(ctx, agent.Event{Type: EventContextNotice, Detail: goneDetail(gone)})
	}
	r.snap = s
	return nil
}

// settings turns the snapshot into loop settings.
func (r *run) settings() agent.Settings {
	s := &r.snap
	return agent.Settings{
		Provider: r.journalProvider(r.contextProvider(r.h.hooks.ProviderMiddleware()(s.Provider))), Model: s.Model, System: s.System,
		Tools: s.Tools, Middleware: r.middleware(s.Model), Thinking: s.Thinking, Options: s.Options,
		MaxTokens: s.MaxTokens, Temperature: s.Temperature,
	}
}

func callSystem(ctx context.Context, f SystemFunc, s Snapshot) (parts []llm.SystemPart, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the system prompt function panicked: %v", p)
		}
	}()
	return f(ctx, s)
}

// middleware is the tool chain of a turn; see ToolChain.
func (r *run) middleware(m llm.Model) []tool.Middleware {
	h := r.h
	lim := h.limit
	if lim.ContextWindow == 0 {
		lim.ContextWindow = m.ContextWindow
	}
	var gate tool.Middleware
	if g := h.gateMiddleware(); len(g) > 0 {
		gate = g[0]
	}
	return ToolChain(Chain{Gate: gate, Hooks: h.hooks.ToolMiddleware(r.hookFailed), Guard: h.guardMW, Prompt: h.promptMW,
		Middleware: h.mw, Limit: lim, Timeout: h.timeout, Journal: h.journalTools()})
}

// Chain holds the parts of the tool chain; nil parts are left out.
type Chain struct {
	Gate, Hooks, Guard, Prompt tool.Middleware
	// Middleware are the caller's (Options.Middleware: the enforcer's
	// sensors and commit gate, say).
	Middleware []tool.Middleware
	Limit      tool.LimitOptions
	Timeout    time.Duration
	// Journal records each call's start and end in the session log.
	Journal tool.Middleware
}

// ToolChain is the one order every tool call passes through, outermost
// first, and why:
//
//  1. the permission gate (command PreToolUse hooks run inside it):
//     nothing below, not even a hook, acts on a call the user or a rule
//     has not allowed;
//  2. the typed hooks (tool_call before, tool_result after — the command
//     PostToolUse hooks among them): they see the call as allowed and
//     the result as the model will get it, and may rewrite either;
//  3. the guard: it judges the call as the hooks left it, stops wasted
//     calls before they run and records what they returned;
//  4. the prompt's just-in-time context: context files of the folders a
//     call reads from, added only to calls that did run;
//  5. the caller's middleware, such as the enforcer's sensors and commit
//     gate, which check what a call changed;
//  6. the output limit: after everything that adds text, so that no
//     result exceeds it (the whole output is saved);
//  7. the timeout, so that it bounds the tool alone;
//  8. the journal, closest to the tool: its tool_started entry means the
//     tool itself was about to run, after every layer that may answer
//     instead (see journal.go).
func ToolChain(c Chain) []tool.Middleware {
	mws := make([]tool.Middleware, 0, len(c.Middleware)+7)
	for _, m := range []tool.Middleware{c.Gate, c.Hooks, c.Guard, c.Prompt} {
		if m != nil {
			mws = append(mws, m)
		}
	}
	mws = append(mws, c.Middleware...)
	mws = append(mws, tool.Limit(c.Limit), tool.Timeout(c.Timeout))
	if c.Journal != nil {
		mws = append(mws, c.Journal)
	}
	return mws
}
