package gemini

import (
	"context"
	"net/http"
	"net/http/httptest"
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
