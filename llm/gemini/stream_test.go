package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
)

// frames frames JSON payloads as Gemini does: data lines ending in CRLF.
func frames(payloads ...string) []byte {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\r\n\r\n")
	}
	return []byte(b.String())
}

const (
	helloChunk = `{"candidates": [{"content": {"parts": [{"text": "Hello"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 5,"candidatesTokenCount": 1,"totalTokenCount": 6},"modelVersion": "gemini-2.5-flash","responseId": "r1"}`
	stopChunk  = `{"candidates": [{"content": {"parts": [{"text": " world"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 5,"candidatesTokenCount": 2,"totalTokenCount": 7},"modelVersion": "gemini-2.5-flash","responseId": "r1"}`
)

func replay(t *testing.T, body []byte) result {
	t.Helper()
	srv := sseServer(t, body)
	req := &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL), Messages: []llm.Message{llm.UserText("hi")}}
	return stream(t, New(Options{HTTPClient: srv.Client()}), req)
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name    string
		body    []byte
		code    llm.ErrorCode
		message string
		text    string // content kept from before the failure
	}{
		{"cut mid-event", append(frames(helloChunk), `data: {"candidates": [{"content": {"parts": [{"text": " wor`...),
			llm.CodeServerError, "cut off in the middle of an event", "Hello"},
		{"ends without finish reason", frames(helloChunk), llm.CodeServerError, "before the model reported a finish reason", "Hello"},
		{"empty body", nil, llm.CodeServerError, "without sending any data", ""},
		{"malformed chunk", frames(helloChunk, `{"candidates": [{"content": {"parts": [{"text": "x"}]}]`), llm.CodeServerError, "malformed stream chunk", "Hello"},
		{"not an object", frames(`["a"]`), llm.CodeServerError, "not a JSON object", ""},
		{"chunk error", frames(helloChunk, `{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}`),
			llm.CodeOverloaded, "UNAVAILABLE: The model is overloaded.", "Hello"},
		{"chunk rate limit", frames(`{"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2.5s"}]}}`),
			llm.CodeRateLimit, "Quota exceeded.", ""},
		{"safety", frames(`{"candidates": [{"content": {"parts": [{"text": "Partial"}]},"finishReason": "SAFETY","safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT","probability": "HIGH","blocked": true}]}]}`),
			llm.CodeUnknown, "blocked by the safety filters (finishReason SAFETY)", "Partial"},
		{"recitation", frames(`{"candidates": [{"finishReason": "RECITATION"}]}`), llm.CodeUnknown, "recited protected material", ""},
		{"prohibited", frames(`{"candidates": [{"finishReason": "PROHIBITED_CONTENT"}]}`), llm.CodeUnknown, "prohibited content", ""},
		{"malformed call", frames(`{"candidates": [{"content": {"parts": []},"finishReason": "MALFORMED_FUNCTION_CALL","finishMessage": "Malformed function call: print(x"}]}`),
			llm.CodeServerError, "invalid function call (finishReason MALFORMED_FUNCTION_CALL): Malformed function call: print(x", ""},
		{"prompt blocked", frames(`{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9}}`),
			llm.CodeUnknown, "the prompt was blocked: PROHIBITED_CONTENT", ""},
		{"unknown finish reason", frames(`{"candidates": [{"finishReason": "SOMETHING_NEW"}]}`), llm.CodeUnknown, "finishReason SOMETHING_NEW", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := replay(t, tt.body)
			var le *llm.Error
			if !errors.As(r.err, &le) {
				t.Fatalf("error %v, want *llm.Error", r.err)
			}
			if le.Code != tt.code || !strings.Contains(le.Message, tt.message) {
				t.Errorf("error %q %q, want %q containing %q", le.Code, le.Message, tt.code, tt.message)
			}
			if le.Status != 0 {
				t.Errorf("status %d for a failure inside the stream, want 0", le.Status)
			}
			if r.msg.StopReason != llm.StopError || r.msg.ErrorCode != tt.code {
				t.Errorf("final message stop %q code %q", r.msg.StopReason, r.msg.ErrorCode)
			}
			if got := r.msg.Text(); got != tt.text {
				t.Errorf("kept text %q, want %q", got, tt.text)
			}
		})
	}
}

func TestChunkErrorRetryDelay(t *testing.T) {
	r := replay(t, frames(`{"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2.5s"}]}}`))
	if le := llm.AsError(r.err); le.RetryAfter != 2500*time.Millisecond {
		t.Errorf("RetryAfter %v, want 2.5s", le.RetryAfter)
	}
}

func TestFinishReasons(t *testing.T) {
	for _, tt := range []struct {
		finish string
		stop   llm.StopReason
	}{{"STOP", llm.StopEnd}, {"MAX_TOKENS", llm.StopLength}} {
		r := replay(t, frames(helloChunk, strings.Replace(stopChunk, "STOP", tt.finish, 1)))
		if r.err != nil || r.msg.StopReason != tt.stop || r.msg.Text() != "Hello world" {
			t.Errorf("%s: stop %q text %q err %v, want %q", tt.finish, r.msg.StopReason, r.msg.Text(), r.err, tt.stop)
		}
	}
}

