package hook

import (
	"context"
	"iter"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Notes ToolMiddleware attaches to results.
const (
	NoteBlocked = "hook:blocked"
	NoteFailed  = "hook:failed"
)

// ToolMiddleware returns tool middleware that runs the tool_call handlers
// before a call and the tool_result handlers after it.
//
// A blocked call never reaches next: the model gets an error result whose
// text is the handler's reason. A failing handler fails closed: the call
// is not run (tool_call) or its result is replaced (tool_result) by an
// error result naming the hook, the result's Stop asks the loop to end
// the run after the batch, and report, when non-nil, receives the *Error.
// report may be called from several goroutines at once.
func (h *Hooks) ToolMiddleware(report func(error)) tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		if h == nil {
			return next
		}
		return func(ctx context.Context, call *tool.Call) tool.Result {
			if has(&h.toolCall) {
				res, err := h.RunToolCall(ctx, &ToolCallEvent{Call: call})
				if err != nil {
					return failed(err, report)
				}
				if res.Block {
					reason := res.Reason
					if reason == "" {
						reason = "The call to " + call.Name + " was blocked by a hook."
					}
					r := tool.Errorf("%s", reason)
					r.Notes = []string{NoteBlocked}
					return r
				}
			}
			res := next(ctx, call)
			if !has(&h.toolResult) {
				return res
			}
			patched, err := h.RunToolResult(ctx, &ToolResultEvent{Call: call, Result: res})
			if err != nil {
				return failed(err, report)
			}
			return patched
		}
	}
}

func failed(err error, report func(error)) tool.Result {
	if report != nil {
		report(err)
	}
	r := tool.Errorf("%v", err)
	r.Stop = err.Error()
	r.Notes = []string{NoteFailed}
	return r
}

// ProviderMiddleware returns provider middleware that runs, for every
// request, the context handlers (rewriting the request's messages), then
// the before_provider_request handlers (patching its options), and
// installs the before_provider_payload handlers as the request's
// Options.OnPayload, after any OnPayload already set. The request is
// copied before it is changed. A failing handler fails the request: the
// stream ends with an error event whose error wraps the *Error.
func (h *Hooks) ProviderMiddleware() llm.Middleware {
	return func(p llm.Provider) llm.Provider {
		if h == nil {
			return p
		}
		return llm.ProviderFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
			if !has(&h.context) && !has(&h.request) && !has(&h.payload) {
				return p.Stream(ctx, req)
			}
			r := *req
			if has(&h.context) {
				msgs, err := h.RunContext(ctx, &ContextEvent{Messages: r.Messages})
				if err != nil {
					return llm.ErrorStream(req, err)
				}
				r.Messages = msgs
			}
			if err := h.RunBeforeProviderRequest(ctx, &ProviderRequestEvent{Request: &r}); err != nil {
				return llm.ErrorStream(req, err)
			}
			if has(&h.payload) {
				prev, model := r.Options.OnPayload, r.Model
				r.Options.OnPayload = func(ctx context.Context, b []byte) ([]byte, error) {
					if prev != nil {
						var err error
						if b, err = prev(ctx, b); err != nil {
							return nil, err
						}
					}
					return h.RunBeforeProviderPayload(ctx, &ProviderPayloadEvent{Model: model, Payload: b})
				}
			}
			return p.Stream(ctx, &r)
		})
	}
}
