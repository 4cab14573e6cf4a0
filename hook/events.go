package hook

import (
	"context"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// BeforeAgentStartEvent is the payload of before_agent_start: a prompt is
// about to start a run.
type BeforeAgentStartEvent struct {
	// Prompt is the user's message (read-only).
	Prompt llm.Message
	// Messages is the conversation before the prompt (read-only).
	Messages []llm.Message
	// System is the system prompt of the run's first turn, as earlier
	// handlers left it.
	System []llm.SystemPart
}

// BeforeAgentStartResult adds messages and replaces the system prompt.
type BeforeAgentStartResult struct {
	// Messages are added after the prompt, in handler order; they are
	// persisted like the prompt.
	Messages []llm.Message
	// System, when non-nil, replaces the system prompt for every turn of
	// this run. Later handlers see the replacement.
	System []llm.SystemPart
}

// OnBeforeAgentStart registers a before_agent_start handler (transform:
// messages accumulate, the last system prompt set wins). The returned
// function removes it.
func (h *Hooks) OnBeforeAgentStart(fn Handler[BeforeAgentStartEvent, BeforeAgentStartResult], opts ...Option) (remove func()) {
	return add(h, &h.agentStart, fn, opts)
}

// RunBeforeAgentStart runs the before_agent_start handlers. The result
// holds every added message and the final system prompt (nil when no
// handler replaced it).
func (h *Hooks) RunBeforeAgentStart(ctx context.Context, e *BeforeAgentStartEvent) (BeforeAgentStartResult, error) {
	if h == nil {
		return BeforeAgentStartResult{}, nil
	}
	var out BeforeAgentStartResult
	if !has(&h.agentStart) {
		return out, nil
	}
	err := run(ctx, EventBeforeAgentStart, &h.agentStart, e, func(r *BeforeAgentStartResult) bool {
		out.Messages = append(out.Messages, r.Messages...)
		if r.System != nil {
			e.System, out.System = r.System, r.System
		}
		return false
	})
	return out, err
}

// ContextEvent is the payload of context: the messages one provider
// request is about to send.
type ContextEvent struct {
	// Messages as earlier handlers left them. Handlers must not modify the
	// slice or its messages in place; return a new slice instead.
	Messages []llm.Message
}

// ContextResult rewrites the messages of one request.
type ContextResult struct {
	// Messages, when non-nil, replace the messages of this request only;
	// the conversation and the log are unchanged.
	Messages []llm.Message
}

// OnContext registers a context handler (transform). The returned function
// removes it.
func (h *Hooks) OnContext(fn Handler[ContextEvent, ContextResult], opts ...Option) (remove func()) {
	return add(h, &h.context, fn, opts)
}

// RunContext runs the context handlers and returns the final messages.
func (h *Hooks) RunContext(ctx context.Context, e *ContextEvent) ([]llm.Message, error) {
	if h == nil {
		return e.Messages, nil
	}
	err := run(ctx, EventContext, &h.context, e, func(r *ContextResult) bool {
		if r.Messages != nil {
			e.Messages = r.Messages
		}
		return false
	})
	return e.Messages, err
}

// ProviderRequestEvent is the payload of before_provider_request.
type ProviderRequestEvent struct {
	// Request is a copy of the request about to be sent, with the patches
	// of earlier handlers applied. Handlers read it and return a patch;
	// they must not modify it (its slices and maps are shared).
	Request *llm.Request
}

// OnBeforeProviderRequest registers a before_provider_request handler.
// Patches chain: each is applied before the next handler runs. The
// returned function removes it.
func (h *Hooks) OnBeforeProviderRequest(fn Handler[ProviderRequestEvent, RequestPatch], opts ...Option) (remove func()) {
	return add(h, &h.request, fn, opts)
}

// RunBeforeProviderRequest runs the handlers, applying each patch to
// e.Request in turn.
func (h *Hooks) RunBeforeProviderRequest(ctx context.Context, e *ProviderRequestEvent) error {
	if h == nil {
		return nil
	}
	return run(ctx, EventBeforeProviderRequest, &h.request, e, func(p *RequestPatch) bool {
		p.Apply(e.Request)
		return false
	})
}

// ProviderPayloadEvent is the payload of before_provider_payload: the
// encoded wire body of one provider request.
type ProviderPayloadEvent struct {
	Model llm.Model
	// Payload as earlier handlers left it; must not be modified in place.
	Payload []byte
}

// ProviderPayloadResult replaces the wire body.
type ProviderPayloadResult struct {
	// Payload, when non-nil, is sent instead.
	Payload []byte
}

// OnBeforeProviderPayload registers a before_provider_payload handler
// (transform). The returned function removes it.
func (h *Hooks) OnBeforeProviderPayload(fn Handler[ProviderPayloadEvent, ProviderPayloadResult], opts ...Option) (remove func()) {
	return add(h, &h.payload, fn, opts)
}

// RunBeforeProviderPayload runs the handlers and returns the final payload.
func (h *Hooks) RunBeforeProviderPayload(ctx context.Context, e *ProviderPayloadEvent) ([]byte, error) {
	if h == nil {
		return e.Payload, nil
	}
	err := run(ctx, EventBeforeProviderPayload, &h.payload, e, func(r *ProviderPayloadResult) bool {
		if r.Payload != nil {
			e.Payload = r.Payload
		}
		return false
	})
	return e.Payload, err
}

// ToolCallEvent is the payload of tool_call: a call about to run.
type ToolCallEvent struct {
	// Call is the call (read-only).
	Call *tool.Call
}

// ToolCallResult blocks a call.
type ToolCallResult struct {
	// Block stops the call: the tool does not run and the model gets an
	// error result whose text is Reason.
	Block  bool
	Reason string
}

// OnToolCall registers a tool_call handler (first block wins). Handlers
// run on the goroutine of the call, so the calls of a parallel batch run
// them concurrently. The returned function removes it.
func (h *Hooks) OnToolCall(fn Handler[ToolCallEvent, ToolCallResult], opts ...Option) (remove func()) {
	return add(h, &h.toolCall, fn, opts)
}

// RunToolCall runs the handlers until one blocks and returns its result.
func (h *Hooks) RunToolCall(ctx context.Context, e *ToolCallEvent) (ToolCallResult, error) {
	if h == nil {
		return ToolCallResult{}, nil
	}
	var out ToolCallResult
	err := run(ctx, EventToolCall, &h.toolCall, e, func(r *ToolCallResult) bool {
		if r.Block {
			out = *r
		}
		return r.Block
	})
	return out, err
}

// ToolResultEvent is the payload of tool_result: a call's result before
// the model sees it.
type ToolResultEvent struct {
	// Call is the call (read-only).
	Call *tool.Call
	// Result as the tool and earlier handlers left it.
	Result tool.Result
}

// ToolResultResult patches a result.
type ToolResultResult struct {
	// Content, when non-nil, replaces the result's content.
	Content []llm.Content
	// IsError, when non-nil, replaces the error flag.
	IsError *bool
	// Notes are added to the result's notes (see tool.Result.Notes).
	Notes []string
	// Stop, when set and the result has no stop reason yet, ends the run
	// after the batch with this reason.
	Stop string
}

// OnToolResult registers a tool_result handler (transform). The returned
// function removes it.
func (h *Hooks) OnToolResult(fn Handler[ToolResultEvent, ToolResultResult], opts ...Option) (remove func()) {
	return add(h, &h.toolResult, fn, opts)
}

// RunToolResult runs the handlers and returns the patched result.
func (h *Hooks) RunToolResult(ctx context.Context, e *ToolResultEvent) (tool.Result, error) {
	if h == nil {
		return e.Result, nil
	}
	err := run(ctx, EventToolResult, &h.toolResult, e, func(r *ToolResultResult) bool {
		if r.Content != nil {
			e.Result.Content = r.Content
		}
		if r.IsError != nil {
			e.Result.IsError = *r.IsError
		}
		e.Result.Notes = append(e.Result.Notes, r.Notes...)
		if r.Stop != "" && e.Result.Stop == "" {
			e.Result.Stop = r.Stop
		}
		return false
	})
	return e.Result, err
}

// AgentStopEvent is the payload of agent_stop: the run is about to end
// because the model is done.
type AgentStopEvent struct {
	// Reason is the stop reason the run would end with ("completed", or
	// "work_incomplete" in strict mode).
	Reason string
	// Message is the model's last reply (read-only), or nil.
	Message *llm.Message
	// Turn is the number of turns the run has taken.
	Turn int
}

// AgentStopResult keeps the run going.
type AgentStopResult struct {
	// Block keeps the run going; Message is sent to the model as a user
	// message (a default text is used when it is empty).
	Block   bool
	Message string
}

// OnAgentStop registers an agent_stop handler (first block wins). The
// returned function removes it.
func (h *Hooks) OnAgentStop(fn Handler[AgentStopEvent, AgentStopResult], opts ...Option) (remove func()) {
	return add(h, &h.agentStop, fn, opts)
}

// RunAgentStop runs the handlers until one blocks and returns its result.
func (h *Hooks) RunAgentStop(ctx context.Context, e *AgentStopEvent) (AgentStopResult, error) {
	if h == nil {
		return AgentStopResult{}, nil
	}
	var out AgentStopResult
	err := run(ctx, EventAgentStop, &h.agentStop, e, func(r *AgentStopResult) bool {
		if r.Block {
			out = *r
		}
		return r.Block
	})
	return out, err
}
