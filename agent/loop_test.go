package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type recorded struct {
	events []Event
	end    Event
	err    error
}

func (r *recorded) types() []string {
	var out []string
	for _, e := range r.events {
		switch e.Type {
		case EventMessageUpdate:
			continue
		case EventMessageStart, EventMessageEnd:
			out = append(out, fmt.Sprintf("%s:%s", e.Type, e.Message.Role))
		case EventToolStart, EventToolEnd:
			out = append(out, fmt.Sprintf("%s:%s", e.Type, e.Call.Name))
		default:
			out = append(out, string(e.Type))
		}
	}
	return out
}

func collect(t *testing.T, ctx context.Context, cfg Config, msgs ...llm.Message) *recorded {
	t.Helper()
	r := &recorded{}
	for ev, err := range Run(ctx, cfg, msgs) {
		r.events = append(r.events, ev)
		if ev.Type == EventAgentEnd {
			r.end, r.err = ev, err
		} else if err != nil {
			t.Fatalf("error on a non-final event %s: %v", ev.Type, err)
		}
	}
	if r.end.Type != EventAgentEnd {
		t.Fatal("run ended without agent_end")
	}
	return r
}

func textTool(name string, mode tool.Mode, run func(ctx context.Context, call *tool.Call) tool.Result) *tool.Tool {
	return &tool.Tool{Name: name, Description: name, Mode: mode, Run: run,
		Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}}}`)}
}

func registry(t *testing.T, tools ...*tool.Tool) *tool.Registry {
	t.Helper()
	r, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fixedClock() time.Time { return time.Unix(100, 0).UTC() }

func TestFinalAnswer(t *testing.T) {
	p := faux.New(faux.Text("hello there"))
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model()}, Clock: fixedClock}, llm.UserText("hi"))
	want := []string{"agent_start", "turn_start", "message_start:assistant", "message_end:assistant", "turn_end", "agent_end"}
	if d := cmp.Diff(want, r.types()); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if r.end.Stop != StopCompleted || len(r.end.Messages) != 1 || r.end.Messages[0].Text() != "hello there" {
		t.Fatalf("end = %+v", r.end)
	}
	if r.end.Usage.Output == 0 {
		t.Fatal("usage not summed")
	}
	updates := 0
	for _, e := range r.events {
		if e.Type == EventMessageUpdate {
			updates++
		}
	}
	if updates < 3 {
		t.Fatalf("text not streamed in chunks: %d updates", updates)
	}
}

func TestParallelBatchKeepsCallOrder(t *testing.T) {
	var arrived atomic.Int32
	both := make(chan struct{})
	barrier := func() bool {
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return true
		case <-time.After(5 * time.Second):
			return false
		}
	}
	// slow finishes only after the consumer has seen fast's tool_end, so
	// the completion order is fixed: fast, then slow.
	fastSeen := make(chan struct{})
	slow := textTool("slow", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result {
		if !barrier() {
			return tool.Errorf("not run in parallel")
		}
		<-fastSeen
		return tool.Text("slow done")
	})
	fast := textTool("fast", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result {
		if !barrier() {
			return tool.Errorf("not run in parallel")
		}
		return tool.Text("fast done")
	})
	p := faux.New(faux.Calls("", faux.Call("slow", `{}`), faux.Call("fast", `{}`)), faux.Text("ok"))
	cfg := Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, slow, fast)}}
	var ends []string
	var end Event
	for ev := range Run(context.Background(), cfg, []llm.Message{llm.UserText("go")}) {
		switch ev.Type {
		case EventToolEnd:
			ends = append(ends, ev.Call.Name)
			if ev.Call.Name == "fast" {
				close(fastSeen)
			}
		case EventAgentEnd:
			end = ev
		}
	}
	msgs := end.Messages
	if msgs[1].ToolName != "slow" || msgs[2].ToolName != "fast" || msgs[1].Text() != "slow done" || msgs[2].Text() != "fast done" {
		t.Fatalf("results: %s %q, %s %q", msgs[1].ToolName, msgs[1].Text(), msgs[2].ToolName, msgs[2].Text())
	}
	if strings.Join(ends, ",") != "fast,slow" {
		t.Fatalf("tool_end order = %v, want completion order fast,slow", ends)
	}
}

func TestSequentialBatch(t *testing.T) {
	var inFlight, peak atomic.Int32
	var order []string
	mk := func(name string, mode tool.Mode) *tool.Tool {
		return textTool(name, mode, func(ctx context.Context, call *tool.Call) tool.Result {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			if n > peak.Load() {
				peak.Store(n)
			}
			time.Sleep(time.Millisecond)
			order = append(order, name) // safe: one at a time
			return tool.Text(name)
		})
	}
	p := faux.New(faux.Calls("", faux.Call("a", `{}`), faux.Call("w", `{}`), faux.Call("b", `{}`)), faux.Text("ok"))
	collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model(),
		Tools: registry(t, mk("a", tool.Parallel), mk("w", tool.Sequential), mk("b", tool.Parallel))}}, llm.UserText("go"))
	if peak.Load() != 1 || strings.Join(order, ",") != "a,w,b" {
		t.Fatalf("peak %d order %v; want one at a time in call order", peak.Load(), order)
	}
}

func TestBadCallsGetActionableResults(t *testing.T) {
	echo := textTool("echo", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result { return tool.Text("ok") })
	bad := llm.ToolCall("", "echo", json.RawMessage(`"{\"v\": nope"`))
	p := faux.New(faux.Calls("", faux.Call("ech", `{}`), bad, faux.Call("echo", `{"v": 5}`)), faux.Text("ok"))
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, echo)}}, llm.UserText("go"))
	res := r.end.Messages[1:4]
	checks := []string{`Unknown tool "ech". Available tools: echo.`, "not a valid JSON object", "Invalid arguments for echo"}
	for i, want := range checks {
		if !res[i].IsError || !strings.Contains(res[i].Text(), want) {
			t.Errorf("result %d = %q, want error containing %q", i, res[i].Text(), want)
		}
	}
	if r.end.Stop != StopCompleted {
		t.Fatalf("stop = %s", r.end.Stop)
	}
}

func TestSteeringAndFollowUp(t *testing.T) {
	echo := textTool("echo", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result { return tool.Text("ok") })
	p := faux.New(faux.Calls("", faux.Call("echo", `{}`)), faux.Text("first"), faux.Text("second"))
	steered, followed := false, false
	cfg := Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, echo)},
		Steering: func(context.Context) []llm.Message {
			if !steered {
				steered = true
				return []llm.Message{llm.UserText("steer")}
			}
			return nil
		},
		FollowUp: func(context.Context) []llm.Message {
			if !followed {
				followed = true
				return []llm.Message{llm.UserText("more")}
			}
			return nil
		},
	}
	r := collect(t, context.Background(), cfg, llm.UserText("go"))
	var roles []string
	for _, m := range r.end.Messages {
		roles = append(roles, string(m.Role)+":"+m.Text())
	}
	want := []string{"assistant:", "tool_result:ok", "user:steer", "assistant:first", "user:more", "assistant:second"}
	if d := cmp.Diff(want, roles); d != "" {
		t.Fatalf("transcript (-want +got):\n%s", d)
	}
	reqs := p.Requests()
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Text() != "steer" {
		t.Fatalf("steering message not sent in the next request: %+v", last)
	}
}

func TestMaxTurns(t *testing.T) {
	echo := textTool("echo", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result { return tool.Text("ok") })
	p := faux.New()
	for range 10 {
		p.Push(faux.Calls("", faux.Call("echo", `{}`)))
	}
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, echo)}, MaxTurns: 3}, llm.UserText("go"))
	if r.end.Stop != StopMaxTurns || r.end.Turn != 3 || !strings.Contains(r.end.Detail, "3 turns") {
		t.Fatalf("end = %s turn %d %q", r.end.Stop, r.end.Turn, r.end.Detail)
	}
}

func TestNudgesAreBounded(t *testing.T) {
	thinkingOnly := faux.Reply{Message: &llm.Message{Content: []llm.Content{llm.Thinking("hmm", "")}}}
	p := faux.New(faux.Reply{Message: &llm.Message{}}, thinkingOnly, faux.Text("answer"))
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model()}}, llm.UserText("go"))
	if r.end.Stop != StopCompleted {
		t.Fatalf("stop = %s", r.end.Stop)
	}
	nudges := 0
	for _, m := range r.end.Messages {
		if m.Role == llm.RoleUser && m.Text() == DefaultNudge {
			nudges++
		}
	}
	if nudges != 2 {
		t.Fatalf("nudges = %d, want 2", nudges)
	}
	p = faux.New(faux.Reply{Message: &llm.Message{}}, faux.Reply{Message: &llm.Message{}}, faux.Reply{Message: &llm.Message{}}, faux.Text("never"))
	r = collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model()}}, llm.UserText("go"))
	if r.end.Stop != StopEmptyReply || !strings.Contains(r.end.Detail, "3 times") {
		t.Fatalf("end = %s %q", r.end.Stop, r.end.Detail)
	}
}

func TestProviderErrorEndsRun(t *testing.T) {
	p := faux.New(faux.Fail(&llm.Error{Code: llm.CodeRateLimit, Status: 429, Message: "slow down"}))
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model()}}, llm.UserText("go"))
	if r.end.Stop != StopError || !errors.Is(r.err, llm.ErrRateLimit) {
		t.Fatalf("end = %s err %v", r.end.Stop, r.err)
	}
	last := r.end.Messages[len(r.end.Messages)-1]
	if last.StopReason != llm.StopError || last.ErrorCode != llm.CodeRateLimit {
		t.Fatalf("error message = %+v", last)
	}
	// An exhausted script says so.
	r = collect(t, context.Background(), Config{Settings: Settings{Provider: faux.New(), Model: faux.Model()}}, llm.UserText("go"))
	if r.end.Stop != StopError || !strings.Contains(r.end.Detail, "no reply left") {
		t.Fatalf("end = %s %q", r.end.Stop, r.end.Detail)
	}
}

func TestCancelDuringTool(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	block := textTool("block", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result {
		close(started)
		<-ctx.Done()
		return tool.Errorf("cancelled")
	})
	go func() { <-started; cancel() }()
	p := faux.New(faux.Calls("", faux.Call("block", `{}`)), faux.Text("unreachable"))
	r := collect(t, ctx, Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, block)}}, llm.UserText("go"))
	if r.end.Stop != StopAborted {
		t.Fatalf("stop = %s", r.end.Stop)
	}
	msgs := r.end.Messages
	if len(msgs) != 2 || msgs[1].Role != llm.RoleToolResult || !msgs[1].IsError {
		t.Fatalf("the interrupted call has no result: %+v", msgs)
	}
}

func TestCancelDuringStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := faux.New(faux.Text(strings.Repeat("word ", 200)))
	p.ChunkSize = 1
	var end Event
	for ev := range Run(ctx, Config{Settings: Settings{Provider: p, Model: faux.Model()}}, []llm.Message{llm.UserText("go")}) {
		if ev.Type == EventMessageUpdate && len(ev.Message.Text()) > 10 {
			cancel()
		}
		if ev.Type == EventAgentEnd {
			end = ev
		}
	}
	if end.Stop != StopAborted {
		t.Fatalf("stop = %s", end.Stop)
	}
	if m := end.Messages[0]; m.StopReason != llm.StopAborted || len(m.Text()) >= 1000 {
		t.Fatalf("aborted message = %s, %d chars", m.StopReason, len(m.Text()))
	}
}

func TestBreakEarlyStopsTools(t *testing.T) {
	done := make(chan struct{})
	block := textTool("block", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result {
		call.Update(tool.Text("working"))
		<-ctx.Done()
		close(done)
		return tool.Text("stopped")
	})
	p := faux.New(faux.Calls("", faux.Call("block", `{}`)))
	for ev := range Run(context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, block)}}, []llm.Message{llm.UserText("go")}) {
		if ev.Type == EventToolUpdate {
			break
		}
	}
	select {
	case <-done:
	default:
		t.Fatal("the tool was still running after the consumer stopped")
	}
}

func TestToolStopAndUpdatesAndPanics(t *testing.T) {
	prog := textTool("prog", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result {
		call.Update(tool.Text("50%"))
		return tool.Text("100%")
	})
	breaker := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			if call.Name == "boom" {
				panic("middleware bug")
			}
			res := next(ctx, call)
			if call.Turn == 2 {
				res.Stop = "circuit breaker: 30 identical calls"
			}
			return res
		}
	}
	p := faux.New(faux.Calls("", faux.Call("prog", `{}`), faux.Call("boom", `{}`)), faux.Calls("", faux.Call("prog", `{}`)), faux.Text("never"))
	r := collect(t, context.Background(), Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, prog), Middleware: []tool.Middleware{breaker}}}, llm.UserText("go"))
	if r.end.Stop != StopToolStop || !strings.Contains(r.end.Detail, "circuit breaker") {
		t.Fatalf("end = %s %q", r.end.Stop, r.end.Detail)
	}
	updates := 0
	for _, e := range r.events {
		if e.Type == EventToolUpdate && e.Result.Text() == "50%" {
			updates++
		}
	}
	if updates != 2 {
		t.Fatalf("tool updates = %d, want 2", updates)
	}
	if m := r.end.Messages[2]; !m.IsError || !strings.Contains(m.Text(), "middleware bug") {
		t.Fatalf("panic not turned into a result: %+v", m)
	}
}

func TestRefreshAppliesFromNextTurn(t *testing.T) {
	echo := textTool("echo", tool.Parallel, func(ctx context.Context, call *tool.Call) tool.Result { return tool.Text("ok") })
	p := faux.New(faux.Calls("", faux.Call("echo", `{}`)), faux.Text("done"))
	refreshed := 0
	cfg := Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: registry(t, echo), System: []llm.SystemPart{{Text: "v1"}}},
		Refresh: func(ctx context.Context, s *Settings) error {
			refreshed++
			s.System = []llm.SystemPart{{Text: "v2"}}
			s.Thinking = llm.ThinkingHigh
			return nil
		}}
	collect(t, context.Background(), cfg, llm.UserText("go"))
	reqs := p.Requests()
	if refreshed != 1 || reqs[0].System[0].Text != "v1" || reqs[1].System[0].Text != "v2" || reqs[1].Thinking != llm.ThinkingHigh {
		t.Fatalf("refresh %d, systems %q %q", refreshed, reqs[0].System[0].Text, reqs[1].System[0].Text)
	}
}

func BenchmarkLoopTurn(b *testing.B) {
	noop := &tool.Tool{Name: "noop", Description: "does nothing", Run: func(context.Context, *tool.Call) tool.Result { return tool.Text("ok") }}
	reg, _ := tool.NewRegistry(noop)
	const turns = 10
	replies := make([]faux.Reply, 0, turns)
	for range turns - 1 {
		replies = append(replies, faux.Calls("", llm.ToolCall("c", "noop", json.RawMessage(`{}`))))
	}
	replies = append(replies, faux.Text("done"))
	prompt := []llm.Message{llm.UserText("go")}
	b.ReportAllocs()
	for b.Loop() {
		p := faux.New(replies...)
		p.IDPrefix = "c"
		cfg := Config{Settings: Settings{Provider: p, Model: faux.Model(), Tools: reg}, Clock: fixedClock}
		for range Run(context.Background(), cfg, prompt) {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns)/1000, "µs/turn")
}

// BenchmarkLoopOverhead measures the loop alone: the provider replays
// prebuilt events without allocating and the tool does nothing, so what
// remains is the loop's own work per turn.
func BenchmarkLoopOverhead(b *testing.B) {
	noop := &tool.Tool{Name: "noop", Description: "does nothing", Run: func(context.Context, *tool.Call) tool.Result { return tool.Result{} }}
	reg, _ := tool.NewRegistry(noop)
	const turns = 10
	call := llm.ToolCall("c1", "noop", json.RawMessage(`{}`))
	start := &llm.Message{Role: llm.RoleAssistant, Provider: "bench", Model: "m", Timestamp: fixedClock()}
	withCall := &llm.Message{Role: llm.RoleAssistant, Provider: "bench", Model: "m", StopReason: llm.StopToolUse, Timestamp: fixedClock(), Content: []llm.Content{call}}
	final := &llm.Message{Role: llm.RoleAssistant, Provider: "bench", Model: "m", StopReason: llm.StopEnd, Timestamp: fixedClock(), Content: []llm.Content{llm.Text("done")}}
	toolTurn := []llm.Event{{Type: llm.EventStart, Message: start}, {Type: llm.EventToolCallStart, Index: 0, Content: &call}, {Type: llm.EventToolCallEnd, Index: 0, Content: &call}, {Type: llm.EventDone, Message: withCall}}
	lastTurn := []llm.Event{{Type: llm.EventStart, Message: start}, {Type: llm.EventDone, Message: final}}
	n := 0
	provider := llm.ProviderFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
		evs := toolTurn
		if n++; n%turns == 0 {
			evs = lastTurn
		}
		return func(yield func(llm.Event, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
		}
	})
	prompt := []llm.Message{llm.UserText("go")}
	cfg := Config{Settings: Settings{Provider: provider, Model: faux.Model(), Tools: reg}, Clock: fixedClock}
	b.ReportAllocs()
	for b.Loop() {
		for range Run(context.Background(), cfg, prompt) {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns)/1000, "µs/turn")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		for range Run(context.Background(), cfg, prompt) {
		}
	}))/turns, "allocs/turn")
}
