package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRunReadHello runs `rein run "read hello.txt"` against a
// local OpenAI-compatible server, with a key in the environment: the
// first request asks for the read, the second gets the answer. It
// reports the time from start to the first request and the wall time of
// the whole two-turn run. REIN_BENCH_EXE names another rein binary (a
// build of an earlier commit, say) to time the same way:
//
//	git worktree add /tmp/old <commit> && (cd /tmp/old && go build -o /tmp/rein-old ./cmd/rein)
//	REIN_BENCH_EXE=/tmp/rein-old go test ./cmd/rein -run - -bench RunReadHello
func BenchmarkRunReadHello(b *testing.B) {
	var n atomic.Int64
	hit := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		if len(req.Messages) <= 2 { // system and the prompt: the first turn
			select {
			case hit <- time.Now():
			default:
			}
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"hello.txt\"}"}}]},"finish_reason":null}]}`+"\n\n")
			io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
			return
		}
		io.WriteString(w, `data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"It says hello."},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	exe, env := os.Getenv("REIN_BENCH_EXE"), []string{}
	if exe == "" {
		exe, _ = os.Executable()
		env = append(env, "REIN_TEST_MAIN=1")
	}
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)
	home := b.TempDir()
	env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home, "OPENAI_API_KEY=sk-bench-0123456789abcdef")
	var toRequest, total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(exe, "run", "-m", "openai/m", "--base-url", srv.URL+"/v1", "-C", dir, "--no-session", "read hello.txt")
		cmd.Env = env
		var out strings.Builder
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		at := <-hit
		if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "It says hello.") {
			b.Fatalf("run: %v: %s", err, out.String())
		}
		toRequest += at.Sub(start)
		total += time.Since(start)
	}
	b.ReportMetric(float64(toRequest.Microseconds())/1000/float64(b.N), "ms-to-request")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-two-turns")
	b.ReportMetric(float64(n.Load())/float64(b.N), "requests/run")
}
