package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// progressTool is echo that also reports progress, so that tool_update
// events happen.
func progressTool() *tool.Tool {
	return tool.MustNew("echo", "echoes v", func(_ context.Context, call *tool.Call, in echoArgs) (tool.Result, error) {
		if call.Update != nil {
			call.Update(tool.Text("working"))
		}
		return tool.Text("echo:" + in.V), nil
	})
}

// reentrantAction is what a listener does, once, from inside an event.
type reentrantAction struct {
	name string
	do   func(t *testing.T, f *fixture, e Event)
	// check runs after the prompt; turn is the turn whose snapshot was
	// in use when the action ran.
	check func(t *testing.T, f *fixture, res Result, ev agent.EventType, turn int)
}

var otherModel = func() llm.Model {
	m := faux.Model()
	m.ID = "faux-2"
	return m
}()

func reentrantActions() []reentrantAction {
	return []reentrantAction{
		{"setters", func(t *testing.T, f *fixture, _ Event) {
			must(t, f.h.SetModel(otherModel))
			must(t, f.h.SetThinking(llm.ThinkingLow))
			f.h.SetSystem([]llm.SystemPart{{Text: "changed"}})
			f.h.SetStreamOptions(llm.Options{Metadata: map[string]string{"k": "v"}})
			must(t, f.h.SetActiveTools([]string{"echo"}))
			if f.h.Model().ID != "faux-2" {
				t.Error("getter does not return the latest model")
			}
		}, func(t *testing.T, f *fixture, _ Result, _ agent.EventType, turn int) {
			for i, r := range f.p.Requests() {
				want := requestView{Model: "faux", System: "base system"}
				if i+1 > turn {
					want = requestView{Model: "faux-2", Thinking: llm.ThinkingLow, System: "changed", Headers: nil}
				}
				got := view(&r)
				got.Tools, got.Headers = nil, nil
				if !cmp.Equal(want, got) || (i+1 > turn) != (r.Options.Metadata["k"] == "v") {
					t.Errorf("request %d (changed during turn %d) = %+v, want %+v", i+1, turn, got, want)
				}
			}
		}},
		{"steer", func(t *testing.T, f *fixture, _ Event) { must(t, f.h.Steer("steered")) },
			func(t *testing.T, f *fixture, res Result, ev agent.EventType, _ int) {
				checkDelivered(t, f, "steered", ev == agent.EventAgentEnd, func() int { s, _, _ := f.h.Queued(); return s })
			}},
		{"follow_up", func(t *testing.T, f *fixture, _ Event) { must(t, f.h.FollowUp("followed")) },
			func(t *testing.T, f *fixture, res Result, ev agent.EventType, _ int) {
				checkDelivered(t, f, "followed", ev == agent.EventAgentEnd, func() int { _, n, _ := f.h.Queued(); return n })
			}},
		{"next_turn", func(t *testing.T, f *fixture, _ Event) { must(t, f.h.NextTurn("later")) },
			func(t *testing.T, f *fixture, _ Result, _ agent.EventType, _ int) {
				if _, _, n := f.h.Queued(); n != 1 {
					t.Errorf("next-turn queue = %d", n)
				}
			}},
		{"append", func(t *testing.T, f *fixture, e Event) {
			n := 0
			for _, en := range f.store.Entries() {
				if en.Type == session.TypeMessage {
					n++
				}
			}
			must(t, f.h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: "mark", Data: []byte(fmt.Sprint(n))}))
		}, func(t *testing.T, f *fixture, _ Result, _ agent.EventType, _ int) {
			checkFlushedAtNextSavePoint(t, f)
		}},
		{"abort", func(t *testing.T, f *fixture, _ Event) { f.h.Abort() },
			func(t *testing.T, f *fixture, res Result, ev agent.EventType, _ int) {
				want := StopAborted
				if ev == agent.EventAgentEnd {
					want = StopCompleted
				}
				if res.Stop != want {
					t.Errorf("stop = %s, want %s", res.Stop, want)
				}
			}},
		{"structural and getters", func(t *testing.T, f *fixture, _ Event) {
			ctx := context.Background()
			if _, err := f.h.Prompt(ctx, "nested"); !errors.Is(err, ErrBusy) {
				t.Errorf("nested prompt: %v", err)
			}
			if _, err := f.h.Compact(ctx, CompactOptions{Summary: "s"}); !errors.Is(err, ErrBusy) {
				t.Errorf("compact: %v", err)
			}
			if err := f.h.Navigate(ctx, "", NavigateOptions{}); !errors.Is(err, ErrBusy) {
				t.Errorf("navigate: %v", err)
			}
			if f.h.Phase() != PhaseTurn {
				t.Errorf("phase = %s", f.h.Phase())
			}
			_ = f.h.Store().Context()
			_, _, _ = f.h.Queued()
			_ = f.h.Pending()
		}, nil},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

