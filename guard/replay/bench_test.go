package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/reinhq/rein/trajectory"
)

// syntheticSession writes n calls in the neutral format or as a Claude
// Code session: a mix of reads, edits, bash, grep and find with results of
// a few hundred bytes to a few kilobytes, four calls per turn.
func syntheticSession(n int, claude bool) []byte {
	var b bytes.Buffer
	src := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprintln(w, \"ok\")\n}\n", 20)
	for i := range n {
		turn := i/4 + 1
		var tool string
		var args map[string]any
		result := src[:300+(i*37)%(len(src)-300)]
		switch i % 6 {
		case 0, 1:
			tool, args = "read", map[string]any{"path": fmt.Sprintf("pkg/f%d.go", i%50)}
		case 2:
			tool, args = "bash", map[string]any{"command": fmt.Sprintf("go test ./pkg/%d/... 2>&1 | tail -20", i%30)}
			result = fmt.Sprintf("ok  \tpkg/%d\t0.%03ds\n", i%30, i%1000)
		case 3:
			tool, args = "grep", map[string]any{"pattern": fmt.Sprintf("func F%d", i%40), "path": "."}
		case 4:
			tool, args = "edit", map[string]any{"path": fmt.Sprintf("pkg/f%d.go", i%50), "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}
			result = "Edited."
		default:
			tool, args = "find", map[string]any{"pattern": "*.go", "path": fmt.Sprintf("pkg/%d", i%20)}
		}
		if !claude {
			line, _ := json.Marshal(map[string]any{"turn": turn, "tool": tool, "args": args, "result": result})
			b.Write(line)
			b.WriteByte('\n')
			continue
		}
		names := map[string]string{"read": "Read", "bash": "Bash", "grep": "Grep", "edit": "Edit", "find": "Glob"}
		if p, ok := args["path"]; ok && tool != "grep" && tool != "find" {
			delete(args, "path")
			args["file_path"] = p
		}
		id := fmt.Sprintf("toolu_%08d", i)
		a, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": "s", "uuid": fmt.Sprint(i), "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", turn), "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": names[tool], "input": args}}}})
		u, _ := json.Marshal(map[string]any{"type": "user", "sessionId": "s", "message": map[string]any{
			"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}}})
		b.Write(a)
		b.WriteByte('\n')
		b.Write(u)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkReplay measures reading and replaying a recording: calls/s is
// the throughput of the whole path (format detection, decoding, rules).
func BenchmarkReplay(b *testing.B) {
	const n = 10_000
	for _, bc := range []struct {
		name   string
		claude bool
	}{{"neutral", false}, {"claude-code", true}} {
		data := syntheticSession(n, bc.claude)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start := cpuTime()
			for range b.N {
				s, err := trajectory.Read(bytes.NewReader(data), "bench")
				if err != nil || len(s.Calls) != n {
					b.Fatalf("read: %v, %d calls", err, len(s.Calls))
				}
				Run(s, "bench", Options{}, nil)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "calls/s")
			if cpu := cpuTime() - start; cpu > 0 {
				b.ReportMetric(float64(n*b.N)/cpu.Seconds(), "calls/cpu-s")
			}
		})
	}
	b.Run("rules-only", func(b *testing.B) {
		s, err := trajectory.Read(bytes.NewReader(syntheticSession(n, false)), "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		start := cpuTime()
		for range b.N {
			Run(s, "bench", Options{}, nil)
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "calls/s")
		if cpu := cpuTime() - start; cpu > 0 {
			b.ReportMetric(float64(n*b.N)/cpu.Seconds(), "calls/cpu-s")
		}
	})
}

// BenchmarkReplayCorpus replays the recordings in the directory named by
// REIN_REPLAY_CORPUS (every file in it) as `rein guard replay` does:
// through Files, on every core, and sequentially, one session after the
// other (the per-core figure). It is skipped when the variable is not set.
// Real recordings have longer results and more distinct commands than the
// synthetic session.
func BenchmarkReplayCorpus(b *testing.B) {
	dir := os.Getenv("REIN_REPLAY_CORPUS")
	if dir == "" {
		b.Skip("REIN_REPLAY_CORPUS not set")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	size := 0
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, e.Name()))
		size += int(fi.Size())
	}
	// As `rein guard replay` runs it.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	for _, bc := range []struct {
		name    string
		workers int
	}{{"parallel", runtime.GOMAXPROCS(0)}, {"sequential", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			calls := 0
			start := cpuTime()
			for range b.N {
				for r := range Files(paths, Options{}, bc.workers) {
					calls += r.Summary.Calls
				}
			}
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
			if cpu := cpuTime() - start; cpu > 0 {
				b.ReportMetric(float64(calls)/cpu.Seconds(), "calls/cpu-s")
			}
		})
	}
}
