package hook

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

func TestRequestPatchesChainAndUnset(t *testing.T) {
	h := New()
	var seen []map[string]string
	h.OnBeforeProviderRequest(func(_ context.Context, e *ProviderRequestEvent) (RequestPatch, error) {
		seen = append(seen, e.Request.Options.Headers)
		return RequestPatch{
			Headers:     map[string]Opt[string]{"x-a": Set("1"), "x-drop": Unset[string]()},
			Extra:       map[string]Opt[json.RawMessage]{"top_k": Set(json.RawMessage(`5`))},
			SessionID:   Set("s1"),
			Temperature: Set(0.5),
		}, nil
	})
	h.OnBeforeProviderRequest(func(_ context.Context, e *ProviderRequestEvent) (RequestPatch, error) {
		seen = append(seen, e.Request.Options.Headers)
		return RequestPatch{
			Headers:     map[string]Opt[string]{"x-a": Set(e.Request.Options.Headers["x-a"] + "2")},
			Metadata:    map[string]Opt[string]{"user": Unset[string]()},
			Temperature: Unset[float64](),
			MaxTokens:   Set(99),
		}, nil
	})
	shared := map[string]string{"x-drop": "d", "x-keep": "k"}
	temp := 1.0
	req := llm.Request{Temperature: &temp, Options: llm.Options{Headers: shared, Metadata: map[string]string{"user": "u"}}}
	if err := h.RunBeforeProviderRequest(ctx, &ProviderRequestEvent{Request: &req}); err != nil {
		t.Fatal(err)
	}
	want := llm.Options{
		Headers:   map[string]string{"x-a": "12", "x-keep": "k"},
		Metadata:  map[string]string{},
		Extra:     map[string]json.RawMessage{"top_k": json.RawMessage(`5`)},
		SessionID: "s1",
	}
	if d := cmp.Diff(want, req.Options, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "OnPayload" }, cmp.Ignore())); d != "" {
		t.Fatalf("options (-want +got):\n%s", d)
	}
	if req.Temperature != nil || req.MaxTokens != 99 {
		t.Fatalf("temperature %v max tokens %d", req.Temperature, req.MaxTokens)
	}
	if d := cmp.Diff(map[string]string{"x-drop": "d", "x-keep": "k"}, shared); d != "" {
		t.Fatalf("the caller's map was modified:\n%s", d)
	}
	if d := cmp.Diff([]map[string]string{{"x-drop": "d", "x-keep": "k"}, {"x-a": "1", "x-keep": "k"}}, seen); d != "" {
		t.Fatalf("handlers saw (-want +got):\n%s", d)
	}
}

func TestOptFieldStates(t *testing.T) {
	var keep Opt[int]
	if !keep.IsZero() || keep.IsUnset() {
		t.Fatal("zero Opt is not keep")
	}
	if v, ok := Set(3).Get(); !ok || v != 3 {
		t.Fatal("Set")
	}
	if _, ok := Unset[int]().Get(); ok || !Unset[int]().IsUnset() {
		t.Fatal("Unset")
	}
}

func toolChain(t *testing.T, h *Hooks, report func(error), run func(ctx context.Context, call *tool.Call) tool.Result) (tool.Handler, *int) {
	t.Helper()
	ran := new(int)
	tl := &tool.Tool{Name: "echo", Run: func(ctx context.Context, call *tool.Call) tool.Result {
		*ran++
		return run(ctx, call)
	}}
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Chain(reg.Execute, h.ToolMiddleware(report)), ran
}

func TestToolMiddleware(t *testing.T) {
	yes := true
	tests := []struct {
		name      string
		setup     func(h *Hooks)
		wantText  string
		wantError bool
		wantRan   int
		wantStop  bool
		wantNotes []string
	}{
		{"no handlers", func(*Hooks) {}, "out", false, 1, false, nil},
		{"block with reason", func(h *Hooks) {
			h.OnToolCall(func(_ context.Context, e *ToolCallEvent) (ToolCallResult, error) {
				return ToolCallResult{Block: e.Call.Name == "echo", Reason: "echo is not allowed here"}, nil
			})
		}, "echo is not allowed here", true, 0, false, []string{NoteBlocked}},
		{"block without reason", func(h *Hooks) {
			h.OnToolCall(func(context.Context, *ToolCallEvent) (ToolCallResult, error) { return ToolCallResult{Block: true}, nil })
		}, "The call to echo was blocked by a hook.", true, 0, false, []string{NoteBlocked}},
		{"result patches chain", func(h *Hooks) {
			h.OnToolResult(func(_ context.Context, e *ToolResultEvent) (ToolResultResult, error) {
				return ToolResultResult{Content: []llm.Content{llm.Text(e.Result.Text() + "+1")}}, nil
			})
			h.OnToolResult(func(_ context.Context, e *ToolResultEvent) (ToolResultResult, error) {
				return ToolResultResult{Content: []llm.Content{llm.Text(e.Result.Text() + "+2")}, IsError: &yes}, nil
			})
		}, "out+1+2", true, 1, false, nil},
		{"failing call hook fails closed", func(h *Hooks) {
			h.OnToolCall(func(context.Context, *ToolCallEvent) (ToolCallResult, error) {
				return ToolCallResult{}, errors.New("policy down")
			}, Name("policy"))
		}, "hook tool_call: handler policy failed: policy down", true, 0, true, []string{NoteFailed}},
		{"failing result hook", func(h *Hooks) {
			h.OnToolResult(func(context.Context, *ToolResultEvent) (ToolResultResult, error) { panic("oops") }, Name("lint"))
		}, "hook tool_result: handler lint failed: panic: oops", true, 1, true, []string{NoteFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			tt.setup(h)
			var mu sync.Mutex
			var reported []error
			handler, ran := toolChain(t, h, func(err error) {
				mu.Lock()
				reported = append(reported, err)
				mu.Unlock()
			}, func(context.Context, *tool.Call) tool.Result { return tool.Text("out") })
			res := handler(ctx, &tool.Call{ID: "1", Name: "echo", Args: json.RawMessage(`{}`)})
			if res.Text() != tt.wantText || res.IsError != tt.wantError || *ran != tt.wantRan || (res.Stop != "") != tt.wantStop {
				t.Fatalf("result %+v ran %d", res, *ran)
			}
			if d := cmp.Diff(tt.wantNotes, res.Notes); d != "" {
				t.Fatalf("notes (-want +got):\n%s", d)
			}
			if tt.wantStop {
				var he *Error
				if len(reported) != 1 || !errors.As(reported[0], &he) {
					t.Fatalf("reported %v", reported)
				}
			} else if len(reported) != 0 {
				t.Fatalf("reported %v", reported)
			}
		})
	}
}