// checkDelivered: a queued message is in the log and the model answered
// it, unless it was queued after the run ended, when it must still be
// queued.
func checkDelivered(t *testing.T, f *fixture, text string, late bool, queued func() int) {
	t.Helper()
	log := messagesOnly(transcript(f.store.Entries()))
	at := slices.Index(log, "user:"+text)
	if late {
		if at >= 0 || queued() != 1 {
			t.Errorf("queued after the run: delivered at %d, queue %d", at, queued())
		}
		return
	}
	if at < 0 || at == len(log)-1 || !strings.HasPrefix(log[at+1], "assistant:") {
		t.Errorf("%q not delivered to the model: %v", text, log)
	}
}

// checkFlushedAtNextSavePoint: the custom entry (holding the number of
// messages persisted when it was queued) follows those messages and at
// most one more assistant message (that of the turn in progress).
func checkFlushedAtNextSavePoint(t *testing.T, f *fixture) {
	t.Helper()
	entries := f.store.Entries()
	queuedAt, pos := -1, -1
	for i, e := range entries {
		if e.Type == session.TypeCustom && e.Kind == "mark" {
			pos = i
			if _, err := fmt.Sscan(string(e.Data), &queuedAt); err != nil {
				t.Fatal(err)
			}
		}
	}
	if pos < 0 {
		t.Fatal("the custom entry was lost")
	}
	msgs, assistantsAfter := 0, 0
	for _, e := range entries[:pos] {
		if e.Type == session.TypeMessage {
			msgs++
			if msgs > queuedAt && e.Message.Role == llm.RoleAssistant {
				assistantsAfter++
			}
		}
	}
	if msgs < queuedAt {
		t.Errorf("custom entry written after %d messages, but %d were persisted when it was queued", msgs, queuedAt)
	}
	if assistantsAfter > 1 {
		t.Errorf("the pending write waited %d assistant messages past its save point", assistantsAfter)
	}
}

