package harness

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

func TestPromptPersistsAndReports(t *testing.T) {
	f := newFixture(t, []faux.Reply{
		faux.Calls("let me echo", faux.Call("echo", `{"v":"x"}`)),
		faux.Text("done"),
	}, nil)
	var rec recorder
	f.h.Subscribe(rec.listen)
	res, err := f.prompt(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopCompleted || res.Text() != "done" || res.Turns != 2 || res.Usage.Output == 0 {
		t.Fatalf("result = %+v", res)
	}
	wantLog := []string{
		"model:faux/faux", "tools:echo",
		"user:hi", `assistant:let me echo+call echo{"v":"x"}`, "result:echo:echo:x", "assistant:done",
	}
	if d := cmp.Diff(wantLog, transcript(f.store.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	wantEvents := []string{
		"agent_start", "message_start", "end user:hi",
		"turn_start", "message_start", `end assistant:let me echo+call echo{"v":"x"}`,
		"tool_start echo", "tool_end echo", "message_start", "end result:echo:echo:x", "turn_end",
		"turn_start", "message_start", "end assistant:done", "turn_end",
		"agent_end completed",
	}
	if d := cmp.Diff(wantEvents, rec.get()); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if got := len(res.Messages); got != 4 {
		t.Fatalf("result messages = %d", got)
	}
	// The next prompt continues the persisted conversation.
	f.p.Push(faux.Text("again"))
	if _, err := f.prompt(t, "more"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	want := []string{"user:hi", `assistant:let me echo+call echo{"v":"x"}`, "result:echo:echo:x", "assistant:done", "user:more"}
	if d := cmp.Diff(want, requestTexts(reqs[2])); d != "" {
		t.Fatalf("third request (-want +got):\n%s", d)
	}
}

func TestNewValidates(t *testing.T) {
	p := faux.New()
	tests := []struct {
		name string
		o    Options
	}{
		{"no provider", Options{Model: faux.Model()}},
		{"no model", Options{Provider: p}},
		{"bad thinking", Options{Provider: p, Model: faux.Model(), Thinking: "huge"}},
		{"bad queue mode", Options{Provider: p, Model: faux.Model(), SteeringMode: "some"}},
		{"bad stop mode", Options{Provider: p, Model: faux.Model(), Stop: StopPolicy{Mode: "lazy"}}},
		{"unknown active tool", Options{Provider: p, Model: faux.Model(), Tools: registry(t, echoTool()), ActiveTools: []string{"nope"}}},
		{"active tools without tools", Options{Provider: p, Model: faux.Model(), ActiveTools: []string{"echo"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.o); !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestBusyWhileRunning(t *testing.T) {
	g := newGate()
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("wait", `{}`)), faux.Text("done")}, func(o *Options) {
		o.Tools = registry(t, g.tool())
	})
	done := make(chan error, 1)
	go func() {
		_, err := f.h.Prompt(context.Background(), "go")
		done <- err
	}()
	<-g.entered
	if p := f.h.Phase(); p != PhaseTurn {
		t.Fatalf("phase = %s", p)
	}
	ctx := context.Background()
	_, perr := f.h.Prompt(ctx, "again")
	_, cerr := f.h.Compact(ctx, CompactOptions{Summary: "s"})
	nerr := f.h.Navigate(ctx, "", NavigateOptions{})
	for _, err := range []error{perr, cerr, nerr} {
		var he *Error
		if !errors.Is(err, ErrBusy) || !errors.As(err, &he) || he.Op == "" {
			t.Fatalf("err = %v, want busy", err)
		}
	}
	close(g.open)
	within(t, func() {
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if p := f.h.Phase(); p != PhaseIdle {
		t.Fatalf("phase after the run = %s", p)
	}
}

func TestPhaseRestored(t *testing.T) {
	tests := []struct {
		name     string
		replies  []faux.Reply
		setup    func(f *fixture) (undo func())
		wantCode Code // "" = no error
		wantStop StopReason
	}{
		{"success", []faux.Reply{faux.Text("ok")}, nil, "", StopCompleted},
		{"provider error", []faux.Reply{faux.Fail(&llm.Error{Code: llm.CodeOverloaded, Message: "busy servers"})}, nil, CodeProvider, StopError},
		{"before_agent_start hook error", nil, func(f *fixture) func() {
			return f.h.Hooks().OnBeforeAgentStart(func(context.Context, *hook.BeforeAgentStartEvent) (hook.BeforeAgentStartResult, error) {
				return hook.BeforeAgentStartResult{}, errors.New("no")
			})
		}, CodeHook, ""},
		{"provider hook error", nil, func(f *fixture) func() {
			return f.h.Hooks().OnBeforeProviderRequest(func(context.Context, *hook.ProviderRequestEvent) (hook.RequestPatch, error) {
				return hook.RequestPatch{}, errors.New("no")
			})
		}, CodeHook, StopError},
		{"listener panic", []faux.Reply{faux.Text("ok")}, func(f *fixture) func() {
			return f.h.Subscribe(func(_ context.Context, e Event) error {
				if e.Type == agent.EventTurnStart {
					panic("listener bug")
				}
				return nil
			})
		}, CodeHook, StopError},
		{"abort", []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"a"}`))}, func(f *fixture) func() {
			return f.h.Subscribe(func(_ context.Context, e Event) error {
				if e.Type == agent.EventToolStart {
					f.h.Abort()
				}
				return nil
			})
		}, "", StopAborted},
		{"system prompt panic", nil, func(f *fixture) func() {
			f.h.SetSystemFunc(func(context.Context, Snapshot) ([]llm.SystemPart, error) { panic("bad prompt") })
			return func() { f.h.SetSystemFunc(nil) }
		}, CodeConfig, StopError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.replies, func(o *Options) { o.Hooks = hook.New() })
			undo := func() {}
			if tt.setup != nil {
				undo = tt.setup(f)
			}
			res, err := f.prompt(t, "hi")
			if tt.wantCode == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.wantCode != "" {
				var he *Error
				if !errors.As(err, &he) || he.Code != tt.wantCode {
					t.Fatalf("err = %v, want code %s", err, tt.wantCode)
				}
			}
			if tt.wantStop != "" && res.Stop != tt.wantStop {
				t.Fatalf("stop = %s (%s), want %s", res.Stop, res.Detail, tt.wantStop)
			}
			if p := f.h.Phase(); p != PhaseIdle {
				t.Fatalf("phase = %s", p)
			}
			// The harness works again.
			undo()
			f.p.Push(faux.Text("after"))
			if res, err := f.prompt(t, "next"); err != nil || res.Text() != "after" {
				t.Fatalf("second prompt: %+v %v", res, err)
			}
		})
	}
}

func TestProviderPanicRestoresPhase(t *testing.T) {
	f := newFixture(t, nil, nil)
	if err := f.h.SetProvider(panicProvider{}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		_, _ = f.h.Prompt(context.Background(), "hi")
	}()
	if ph := f.h.Phase(); ph != PhaseIdle {
		t.Fatalf("phase = %s", ph)
	}
	if got := transcript(f.store.Entries()); got[len(got)-1] != "user:hi" {
		t.Fatalf("log = %v", got)
	}
}

type panicProvider struct{}

func (panicProvider) Stream(context.Context, *llm.Request) iter.Seq2[llm.Event, error] {
	panic("provider bug")
}

func TestAppendEntryIdleAndValidation(t *testing.T) {
	f := newFixture(t, nil, nil)
	if err := f.h.AppendEntry(session.Entry{Type: session.TypeCustom, Kind: "note", Data: []byte(`1`)}); err != nil {
		t.Fatal(err)
	}
	bad := []session.Entry{
		{Type: session.TypeCustom},
		{Type: session.TypeMessage},
		{Type: session.TypeModelChange, Model: "x"},
		{Type: session.TypeCompaction, Summary: "s"},
		{Type: session.TypeLeaf},
	}
	for _, e := range bad {
		if err := f.h.AppendEntry(e); !errors.Is(err, ErrConfig) {
			t.Fatalf("%s: err = %v", e.Type, err)
		}
	}
	// A label on an entry that does not exist is refused at once.
	if err := f.h.Label("missing", "x"); !errors.Is(err, ErrConfig) || !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.h.Pending()); n != 0 {
		t.Fatalf("pending = %d", n)
	}
	if d := cmp.Diff([]string{"custom:note:1"}, transcript(f.store.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

// During a run, a label on a missing entry is refused when it is asked
// for and the run goes on; a label on an entry still waiting in the
// pending writes is accepted and written after it.
func TestLabelDuringRun(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, nil)
	var labelErr, pendingErr error
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventMessageEnd && e.Message.Role == llm.RoleAssistant && labelErr == nil {
			labelErr = f.h.Label("nosuch", "x")
			note := custom("note")
			note.ID = "note-1"
			if err := f.h.AppendEntry(note); err != nil {
				return err
			}
			pendingErr = f.h.Label("note-1", "kept")
		}
		return nil
	})
	res, err := f.prompt(t, "hi")
	if err != nil || res.Stop != StopCompleted {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !errors.Is(labelErr, ErrConfig) || !errors.Is(labelErr, session.ErrNotFound) || pendingErr != nil {
		t.Fatalf("label errors: missing %v, pending %v", labelErr, pendingErr)
	}
	got := transcript(f.store.Entries())
	if !slices.Contains(got, "label:kept") || !slices.Contains(got, "assistant:done") || slices.Contains(got, "label:x") {
		t.Fatalf("log: %v", got)
	}
}