func TestNilHooksMiddleware(t *testing.T) {
	var h *Hooks
	handler, ran := toolChain(t, h, nil, func(context.Context, *tool.Call) tool.Result { return tool.Text("ok") })
	if res := handler(ctx, &tool.Call{Name: "echo"}); res.Text() != "ok" || *ran != 1 {
		t.Fatalf("%+v", res)
	}
	p := faux.New(faux.Text("hi"))
	if got := h.ProviderMiddleware()(p); got != llm.Provider(p) {
		t.Fatal("nil hooks wrapped the provider")
	}
}

// payloadReply is a faux reply that encodes the request the way a wire
// client would and passes it through OnPayload, replying with what was
// sent.
func payloadReply() faux.Reply {
	return faux.Reply{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		body := []byte(`{"n":` + string(rune('0'+len(req.Messages))) + `}`)
		if req.Options.OnPayload != nil {
			var err error
			if body, err = req.Options.OnPayload(ctx, body); err != nil {
				return llm.Message{}, err
			}
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(string(body))}}, nil
	}}
}

func TestProviderMiddleware(t *testing.T) {
	h := New()
	h.OnContext(func(_ context.Context, e *ContextEvent) (ContextResult, error) {
		return ContextResult{Messages: e.Messages[len(e.Messages)-1:]}, nil // keep only the last message
	})
	h.OnBeforeProviderRequest(func(context.Context, *ProviderRequestEvent) (RequestPatch, error) {
		return RequestPatch{Headers: map[string]Opt[string]{"x-hook": Set("yes")}}, nil
	})
	h.OnBeforeProviderPayload(func(_ context.Context, e *ProviderPayloadEvent) (ProviderPayloadResult, error) {
		return ProviderPayloadResult{Payload: append([]byte("first:"), e.Payload...)}, nil
	})
	h.OnBeforeProviderPayload(func(_ context.Context, e *ProviderPayloadEvent) (ProviderPayloadResult, error) {
		if !strings.HasPrefix(string(e.Payload), "first:") {
			return ProviderPayloadResult{}, errors.New("not chained")
		}
		return ProviderPayloadResult{Payload: append(e.Payload, "|second"...)}, nil
	})
	p := faux.New(payloadReply())
	var own []string
	req := &llm.Request{Model: faux.Model(), Messages: []llm.Message{llm.UserText("a"), llm.UserText("b")},
		Options: llm.Options{Headers: map[string]string{"x-own": "1"}, OnPayload: func(_ context.Context, b []byte) ([]byte, error) {
			own = append(own, string(b))
			return append([]byte("own:"), b...), nil
		}}}
	msg, err := llm.Collect(ctx, h.ProviderMiddleware()(p), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.Text(); got != `first:own:{"n":1}|second` {
		t.Fatalf("payload sent = %q", got)
	}
	if d := cmp.Diff([]string{`{"n":1}`}, own); d != "" {
		t.Fatalf("own OnPayload saw (-want +got):\n%s", d)
	}
	sent := p.Requests()[0]
	if len(sent.Messages) != 1 || sent.Messages[0].Text() != "b" {
		t.Fatalf("context not rewritten: %+v", sent.Messages)
	}
	if d := cmp.Diff(map[string]string{"x-own": "1", "x-hook": "yes"}, sent.Options.Headers); d != "" {
		t.Fatalf("headers (-want +got):\n%s", d)
	}
	if len(req.Messages) != 2 || len(req.Options.Headers) != 1 {
		t.Fatal("the caller's request was modified")
	}
}

func TestProviderMiddlewareFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h *Hooks)
		event EventName
	}{
		{"context", func(h *Hooks) {
			h.OnContext(func(context.Context, *ContextEvent) (ContextResult, error) { return ContextResult{}, errors.New("x") })
		}, EventContext},
		{"request", func(h *Hooks) {
			h.OnBeforeProviderRequest(func(context.Context, *ProviderRequestEvent) (RequestPatch, error) {
				return RequestPatch{}, errors.New("x")
			})
		}, EventBeforeProviderRequest},
		{"payload", func(h *Hooks) {
			h.OnBeforeProviderPayload(func(context.Context, *ProviderPayloadEvent) (ProviderPayloadResult, error) {
				return ProviderPayloadResult{}, errors.New("x")
			})
		}, EventBeforeProviderPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			tt.setup(h)
			msg, err := llm.Collect(ctx, h.ProviderMiddleware()(faux.New(payloadReply())), &llm.Request{Model: faux.Model()})
			var he *Error
			if !errors.As(err, &he) || he.Event != tt.event {
				t.Fatalf("err = %v", err)
			}
			if msg.StopReason != llm.StopError {
				t.Fatalf("stop = %s", msg.StopReason)
			}
		})
	}
}