// checkWellFormed: every tool call has its result before the next
// assistant message.
func checkWellFormed(t *testing.T, entries []session.Entry) {
	t.Helper()
	open := map[string]bool{}
	for _, e := range entries {
		if e.Type != session.TypeMessage {
			continue
		}
		m := e.Message
		if m.Failed() {
			continue // never sent back to a model
		}
		switch m.Role {
		case llm.RoleAssistant:
			if len(open) > 0 {
				t.Errorf("tool calls %v unanswered before the next assistant message", open)
			}
			for _, c := range m.ToolCalls() {
				open[c.ID] = true
			}
		case llm.RoleToolResult:
			delete(open, m.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Errorf("tool calls %v never answered", open)
	}
}

func TestReentrancy(t *testing.T) {
	events := []agent.EventType{
		agent.EventAgentStart, agent.EventTurnStart, agent.EventMessageStart, agent.EventMessageUpdate,
		agent.EventMessageEnd, agent.EventToolStart, agent.EventToolUpdate, agent.EventToolEnd,
		agent.EventTurnEnd, agent.EventAgentEnd,
	}
	for _, ev := range events {
		for _, a := range reentrantActions() {
			t.Run(string(ev)+"/"+a.name, func(t *testing.T) {
				f := newFixture(t, []faux.Reply{
					faux.Calls("working", faux.Call("echo", `{"v":"1"}`)),
					faux.Text("done"), faux.Text("extra 1"), faux.Text("extra 2"),
				}, func(o *Options) { o.Tools = registry(t, progressTool()) })
				fired, turn := false, 0
				f.h.Subscribe(func(_ context.Context, e Event) error {
					if e.Type == ev && !fired {
						fired, turn = true, max(e.Turn, 1)
						a.do(t, f, e)
					}
					return nil
				})
				res, err := f.prompt(t, "go")
				if err != nil {
					t.Fatalf("prompt: %v", err)
				}
				if !fired {
					t.Fatalf("no %s event", ev)
				}
				if f.h.Phase() != PhaseIdle {
					t.Fatalf("phase = %s", f.h.Phase())
				}
				checkWellFormed(t, f.store.Entries())
				if a.check != nil {
					a.check(t, f, res, ev, turn)
				}
				// The harness still works afterwards.
				f.p.Push(faux.Text("after"))
				if res, err := f.prompt(t, "again"); err != nil || res.Stop != StopCompleted {
					t.Fatalf("next prompt: %+v %v", res, err)
				}
				checkWellFormed(t, f.store.Entries())
			})
		}
	}
}

func TestHooksMayCallTheHarness(t *testing.T) {
	t.Run("setters and steer from tool_call", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, nil)
		f.h.Hooks().OnToolCall(func(context.Context, *hook.ToolCallEvent) (hook.ToolCallResult, error) {
			if err := f.h.SetModel(otherModel); err != nil {
				return hook.ToolCallResult{}, err
			}
			return hook.ToolCallResult{}, f.h.Steer("from a hook")
		})
		if _, err := f.prompt(t, "go"); err != nil {
			t.Fatal(err)
		}
		reqs := f.p.Requests()
		if reqs[0].Model.ID != "faux" || reqs[1].Model.ID != "faux-2" {
			t.Fatalf("models %s, %s", reqs[0].Model.ID, reqs[1].Model.ID)
		}
		if got := requestTexts(reqs[1]); got[len(got)-1] != "user:from a hook" {
			t.Fatalf("second request = %v", got)
		}
	})
	t.Run("abort from tool_call", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`))}, nil)
		f.h.Hooks().OnToolCall(func(context.Context, *hook.ToolCallEvent) (hook.ToolCallResult, error) {
			f.h.Abort()
			return hook.ToolCallResult{}, nil
		})
		res, err := f.prompt(t, "go")
		if err != nil || res.Stop != StopAborted {
			t.Fatalf("%+v %v", res, err)
		}
		checkWellFormed(t, f.store.Entries())
	})
	t.Run("append and label from before_provider_request", func(t *testing.T) {
		f := newFixture(t, []faux.Reply{faux.Text("done")}, nil)
		f.h.Hooks().OnBeforeProviderRequest(func(context.Context, *hook.ProviderRequestEvent) (hook.RequestPatch, error) {
			if err := f.h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: "req", Data: []byte(`1`)}); err != nil {
				return hook.RequestPatch{}, err
			}
			return hook.RequestPatch{}, f.h.Label(f.h.Store().Leaf(), "sent")
		})
		if _, err := f.prompt(t, "go"); err != nil {
			t.Fatal(err)
		}
		want := []string{"user:go", "assistant:done", "custom:req:1", "label:sent"}
		got := transcript(f.store.Entries())
		if d := cmp.Diff(want, got[len(got)-4:]); d != "" {
			t.Fatalf("log (-want +got):\n%s", d)
		}
	})
}