func TestCachedTokens(t *testing.T) {
	r := replay(t, frames(`{"candidates": [{"content": {"parts": [{"text": "ok"}]},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 1000,"candidatesTokenCount": 10,"thoughtsTokenCount": 5,"cachedContentTokenCount": 800,"toolUsePromptTokenCount": 20,"totalTokenCount": 1035}}`))
	want := llm.Usage{Input: 220, Output: 15, CacheRead: 800, Reasoning: 5, Total: 1035}
	if diff := cmp.Diff(want, *r.msg.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// blockingServer sends one chunk and then holds the stream open until the
// client goes away, reporting that on gone.
func blockingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(frames(helloChunk))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

func waitGone(t *testing.T, gone <-chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still holds the connection: the body was not released")
	}
}

func TestStall(t *testing.T) {
	srv, gone := blockingServer(t)
	c := New(Options{HTTPClient: srv.Client(), IdleTimeout: 50 * time.Millisecond})
	r := stream(t, c, &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL)})
	if llm.CodeOf(r.err) != llm.CodeTimeout || !strings.Contains(r.err.Error(), "stalled") {
		t.Errorf("error %v, want a timeout for the stall", r.err)
	}
	if r.msg.Text() != "Hello" {
		t.Errorf("kept text %q, want Hello", r.msg.Text())
	}
	waitGone(t, gone)
}

func TestCancelMidStream(t *testing.T) {
	srv, gone := blockingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(Options{HTTPClient: srv.Client()})
	seq := c.Stream(ctx, &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL)})
	r := drain(t, func(yield func(llm.Event, error) bool) {
		for ev, err := range seq {
			if ev.Type == llm.EventTextDelta {
				cancel()
			}
			if !yield(ev, err) {
				return
			}
		}
	})
	if r.msg.StopReason != llm.StopAborted || !errors.Is(r.err, llm.ErrAborted) {
		t.Errorf("stop %q error %v, want aborted", r.msg.StopReason, r.err)
	}
	if r.msg.Text() != "Hello" {
		t.Errorf("kept text %q, want Hello", r.msg.Text())
	}
	waitGone(t, gone)
}

func TestBreakReleasesBody(t *testing.T) {
	srv, gone := blockingServer(t)
	c := New(Options{HTTPClient: srv.Client()})
	n := 0
	for ev := range c.Stream(context.Background(), &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL)}) {
		n++
		if ev.Type == llm.EventTextDelta {
			break
		}
	}
	if n != 3 { // start, text_start, text_delta
		t.Errorf("%d events before the break, want 3", n)
	}
	waitGone(t, gone)
}

