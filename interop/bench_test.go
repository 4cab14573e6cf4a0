package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// bigSession builds a rein session of n entries in memory: turns of a
// user prompt, an assistant call to read or bash, its result and an
// answer, with texts of a realistic size.
func bigSession(n int) *Session {
	t0 := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	s := &Session{Header: session.Header{Type: session.HeaderType, Version: 1, ID: "0123456789abcdef0123456789abcdef", Created: t0, Cwd: "/home/ana/shop"}}
	parent := ""
	add := func(m llm.Message) {
		id := fmt.Sprintf("%08x", len(s.Entries)+1)
		ts := t0.Add(time.Duration(len(s.Entries)) * time.Second)
		m.Timestamp = ts
		s.Entries = append(s.Entries, session.Entry{Type: session.TypeMessage, ID: id, Parent: parent, Timestamp: ts, Message: &m})
		parent = id
	}
	body := bytes.Repeat([]byte("func Page(items []Item, i int) []Item { return items[i*size : (i+1)*size] }\n"), 8)
	for i := 0; len(s.Entries) < n; i++ {
		add(llm.UserText(fmt.Sprintf("Step %d: look at store/page%d.go and tell me what is wrong.", i, i)))
		call := llm.ToolCall(fmt.Sprintf("toolu_%06d", i), "read", json.RawMessage(fmt.Sprintf(`{"path":"store/page%d.go"}`, i)))
		if i%2 == 1 {
			call = llm.ToolCall(fmt.Sprintf("toolu_%06d", i), "bash", json.RawMessage(`{"command":"go test ./store","timeout":60}`))
		}
		add(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Let me look."), call}, Provider: "anthropic", Model: "claude-sonnet-4-5",
			API: llm.APIAnthropicMessages, Usage: &llm.Usage{Input: 1200, Output: 80, Total: 1280}, StopReason: llm.StopToolUse})
		add(llm.ToolResult(call.ID, call.Name, false, llm.Text(string(body))))
		add(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("The slice end is off by one: the last page is cut short.")},
			Provider: "anthropic", Model: "claude-sonnet-4-5", API: llm.APIAnthropicMessages, Usage: &llm.Usage{Input: 1400, Output: 30, Total: 1430}, StopReason: llm.StopEnd})
	}
	s.Entries = s.Entries[:n]
	return s
}

