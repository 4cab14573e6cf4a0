package harness

import (
	"context"
	"fmt"
	"slices"

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
		Provider: r.contextProvider(r.h.hooks.ProviderMiddleware()(s.Provider)), Model: s.Model, System: s.System,
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

// middleware is the tool chain of a turn (outermost first): the
// permission gate, the hooks' tool middleware, the caller's middleware, the output limit, the
// timeout.
func (r *run) middleware(m llm.Model) []tool.Middleware {
	h := r.h
	lim := h.limit
	if lim.ContextWindow == 0 {
		lim.ContextWindow = m.ContextWindow
	}
	mws := make([]tool.Middleware, 0, len(h.mw)+4)
	mws = append(mws, h.gateMiddleware()...)
	mws = append(mws, h.hooks.ToolMiddleware(r.hookFailed))
	mws = append(mws, h.mw...)
	return append(mws, tool.Limit(lim), tool.Timeout(h.timeout))
}
