package harness

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

func withHooks(o *Options) { o.Hooks = hook.New() }

func TestBeforeAgentStartHook(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, withHooks)
	f.h.Hooks().OnBeforeAgentStart(func(_ context.Context, e *hook.BeforeAgentStartEvent) (hook.BeforeAgentStartResult, error) {
		return hook.BeforeAgentStartResult{
			Messages: []llm.Message{llm.UserText("extra context for " + e.Prompt.Text())},
			System:   []llm.SystemPart{{Text: e.System[0].Text + " + hook"}},
		}, nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	if d := cmp.Diff([]string{"user:hi", "user:extra context for hi"}, requestTexts(reqs[0])); d != "" {
		t.Fatalf("first request (-want +got):\n%s", d)
	}
	for i, r := range reqs {
		if got := llm.SystemText(r.System); got != "base system + hook" {
			t.Fatalf("request %d system = %q", i, got)
		}
	}
	want := []string{"user:hi", "user:extra context for hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1", "assistant:done"}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

func TestContextAndProviderHooks(t *testing.T) {
	var payloads []string
	reply := func(text string) faux.Reply {
		return faux.Reply{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
			body := []byte(`{"model":"` + req.Model.ID + `"}`)
			if req.Options.OnPayload != nil {
				var err error
				if body, err = req.Options.OnPayload(ctx, body); err != nil {
					return llm.Message{}, err
				}
			}
			payloads = append(payloads, string(body))
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(text)}}, nil
		}}
	}
	f := newFixture(t, []faux.Reply{reply("a"), reply("b")}, func(o *Options) {
		withHooks(o)
		o.StreamOptions = llm.Options{Headers: map[string]string{"x-configured": "1", "x-secret": "s"}}
	})
	hk := f.h.Hooks()
	hk.OnContext(func(_ context.Context, e *hook.ContextEvent) (hook.ContextResult, error) {
		return hook.ContextResult{Messages: append([]llm.Message{llm.UserText("[pinned note]")}, e.Messages...)}, nil
	})
	hk.OnBeforeProviderRequest(func(context.Context, *hook.ProviderRequestEvent) (hook.RequestPatch, error) {
		return hook.RequestPatch{Headers: map[string]hook.Opt[string]{"x-secret": hook.Unset[string](), "x-hook": hook.Set("1")}}, nil
	})
	hk.OnBeforeProviderRequest(func(_ context.Context, e *hook.ProviderRequestEvent) (hook.RequestPatch, error) {
		return hook.RequestPatch{Headers: map[string]hook.Opt[string]{"x-hook": hook.Set(e.Request.Options.Headers["x-hook"] + "2")}}, nil
	})
	hk.OnBeforeProviderPayload(func(_ context.Context, e *hook.ProviderPayloadEvent) (hook.ProviderPayloadResult, error) {
		return hook.ProviderPayloadResult{Payload: []byte(strings.Replace(string(e.Payload), "}", `,"cache":true}`, 1))}, nil
	})
	if err := f.h.FollowUp("more"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	if d := cmp.Diff([]string{"user:[pinned note]", "user:hi", "assistant:a", "user:more"}, requestTexts(reqs[1])); d != "" {
		t.Fatalf("second request (-want +got):\n%s", d)
	}
	for _, r := range reqs {
		if d := cmp.Diff(map[string]string{"x-configured": "1", "x-hook": "12"}, r.Options.Headers); d != "" {
			t.Fatalf("headers (-want +got):\n%s", d)
		}
	}
	if d := cmp.Diff([]string{`{"model":"faux","cache":true}`, `{"model":"faux","cache":true}`}, payloads); d != "" {
		t.Fatalf("payloads (-want +got):\n%s", d)
	}
	// The rewrite was for the requests only.
	if d := cmp.Diff([]string{"user:hi", "assistant:a", "user:more", "assistant:b"}, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	if got := f.h.StreamOptions().Headers; len(got) != 2 || got["x-secret"] != "s" {
		t.Fatalf("configured options changed: %v", got)
	}
}

func TestToolHooks(t *testing.T) {
	var ran atomic.Int32
	counted := tool.MustNew("echo", "echoes v", func(_ context.Context, _ *tool.Call, in echoArgs) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("echo:" + in.V), nil
	})
	f := newFixture(t, []faux.Reply{
		faux.Calls("", faux.Call("echo", `{"v":"rm -rf"}`), faux.Call("echo", `{"v":"ok"}`)),
		faux.Text("done"),
	}, func(o *Options) {
		withHooks(o)
		o.Tools = registry(t, counted)
	})
	f.h.Hooks().OnToolCall(func(_ context.Context, e *hook.ToolCallEvent) (hook.ToolCallResult, error) {
		if strings.Contains(string(e.Call.Args), "rm -rf") {
			return hook.ToolCallResult{Block: true, Reason: "Blocked: use explicit paths."}, nil
		}
		return hook.ToolCallResult{}, nil
	})
	f.h.Hooks().OnToolResult(func(_ context.Context, e *hook.ToolResultEvent) (hook.ToolResultResult, error) {
		if e.Result.IsError {
			return hook.ToolResultResult{}, nil
		}
		return hook.ToolResultResult{Content: []llm.Content{llm.Text(e.Result.Text() + " (checked)")}}, nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 1 {
		t.Fatalf("the tool ran %d times", ran.Load())
	}
	got := requestTexts(f.p.Requests()[1])
	want := []string{"result:echo:Blocked: use explicit paths.", "result:echo:echo:ok (checked)"}
	if d := cmp.Diff(want, got[2:]); d != "" {
		t.Fatalf("results (-want +got):\n%s", d)
	}
	if !f.p.Requests()[1].Messages[2].IsError {
		t.Fatal("a blocked call is not an error result")
	}
}

func TestHookErrorsSurfaceAfterCommit(t *testing.T) {
	tests := []struct {
		name    string
		replies []faux.Reply
		setup   func(f *fixture)
		wantLog []string
	}{
		{"tool_call handler fails", []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`))}, func(f *fixture) {
			f.h.Hooks().OnToolCall(func(context.Context, *hook.ToolCallEvent) (hook.ToolCallResult, error) {
				return hook.ToolCallResult{}, errors.New("policy service down")
			}, hook.Name("policy"))
		}, []string{"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:hook tool_call: handler policy failed: policy service down"}},
		{"listener fails at message_end", []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`))}, func(f *fixture) {
			f.h.Subscribe(func(_ context.Context, e Event) error {
				if e.Type == agent.EventMessageEnd && e.Message.Role == llm.RoleAssistant {
					return errors.New("ui gone")
				}
				return nil
			})
		}, []string{"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1"}},
		{"agent_stop handler fails", []faux.Reply{faux.Text("done")}, func(f *fixture) {
			f.h.Hooks().OnAgentStop(func(context.Context, *hook.AgentStopEvent) (hook.AgentStopResult, error) {
				return hook.AgentStopResult{}, errors.New("judge failed")
			})
		}, []string{"user:hi", "assistant:done"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.replies, withHooks)
			tt.setup(f)
			res, err := f.prompt(t, "hi")
			if !errors.Is(err, ErrHook) || res.Stop != StopError {
				t.Fatalf("res %+v err %v", res, err)
			}
			if d := cmp.Diff(tt.wantLog, messagesOnly(transcript(f.store.Entries()))); d != "" {
				t.Fatalf("log (-want +got):\n%s", d)
			}
			if f.h.Phase() != PhaseIdle {
				t.Fatal("phase not restored")
			}
		})
	}
}

func TestAgentStopHookBlocks(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("done?"), faux.Text("really done")}, withHooks)
	var reasons []string
	f.h.Hooks().OnAgentStop(func(_ context.Context, e *hook.AgentStopEvent) (hook.AgentStopResult, error) {
		reasons = append(reasons, e.Reason+":"+e.Message.Text())
		if e.Turn == 1 {
			return hook.AgentStopResult{Block: true, Message: "Run the tests first."}, nil
		}
		return hook.AgentStopResult{}, nil
	})
	res, err := f.prompt(t, "hi")
	if err != nil || res.Stop != StopCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	want := []string{"user:hi", "assistant:done?", "user:Run the tests first.", "assistant:really done"}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"completed:done?", "completed:really done"}, reasons); d != "" {
		t.Fatalf("hook saw (-want +got):\n%s", d)
	}
}