// heapAfter runs f and returns how much more heap is live after it (what
// f's result holds) than before.
func heapAfter(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// heapPeak runs f and returns the most heap its objects (garbage not
// yet collected included) took above what was live before it, sampled
// every 50 µs: what the import adds to the process's memory at its peak,
// with the collector at its default setting.
func heapPeak(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak {
				peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	if v := read(); v > peak {
		peak = v
	}
	if peak < base {
		return 0
	}
	return peak - base
}

const benchEntries = 10000

// benchFiles writes a 10,000-entry session in each format into dir and
// returns the paths: the rein one a session file.
func benchFiles(b *testing.B, dir string) map[Format]string {
	src := bigSession(benchEntries)
	out := map[Format]string{}
	for _, f := range []Format{Pi, Claude, Codex, OpenCode} {
		var buf bytes.Buffer
		if _, err := Export(&buf, src, f, Options{}); err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, string(f))
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
		out[f] = p
	}
	s, err := session.CreateImported(session.Options{Dir: filepath.Join(dir, "rein")}, session.Source{Format: "bench"}, src.Entries)
	if err != nil {
		b.Fatal(err)
	}
	out[Rein] = s.Path()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkImport imports a 10,000-entry session file in each format as
// a new rein session file (ImportFile, what rein sessions import does).
// It reports the file size, the CPU time, the bytes allocated per import
// as a multiple of the file (alloc-x), and the peak of the heap during
// one import above what was live before it, as a multiple of the file
// (peak-x).
func BenchmarkImport(b *testing.B) {
	dir := b.TempDir()
	files := benchFiles(b, dir)
	for _, f := range []Format{Pi, Claude, Codex, OpenCode, Rein} {
		b.Run(string(f), func(b *testing.B) {
			st, err := os.Stat(files[f])
			if err != nil {
				b.Fatal(err)
			}
			size := float64(st.Size())
			n := 0
			imp := func() {
				n++
				o := session.Options{Dir: filepath.Join(dir, "out", strconv.Itoa(n))}
				im, err := ImportFile(files[f], f, o)
				if err != nil {
					b.Fatal(err)
				}
				if im.Conversation.Report.Messages < benchEntries/2 {
					b.Fatalf("%d messages imported", im.Conversation.Report.Messages)
				}
				if err := os.RemoveAll(o.Dir); err != nil {
					b.Fatal(err)
				}
			}
			peak := heapPeak(imp)
			b.ReportAllocs()
			b.ResetTimer()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			start, cpu := ms.TotalAlloc, cpuTime()
			for i := 0; i < b.N; i++ {
				imp()
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(size, "file-bytes")
			b.ReportMetric(float64(ms.TotalAlloc-start)/float64(b.N)/size, "alloc-x")
			b.ReportMetric(float64(peak)/size, "peak-x")
		})
	}
}

// BenchmarkRead reads a 10,000-entry session in each format into memory
// (Read: the conversation with all its entries). Beside the figures of
// BenchmarkImport it reports the live heap the result holds, as a
// multiple of the file (live-x).
func BenchmarkRead(b *testing.B) {
	src := bigSession(benchEntries)
	for _, f := range []Format{Pi, Claude, Codex, OpenCode} {
		var buf bytes.Buffer
		if _, err := Export(&buf, src, f, Options{}); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(string(f), func(b *testing.B) {
			var c *Conversation
			live := heapAfter(func() {
				var err error
				c, err = Read(bytes.NewReader(data), "bench", f)
				if err != nil {
					b.Fatal(err)
				}
			})
			if len(c.Entries) < benchEntries/2 {
				b.Fatalf("%d entries imported", len(c.Entries))
			}
			runtime.KeepAlive(c)
			c = nil
			peak := heapPeak(func() {
				c2, err := Read(bytes.NewReader(data), "bench", f)
				if err != nil {
					b.Fatal(err)
				}
				runtime.KeepAlive(c2)
			})
			b.ReportAllocs()
			b.ResetTimer()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			start, cpu := ms.TotalAlloc, cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := Read(bytes.NewReader(data), "bench", f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(len(data)), "file-bytes")
			b.ReportMetric(float64(ms.TotalAlloc-start)/float64(b.N)/float64(len(data)), "alloc-x")
			b.ReportMetric(float64(live)/float64(len(data)), "live-x")
			b.ReportMetric(float64(peak)/float64(len(data)), "peak-x")
		})
	}
}

// BenchmarkExport writes a 10,000-entry session in each format,
// reporting the output size, the bytes allocated per export as a
// multiple of it (alloc-x), and the peak of the heap during one export
// above what was live before it (the session), as a multiple of the
// output (peak-x).
func BenchmarkExport(b *testing.B) {
	src := bigSession(benchEntries)
	for _, f := range []Format{Pi, Claude, Codex, OpenCode, Markdown, HTML, Bundle} {
		b.Run(string(f), func(b *testing.B) {
			var n int
			peak := heapPeak(func() {
				cw := &countWriter{}
				if _, err := Export(cw, src, f, Options{}); err != nil {
					b.Fatal(err)
				}
				n = cw.n
			})
			b.ReportAllocs()
			b.ResetTimer()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			start, cpu := ms.TotalAlloc, cpuTime()
			for i := 0; i < b.N; i++ {
				cw := &countWriter{}
				if _, err := Export(cw, src, f, Options{}); err != nil {
					b.Fatal(err)
				}
				n = cw.n
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(n), "file-bytes")
			b.ReportMetric(float64(ms.TotalAlloc-start)/float64(b.N)/float64(n), "alloc-x")
			b.ReportMetric(float64(peak)/float64(n), "peak-x")
		})
	}
}

type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// cpuTime is the CPU time this process has used (user and system): on a
// machine shared with other work it says what an operation costs when
// wall time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
