package hook

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

// order records which handlers ran.
type order struct {
	mu  sync.Mutex
	ran []string
}

func (o *order) add(s string) {
	o.mu.Lock()
	o.ran = append(o.ran, s)
	o.mu.Unlock()
}

func TestPriorityAndRegistrationOrder(t *testing.T) {
	h := New()
	var o order
	reg := func(name string, opts ...Option) func() {
		return h.OnAgentStop(func(context.Context, *AgentStopEvent) (AgentStopResult, error) {
			o.add(name)
			return AgentStopResult{}, nil
		}, opts...)
	}
	reg("a")
	reg("b", Priority(5))
	removeC := reg("c")
	reg("d", Priority(5))
	reg("e", Priority(-1))
	reg("f")
	removeC()
	removeC() // removing twice is harmless
	if _, err := h.RunAgentStop(ctx, &AgentStopEvent{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"b", "d", "a", "f", "e"}, o.ran); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
}

func TestNilHooks(t *testing.T) {
	var h *Hooks
	if r, err := h.RunToolCall(ctx, &ToolCallEvent{}); err != nil || r.Block {
		t.Fatalf("nil hooks: %+v %v", r, err)
	}
	msgs := []llm.Message{llm.UserText("x")}
	if got, err := h.RunContext(ctx, &ContextEvent{Messages: msgs}); err != nil || len(got) != 1 {
		t.Fatalf("nil hooks context: %v %v", got, err)
	}
	if r, err := h.RunBeforeCompaction(ctx, &CompactionEvent{Summary: "s"}); err != nil || r.Summary != "s" {
		t.Fatalf("nil hooks compaction: %+v %v", r, err)
	}
}

func TestHandlerErrorsNameEventAndHandler(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		handler Handler[ToolCallEvent, ToolCallResult]
		opts    []Option
		want    string
	}{
		{"error", func(context.Context, *ToolCallEvent) (ToolCallResult, error) { return ToolCallResult{}, boom }, []Option{Name("guard")},
			"hook tool_call: handler guard failed: boom"},
		{"panic", func(context.Context, *ToolCallEvent) (ToolCallResult, error) { panic("bad") }, nil,
			"hook tool_call: handler #2 failed: panic: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			var o order
			h.OnToolCall(func(context.Context, *ToolCallEvent) (ToolCallResult, error) {
				o.add("first")
				return ToolCallResult{}, nil
			})
			h.OnToolCall(tt.handler, tt.opts...)
			h.OnToolCall(func(context.Context, *ToolCallEvent) (ToolCallResult, error) {
				o.add("after")
				return ToolCallResult{}, nil
			})
			_, err := h.RunToolCall(ctx, &ToolCallEvent{})
			var he *Error
			if !errors.As(err, &he) || he.Event != EventToolCall || he.Code() != Code {
				t.Fatalf("err = %#v", err)
			}
			if err.Error() != tt.want {
				t.Fatalf("err = %q, want %q", err, tt.want)
			}
			if tt.name == "error" && !errors.Is(err, boom) {
				t.Fatal("cause not wrapped")
			}
			if d := cmp.Diff([]string{"first"}, o.ran); d != "" {
				t.Fatalf("handlers after the failure ran (-want +got):\n%s", d)
			}
		})
	}
}

func TestFirstBlockWins(t *testing.T) {
	h := New()
	var o order
	for _, s := range []struct {
		name  string
		block bool
	}{{"pass", false}, {"block1", true}, {"block2", true}} {
		h.OnToolCall(func(context.Context, *ToolCallEvent) (ToolCallResult, error) {
			o.add(s.name)
			return ToolCallResult{Block: s.block, Reason: s.name}, nil
		})
		h.OnAgentStop(func(context.Context, *AgentStopEvent) (AgentStopResult, error) {
			o.add("stop-" + s.name)
			return AgentStopResult{Block: s.block, Message: s.name}, nil
		})
	}
	r, err := h.RunToolCall(ctx, &ToolCallEvent{})
	if err != nil || !r.Block || r.Reason != "block1" {
		t.Fatalf("tool call = %+v, %v", r, err)
	}
	s, err := h.RunAgentStop(ctx, &AgentStopEvent{})
	if err != nil || !s.Block || s.Message != "block1" {
		t.Fatalf("agent stop = %+v, %v", s, err)
	}
	if d := cmp.Diff([]string{"pass", "block1", "stop-pass", "stop-block1"}, o.ran); d != "" {
		t.Fatalf("ran (-want +got):\n%s", d)
	}
}

