package llm

import (
	"context"
	"errors"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var approx = cmpopts.EquateApprox(0, 1e-12)

var testModel = Model{ID: "m1", Provider: "p", API: APIFaux, ContextWindow: 1000, Price: Price{Input: 1, Output: 2}}

func script(f func(e *Emitter)) Provider {
	return ProviderFunc(func(ctx context.Context, req *Request) iter.Seq2[Event, error] {
		return func(yield func(Event, error) bool) {
			e := NewEmitter(yield, req)
			e.Now = func() time.Time { return time.Unix(1, 0).UTC() }
			f(e)
		}
	})
}

func TestEmitterBuildsMessageFromEvents(t *testing.T) {
	p := script(func(e *Emitter) {
		e.Start(Message{ResponseID: "r1"})
		th, _ := e.ThinkingStart()
		e.Delta(th, "hmm")
		e.Block(th).Signature = "sig"
		e.End(th)
		tx, _ := e.TextStart()
		e.Delta(tx, "hel")
		e.Delta(tx, "lo")
		tc, _ := e.ToolCallStart("c1", "read")
		e.Delta(tc, `{"path":`)
		e.Delta(tc, `"a.txt"}`)
		bad, _ := e.ToolCallStart("c2", "read")
		e.Delta(bad, `{"path": oops`)
		u := e.Usage()
		u.Input, u.Output = 100, 10
		e.Finish("")
	})
	var events []EventType
	var acc Accumulator
	var final *Message
	for ev, err := range p.Stream(context.Background(), &Request{Model: testModel}) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev.Type)
		acc.Add(ev)
		if ev.Type == EventDone {
			final = ev.Message
		}
	}
	want := Message{
		Role:       RoleAssistant,
		Provider:   "p",
		Model:      "m1",
		API:        APIFaux,
		ResponseID: "r1",
		Timestamp:  time.Unix(1, 0).UTC(),
		StopReason: StopToolUse,
		Usage:      &Usage{Input: 100, Output: 10, Total: 110, Cost: Cost{Input: 1e-4, Output: 2e-5, Total: 1.2e-4}},
		Content: []Content{
			{Type: ContentThinking, Text: "hmm", Signature: "sig"},
			{Type: ContentText, Text: "hello"},
			{Type: ContentToolCall, ID: "c1", Name: "read", Arguments: []byte(`{"path":"a.txt"}`)},
			{Type: ContentToolCall, ID: "c2", Name: "read", Arguments: []byte(`"{\"path\": oops"`)},
		},
	}
	if d := cmp.Diff(want, *final, approx); d != "" {
		t.Fatalf("final message (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, acc.Message(), approx); d != "" {
		t.Fatalf("accumulated message (-want +got):\n%s", d)
	}
	if final.Content[3].ArgumentsObject() || final.Content[3].RawArguments() != `{"path": oops` {
		t.Fatalf("invalid arguments not kept verbatim: %s", final.Content[3].Arguments)
	}
	wantEvents := []EventType{EventStart, EventThinkingStart, EventThinkingDelta, EventThinkingEnd,
		EventTextStart, EventTextDelta, EventTextDelta, EventToolCallStart, EventToolCallDelta, EventToolCallDelta,
		EventToolCallStart, EventToolCallDelta, EventTextEnd, EventToolCallEnd, EventToolCallEnd, EventDone}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
}

func TestEmitterFailures(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		stop     StopReason
		code     ErrorCode
		wantText string
	}{
		{"classified", &Error{Code: CodeRateLimit, Status: 429, Message: "slow down"}, StopError, CodeRateLimit, "hi"},
		{"cancelled", context.Canceled, StopAborted, CodeAborted, "hi"},
		{"plain", errors.New("boom"), StopError, CodeUnknown, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := script(func(e *Emitter) {
				e.Start(Message{})
				i, _ := e.TextStart()
				e.Delta(i, "hi")
				e.Fail(tt.err)
				e.Finish("") // ignored after the final event
			})
			msg, err := Collect(context.Background(), p, &Request{Model: testModel})
			if CodeOf(err) != tt.code {
				t.Fatalf("code = %q, want %q (err %v)", CodeOf(err), tt.code, err)
			}
			if msg.StopReason != tt.stop || msg.ErrorCode != tt.code || msg.ErrorMessage == "" {
				t.Fatalf("message = %+v", msg)
			}
			if msg.Text() != tt.wantText {
				t.Fatalf("partial text lost: %q", msg.Text())
			}
		})
	}
}

func TestSilentOverflow(t *testing.T) {
	p := script(func(e *Emitter) {
		e.Start(Message{})
		e.Usage().Input = 2000
		e.Finish(StopEnd)
	})
	_, err := Collect(context.Background(), p, &Request{Model: testModel})
	if !errors.Is(err, ErrContextOverflow) {
		t.Fatalf("err = %v, want context overflow", err)
	}
	// An assumed window is only a guess: the same reply is accepted.
	assumed := testModel
	assumed.Assumed = true
	m, err := Collect(context.Background(), p, &Request{Model: assumed})
	if err != nil || m.StopReason != StopEnd {
		t.Fatalf("with an assumed window: %v %v", m.StopReason, err)
	}
}

func TestConsumerBreakStopsEmitter(t *testing.T) {
	calls := 0
	p := script(func(e *Emitter) {
		e.Start(Message{})
		i, _ := e.TextStart()
		for range 10 {
			calls++
			if !e.Delta(i, "x") {
				return
			}
		}
		e.Finish(StopEnd)
	})
	for ev := range p.Stream(context.Background(), &Request{Model: testModel}) {
		if ev.Type == EventTextDelta {
			break
		}
	}
	if calls != 1 {
		t.Fatalf("emitter kept going after break: %d deltas", calls)
	}
}

func TestClassifyHTTP(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   ErrorCode
	}{
		{429, `{"error":{"type":"rate_limit_error"}}`, CodeRateLimit},
		{429, `{"error":{"code":"insufficient_quota"}}`, CodeBilling},
		{529, `{"type":"error","error":{"type":"overloaded_error"}}`, CodeOverloaded},
		{500, `oops`, CodeServerError},
		{401, `{"error":{"type":"authentication_error"}}`, CodeAuth},
		{400, `{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, CodeContextOverflow},
		{400, `{"error":{"message":"This model's maximum context length is 128000 tokens"}}`, CodeContextOverflow},
		{400, `{"error":{"message":"Unsupported value: 'messages[0].role'"}}`, CodeFormat},
		{404, `{"error":{"message":"model: claude-x"}}`, CodeModelNotFound},
		{402, ``, CodeBilling},
	}
	for _, tt := range tests {
		if got := ClassifyHTTP(tt.status, tt.body); got != tt.want {
			t.Errorf("ClassifyHTTP(%d, %s) = %q, want %q", tt.status, tt.body, got, tt.want)
		}
	}
}
