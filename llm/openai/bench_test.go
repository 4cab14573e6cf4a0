package openai

import (
	"context"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"bytes"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/llmtest"
)

// corpus loads the recordings matching pattern and counts their events.
func corpus(b *testing.B, pattern string) (bodies [][]byte, events int) {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(fixtures, pattern))
	for _, f := range files {
		body := readFixture(b, f[len(fixtures):])
		bodies = append(bodies, body)
		r := sse.NewReader(bytes.NewReader(body))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			events++
		}
	}
	if len(bodies) == 0 {
		b.Fatalf("no recordings match %s", pattern)
	}
	return bodies, events
}

// benchDecode decodes every recording once per iteration and reports SSE
// events decoded per second.
func benchDecode(b *testing.B, api llm.API, pattern string) {
	bodies, events := corpus(b, pattern)
	ctx := context.Background()
	finals := 0
	yield := func(ev llm.Event, err error) bool {
		if ev.Final() {
			finals++
		}
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	r := sse.NewReader(nil)
	cpu0, _ := llmtest.CPUTime()
	for b.Loop() {
		for _, body := range bodies {
			decodeBody(ctx, r, api, body, Compat{}, yield)
		}
	}
	cpu1, cpuOK := llmtest.CPUTime()
	cpu := cpu1 - cpu0
	b.StopTimer()
	if finals == 0 {
		b.Fatal("no stream finished")
	}
	total := float64(events) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "events/s")
	// events/cpu-s divides by the CPU time the process used (GC
	// included), a per-core rate that a busy machine does not distort.
	if cpuOK && cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "events/cpu-s")
	}
	b.ReportMetric(float64(events), "events/op")
}

func BenchmarkChatDecode(b *testing.B) {
	benchDecode(b, llm.APIOpenAIChat, "openai-chat/*.sse")
}

func BenchmarkResponsesDecode(b *testing.B) {
	benchDecode(b, llm.APIOpenAIResponses, "openai-responses/*.sse")
}

// BenchmarkTurn runs one full Stream call per iteration against a
// loopback server replaying a recorded tool-call stream. harness-µs/turn
// is the wall time per turn minus the time spent inside the server's
// handler: request encoding, HTTP on the client side, decoding and
// emitting.
func BenchmarkTurn(b *testing.B) {
	cases := []struct {
		name string
		api  llm.API
		file string
	}{
		{"chat", llm.APIOpenAIChat, "openai-chat/fantasy-gpt4o-tool.sse"},
		{"responses", llm.APIOpenAIResponses, "openai-responses/fantasy-gpt4o-tool.sse"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			body := readFixture(b, c.file)
			var handlerNanos atomic.Int64
			s := llmtest.NewServer(b, func(w http.ResponseWriter, r *http.Request) {
				start := time.Now()
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(body)
				handlerNanos.Add(int64(time.Since(start)))
			})
			opts := Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: openaiCompat,
				APIKey: func(context.Context) (string, error) { return "sk-bench", nil }}
			var p llm.Provider = NewChat(opts)
			if c.api == llm.APIOpenAIResponses {
				p = NewResponses(opts)
			}
			req := &llm.Request{
				Model:    llm.Model{ID: "gpt-4o", Provider: "openai", API: c.api, ContextWindow: 128000},
				System:   sys("You are a helpful assistant"),
				Messages: []llm.Message{llm.UserText("What's the weather in Florence,Italy?")},
				Tools: []llm.ToolSpec{{Name: "weather", Description: "Get weather information for a location",
					Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}},
				MaxTokens: 4000,
			}
			ctx := context.Background()
			b.ReportAllocs()
			handlerNanos.Store(0)
			b.ResetTimer()
			for b.Loop() {
				var final *llm.Message
				for ev := range p.Stream(ctx, req) {
					if ev.Final() {
						final = ev.Message
					}
				}
				if final == nil || final.StopReason != llm.StopToolUse {
					b.Fatalf("turn ended with %+v", final)
				}
			}
			b.StopTimer()
			harness := b.Elapsed() - time.Duration(handlerNanos.Load())
			b.ReportMetric(float64(harness.Microseconds())/float64(b.N), "harness-µs/turn")
		})
	}
}