// TestUnknownPartsRoundTrip checks that parts and fields rein does not
// model survive decoding and are sent back unchanged on the next turn.
func TestUnknownPartsRoundTrip(t *testing.T) {
	parts := []string{
		`{"text": "Let me run it.", "partMetadata": {"k": 1}}`,
		`{"executableCode": {"language": "PYTHON", "code": "print(1+1)"}}`,
		`{"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}}`,
		`{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}`,
		`{"text": "", "videoMetadata": {"fps": 2}}`,
		`{"functionCall": {"name": "f", "args": {"x": [1, 2]}, "id": "c1", "willContinue": false}, "thoughtSignature": "sig-f", "futureField": true}`,
		`{"text": "", "thoughtSignature": "sig-end"}`,
	}
	body := frames(`{"candidates": [{"content": {"parts": [` + strings.Join(parts, ",") + `],"role": "model","future": 1},"finishReason": "STOP","index": 0,"safetyRatings": [{"category": "X","probability": "NEGLIGIBLE"}],"groundingMetadata": {"webSearchQueries": ["q"]}}],"usageMetadata": {"promptTokenCount": 3,"candidatesTokenCount": 4,"totalTokenCount": 7,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 3}]},"modelVersion": "gemini-3-flash-preview","responseId": "r9","createTime": "2026-01-01T00:00:00Z"}`)
	srv := sseServer(t, body)
	req := &llm.Request{Model: testModel("gemini-3-flash-preview", srv.URL), Messages: []llm.Message{llm.UserText("run it")}}
	r := stream(t, New(Options{HTTPClient: srv.Client()}), req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []llm.Content{
		{Type: llm.ContentText, Text: "Let me run it.", Extra: json.RawMessage(`{"partMetadata":{"k":1}}`)},
		{Type: llm.ContentText, Extra: json.RawMessage(`{"executableCode":{"language":"PYTHON","code":"print(1+1)"}}`)},
		{Type: llm.ContentText, Extra: json.RawMessage(`{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"2\n"}}`)},
		{Type: llm.ContentText, Extra: json.RawMessage(`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}`)},
		{Type: llm.ContentText, Extra: json.RawMessage(`{"videoMetadata":{"fps":2},"text":""}`)},
		{Type: llm.ContentToolCall, ID: "c1", Name: "f", Arguments: json.RawMessage(`{"x":[1,2]}`), Signature: "sig-f",
			Extra: json.RawMessage(`{"futureField":true,"functionCall":{"willContinue":false}}`)},
		{Type: llm.ContentText, Signature: "sig-end"},
	}
	if diff := cmp.Diff(want, r.msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	wantExtra := `{"createTime":"2026-01-01T00:00:00Z","candidate":{"safetyRatings":[{"category":"X","probability":"NEGLIGIBLE"}],"groundingMetadata":{"webSearchQueries":["q"]}},"content":{"future":1},"usageMetadata":{"promptTokensDetails":[{"modality":"TEXT","tokenCount":3}]}}`
	if diff := cmp.Diff(jsonValue(t, json.RawMessage(wantExtra)), jsonValue(t, r.msg.Extra)); diff != "" {
		t.Errorf("message Extra (-want +got):\n%s", diff)
	}

	// Sent back, the model content holds the same parts as received.
	req.Messages = append(req.Messages, r.msg, llm.ToolResult("c1", "f", false, llm.Text("done")))
	b, err := buildPayload(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Contents) != 3 || sent.Contents[1].Role != "model" {
		t.Fatalf("contents %s", b)
	}
	got := sent.Contents[1].Parts
	if len(got) != len(parts) {
		t.Fatalf("%d parts sent back, want %d: %s", len(got), len(parts), b)
	}
	for i := range parts {
		if diff := cmp.Diff(jsonValue(t, json.RawMessage(parts[i])), jsonValue(t, got[i])); diff != "" {
			t.Errorf("part %d sent back differs (-received +sent):\n%s", i, diff)
		}
	}
}

func TestSignaturePlacement(t *testing.T) {
	text := func(s, sig string) llm.Content { return llm.Content{Type: llm.ContentText, Text: s, Signature: sig} }
	tests := []struct {
		name  string
		parts []string // one chunk each
		want  []llm.Content
	}{
		{"merged run keeps a late signature",
			[]string{`{"text": "a"}`, `{"text": "b", "thoughtSignature": "S1"}`, `{"text": "c"}`},
			[]llm.Content{text("abc", "S1")}},
		{"second signature starts a block",
			[]string{`{"text": "a", "thoughtSignature": "S1"}`, `{"text": "b", "thoughtSignature": "S2"}`},
			[]llm.Content{text("a", "S1"), text("b", "S2")}},
		{"thoughts then text",
			[]string{`{"text": "x", "thought": true, "thoughtSignature": "T"}`, `{"text": "y", "thought": true}`, `{"text": "z"}`},
			[]llm.Content{llm.Thinking("xy", "T"), text("z", "")}},
		{"empty signed part after a call",
			[]string{`{"functionCall": {"name": "f", "id": "c1"}}`, `{"text": ""}`, `{"text": "", "thoughtSignature": "S"}`},
			[]llm.Content{llm.ToolCall("c1", "f", nil), text("", "S")}},
		{"call between texts",
			[]string{`{"text": "a"}`, `{"functionCall": {"name": "f", "args": null, "id": "c1"}}`, `{"text": "b"}`},
			[]llm.Content{text("a", ""), llm.ToolCall("c1", "f", nil), text("b", "")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chunks []string
			for i, p := range tt.parts {
				c := `{"candidates": [{"content": {"parts": [` + p + `]}`
				if i == len(tt.parts)-1 {
					c += `,"finishReason": "STOP"`
				}
				chunks = append(chunks, c+`}]}`)
			}
			r := replay(t, frames(chunks...))
			if r.err != nil {
				t.Fatal(r.err)
			}
			if diff := cmp.Diff(tt.want, r.msg.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestManyUnknownFields checks that the last value of each unknown field
// is kept, past the point where the decoder indexes them.
func TestManyUnknownFields(t *testing.T) {
	chunk := func(v int) string {
		var b strings.Builder
		b.WriteString(`{"candidates": [{"content": {"parts": [{"text": "x"}]}`)
		if v == 2 {
			b.WriteString(`,"finishReason": "STOP"`)
		}
		b.WriteString(`}]`)
		for i := range 20 {
			fmt.Fprintf(&b, `,"k%d": %d`, i, v*100+i)
		}
		return b.String() + "}"
	}
	r := replay(t, frames(chunk(1), chunk(2)))
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got map[string]int
	if err := json.Unmarshal(r.msg.Extra, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 || got["k0"] != 200 || got["k19"] != 219 {
		t.Errorf("Extra %s, want k0..k19 from the last chunk", r.msg.Extra)
	}
}

func TestConcurrentStreams(t *testing.T) {
	srv := sseServer(t, readFixture(t, "adk-gemini31pro-parallel-tools.sse"))
	c := New(Options{HTTPClient: srv.Client(), APIKey: staticKey("k-concurrent")})
	req := calculator("gemini-3.1-pro-preview")
	req.Model.BaseURL = srv.URL
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			m, err := llm.Collect(context.Background(), c, req)
			if err == nil && len(m.ToolCalls()) != 3 {
				err = fmt.Errorf("%d calls", len(m.ToolCalls()))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
