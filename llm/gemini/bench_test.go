package gemini

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// BenchmarkDecode measures the decoder alone (SSE framing, JSON, the
// emitter and its accumulator) over recorded streams held in memory, and
// reports llm events yielded per second of wall-clock time (events/s) and
// per second of CPU time used by the process, garbage collection included
// (events/cpu-s); the latter stays meaningful on a shared, busy machine.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{
		"adk-gemini25flash-multichunk-text",
		"adk-gemini25flash-thoughts-text",
		"pai-gemini25pro-thoughts",
		"adk-gemini31pro-parallel-tools",
	} {
		b.Run(name, func(b *testing.B) {
			body := readFixture(b, name+".sse")
			req := &llm.Request{Model: llm.Model{ID: "gemini-2.5-flash", Provider: "google", API: llm.APIGemini}}
			events := 0
			yield := func(llm.Event, error) bool { events++; return true }
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			cpu0, cpuOK := processCPU()
			d := &decoder{} // reused across streams, as Client does
			for b.Loop() {
				decodeBytes(d, body, req, yield)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
			if cpu1, ok := processCPU(); ok && cpuOK && cpu1 > cpu0 {
				b.ReportMetric(float64(events)/(cpu1-cpu0).Seconds(), "events/cpu-s")
			}
		})
	}
}

// BenchmarkTurn measures one whole Stream call (payload encoding, HTTP
// over loopback, decoding) against a local server replaying a recorded
// function-call stream. harness-µs/turn is the wall-clock time per turn
// minus the time spent inside the server's handler.
func BenchmarkTurn(b *testing.B) {
	body := readFixture(b, "adk-gemini31pro-parallel-tools.sse")
	var handlerNS atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		buf := make([]byte, 4096)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvents(w, body)
		handlerNS.Add(int64(time.Since(start)))
	}))
	defer srv.Close()
	c := New(Options{HTTPClient: srv.Client(), APIKey: staticKey("bench-key-0000")})
	req := calculator("gemini-3.1-pro-preview")
	req.Model.BaseURL = srv.URL
	ctx := context.Background()
	b.ReportAllocs()
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		var stop llm.StopReason
		for ev, err := range c.Stream(ctx, req) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Type == llm.EventDone {
				stop = ev.Message.StopReason
			}
		}
		if stop != llm.StopToolUse {
			b.Fatalf("stop %q", stop)
		}
	}
	harness := b.Elapsed() - time.Duration(handlerNS.Load())
	b.ReportMetric(float64(harness.Microseconds())/float64(b.N), "harness-µs/turn")
	b.ReportMetric(float64(handlerNS.Load())/1e3/float64(b.N), "handler-µs/turn")
	// CPU time of the whole process per turn, the server's included: an
	// upper bound on the harness's own cost that a busy machine does not
	// inflate the way it inflates wall-clock time.
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "process-cpu-µs/turn")
	}
}

// longConversation is a request as a coding agent sends it late in a
// session: a large system prompt, a dozen tool schemas and forty rounds
// of thinking with signatures, calls, results and one screenshot.
func longConversation() *llm.Request {
	model := llm.Model{ID: "gemini-2.5-pro", Provider: "google", API: llm.APIGemini, Reasoning: true, MaxOutput: 65536}
	req := &llm.Request{Model: model, Thinking: llm.ThinkingMedium}
	req.System = []llm.SystemPart{{Text: strings.Repeat("You are a careful coding agent. Read files before editing them; \"quote\" paths <exactly>.\n", 90)}}
	for i := range 12 {
		req.Tools = append(req.Tools, llm.ToolSpec{
			Name:        fmt.Sprintf("tool_%d", i),
			Description: strings.Repeat("Does one precise thing to the workspace. ", 6),
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path, relative to the workspace"},` +
				`"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1},"pattern":{"type":"string"}},"required":["path"]}`),
		})
	}
	sig := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("signature-bytes!"), 64))
	file := strings.Repeat("func main() {\n\tfmt.Println(\"héllo, wörld\\t<tag>\")\n}\n", 40)
	for i := range 40 {
		req.Messages = append(req.Messages, llm.UserText(fmt.Sprintf("Step %d: look at main.go and fix the \"greeting\"; keep\ttabs.", i)))
		id1, id2 := fmt.Sprintf("call-%d-a", i), fmt.Sprintf("call-%d-b", i)
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, API: llm.APIGemini, Content: []llm.Content{
			llm.Thinking("Let me read the file first and then decide what to change.", sig),
			llm.Text("Reading the file."),
			llm.ToolCall(id1, "tool_0", json.RawMessage(`{"path":"main.go","offset":0,"limit":200}`)),
			llm.ToolCall(id2, "tool_3", json.RawMessage(`{"path":"main.go","pattern":"Println\\(.*\\)"}`)),
		}})
		req.Messages = append(req.Messages,
			llm.ToolResult(id1, "tool_0", false, llm.Text(file)),
			llm.ToolResult(id2, "tool_3", i%7 == 3, llm.Text("2:\tfmt.Println(\"héllo, wörld\")")))
	}
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Content{
		llm.Text("Here is a screenshot of the result."),
		llm.Image(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 1, 2, 3}, 8<<10)), "image/png"),
	}})
	return req
}

// BenchmarkPayload measures building the JSON body of a long request
// (payload-KB is its size) and reports microseconds of wall-clock and of
// process CPU time per request, and MB written per second.
func BenchmarkPayload(b *testing.B) {
	req := longConversation()
	ctx := context.Background()
	body, err := buildPayload(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		if _, err := buildPayload(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(body))/1024, "payload-KB")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/request")
	// CPU time per request, garbage collection included: steadier than
	// wall-clock time on a busy machine.
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/request")
	}
}