func TestBeforeAgentStartChains(t *testing.T) {
	h := New()
	var seen []string
	h.OnBeforeAgentStart(func(_ context.Context, e *BeforeAgentStartEvent) (BeforeAgentStartResult, error) {
		seen = append(seen, llm.SystemText(e.System))
		return BeforeAgentStartResult{Messages: []llm.Message{llm.UserText("m1")}, System: []llm.SystemPart{{Text: "one"}}}, nil
	})
	h.OnBeforeAgentStart(func(_ context.Context, e *BeforeAgentStartEvent) (BeforeAgentStartResult, error) {
		seen = append(seen, llm.SystemText(e.System))
		return BeforeAgentStartResult{Messages: []llm.Message{llm.UserText("m2")}}, nil
	})
	h.OnBeforeAgentStart(func(_ context.Context, e *BeforeAgentStartEvent) (BeforeAgentStartResult, error) {
		seen = append(seen, llm.SystemText(e.System))
		return BeforeAgentStartResult{System: []llm.SystemPart{{Text: e.System[0].Text + "+three"}}}, nil
	})
	r, err := h.RunBeforeAgentStart(ctx, &BeforeAgentStartEvent{System: []llm.SystemPart{{Text: "base"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"base", "one", "one"}, seen); d != "" {
		t.Fatalf("seen (-want +got):\n%s", d)
	}
	if got := llm.SystemText(r.System); got != "one+three" {
		t.Fatalf("system = %q", got)
	}
	if len(r.Messages) != 2 || r.Messages[0].Text() != "m1" || r.Messages[1].Text() != "m2" {
		t.Fatalf("messages = %+v", r.Messages)
	}
}

func TestSummaryEvents(t *testing.T) {
	tests := []struct {
		name     string
		initial  string
		steps    []SummaryResult
		want     SummaryResult
		wantSeen []string
	}{
		{"no handlers keep the caller's summary", "given", nil, SummaryResult{Summary: "given"}, nil},
		{"supply chains", "", []SummaryResult{{Summary: "a"}, {}, {Summary: "b"}}, SummaryResult{Summary: "b"}, []string{"", "a", "a"}},
		{"first cancel wins", "given", []SummaryResult{{Summary: "a"}, {Cancel: true, Reason: "no"}, {Cancel: true, Reason: "later"}},
			SummaryResult{Cancel: true, Reason: "no"}, []string{"given", "a"}},
	}
	for _, tt := range tests {
		for _, kind := range []string{"compaction", "navigation"} {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				h := New()
				var seen []string
				for _, r := range tt.steps {
					if kind == "compaction" {
						h.OnBeforeCompaction(func(_ context.Context, e *CompactionEvent) (SummaryResult, error) {
							seen = append(seen, e.Summary)
							return r, nil
						})
					} else {
						h.OnBeforeTreeNavigation(func(_ context.Context, e *NavigationEvent) (SummaryResult, error) {
							seen = append(seen, e.Summary)
							return r, nil
						})
					}
				}
				var got SummaryResult
				var err error
				if kind == "compaction" {
					got, err = h.RunBeforeCompaction(ctx, &CompactionEvent{Summary: tt.initial})
				} else {
					got, err = h.RunBeforeTreeNavigation(ctx, &NavigationEvent{Summary: tt.initial})
				}
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Fatalf("result (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tt.wantSeen, seen); d != "" {
					t.Fatalf("seen (-want +got):\n%s", d)
				}
			})
		}
	}
}

func TestRegisterFromInsideHandler(t *testing.T) {
	h := New()
	calls := 0
	var remove func()
	remove = h.OnAgentStop(func(context.Context, *AgentStopEvent) (AgentStopResult, error) {
		calls++
		remove()
		h.OnAgentStop(func(context.Context, *AgentStopEvent) (AgentStopResult, error) {
			return AgentStopResult{Block: true, Message: "late"}, nil
		})
		return AgentStopResult{}, nil
	})
	r, _ := h.RunAgentStop(ctx, &AgentStopEvent{})
	if r.Block {
		t.Fatal("a handler registered during the event ran in it")
	}
	r, _ = h.RunAgentStop(ctx, &AgentStopEvent{})
	if !r.Block || calls != 1 {
		t.Fatalf("second run: %+v, calls %d", r, calls)
	}
	if !strings.Contains(r.Message, "late") {
		t.Fatal(r.Message)
	}
}
