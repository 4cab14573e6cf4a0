package anthropic

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/llmtest"
)

// BenchmarkDecode measures decoding throughput: SSE framing, the event
// scanner, the decoder and the emitter, over streams held in memory. The
// SSE reader is reused between streams, as the client does.
func BenchmarkDecode(b *testing.B) {
	streams := []struct {
		name string
		body []byte
	}{{"long", longStream(b)}}
	for _, name := range []string{"fantasy-sonnet4-web-search", "pai-sonnet4-thinking-text", "fantasy-sonnet4-thinking-tool"} {
		streams = append(streams, struct {
			name string
			body []byte
		}{name, readFile(b, name+".sse")})
	}
	for _, s := range streams {
		name, body := s.name, s.body
		events := countEvents(b, body)
		req := &llm.Request{Model: sonnet}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var rd bytes.Reader
			r := sse.NewReader(&rd)
			cpu0, _ := llmtest.CPUTime()
			for b.Loop() {
				rd.Reset(body)
				r.Reset(&rd)
				e := llm.NewEmitter(func(llm.Event, error) bool { return true }, req)
				d := newDecoder(e, "anthropic")
				d.run(r, func(error) error { return nil })
				if !d.finished {
					b.Fatal("stream did not finish")
				}
			}
			b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
			if cpu1, ok := llmtest.CPUTime(); ok && cpu1 > cpu0 {
				cpu := cpu1 - cpu0
				b.ReportMetric(float64(events*b.N)/cpu.Seconds(), "events/cpu-s")
			}
		})
	}
}

// longStream repeats the blocks of a recorded stream (a thinking block
// and a tool call, with their deltas) 100 times in one message, so that
// the per-stream setup weighs little and the per-event cost shows.
func longStream(b *testing.B) []byte {
	rec := string(readFile(b, "fantasy-sonnet4-thinking-tool.sse"))
	events := strings.SplitAfter(rec, "\n\n")
	var head, blocks, tail []string
	for _, ev := range events {
		switch {
		case strings.Contains(ev, "message_start"):
			head = append(head, ev)
		case strings.Contains(ev, "message_delta"), strings.Contains(ev, "message_stop"):
			tail = append(tail, ev)
		case strings.TrimSpace(ev) != "":
			blocks = append(blocks, ev)
		}
	}
	var out strings.Builder
	out.WriteString(strings.Join(head, ""))
	for i := range 100 {
		for _, ev := range blocks {
			ev = strings.Replace(ev, `"index":0`, `"index":`+strconv.Itoa(2*i), 1)
			ev = strings.Replace(ev, `"index":1`, `"index":`+strconv.Itoa(2*i+1), 1)
			out.WriteString(ev)
		}
	}
	out.WriteString(strings.Join(tail, ""))
	return []byte(out.String())
}

func countEvents(b *testing.B, body []byte) int {
	r := sse.NewReader(bytes.NewReader(body))
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			return n
		}
		n++
	}
}

// BenchmarkTurn measures one whole Stream call against a loopback server
// replaying a recorded tool-use stream. harness-µs/turn is the time spent
// outside the server's handler: encoding, HTTP, decoding and emitting.
func BenchmarkTurn(b *testing.B) {
	body := readFile(b, "fantasy-sonnet4-tool.sse")
	var serverNs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		w.(http.Flusher).Flush()
		serverNs.Add(int64(time.Since(start)))
	}))
	defer srv.Close()
	c := New(Options{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: func(context.Context) (string, error) { return "sk-bench", nil }})
	req := &llm.Request{Model: sonnet, MaxTokens: 4000,
		System:   []llm.SystemPart{{Text: "You are a helpful assistant"}},
		Tools:    []llm.ToolSpec{weatherTool()},
		Messages: []llm.Message{llm.UserText("What's the weather in Florence,Italy?")}}
	ctx := context.Background()
	b.ReportAllocs()
	serverNs.Store(0)
	cpu0, _ := llmtest.CPUTime()
	for b.Loop() {
		var final *llm.Message
		for ev, err := range c.Stream(ctx, req) {
			if err != nil {
				b.Fatal(err)
			}
			if ev.Final() {
				final = ev.Message
			}
		}
		if final == nil || final.StopReason != llm.StopToolUse {
			b.Fatalf("final %+v", final)
		}
	}
	harness := b.Elapsed() - time.Duration(serverNs.Load())
	b.ReportMetric(float64(harness.Microseconds())/float64(b.N), "harness-µs/turn")
	b.ReportMetric(float64(serverNs.Load())/1e3/float64(b.N), "server-µs/turn")
	if cpu1, ok := llmtest.CPUTime(); ok && cpu1 > cpu0 {
		cpu := cpu1 - cpu0
		// CPU of client and server together: an upper bound of the
		// harness's own CPU cost that waiting for a core does not inflate.
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/turn")
	}
}
