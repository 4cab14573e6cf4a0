package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestKeysNotInProcEnviron starts a real rein with a model key and
// another secret in its environment and reads its /proc/<pid>/environ
// while it works (as root here, which non-dumpability does not stop):
// neither value is there, the names are (blanked in place, no second
// process), yet rein still knows them (its output masks the secret).
func TestKeysNotInProcEnviron(t *testing.T) {
	ws := t.TempDir()
	key := "sk-ant-api03-" + strings.Repeat("Hk2_", 12)
	pass := "plain-value-" + strings.Repeat("zq", 8)
	script := writeScript(t, t.TempDir(), `{"text": "Working.", "tool_calls": [{"name": "bash", "arguments": {"command": "touch started; sleep 2; echo `+pass+`"}}]}
{"text": "done"}
`)
	cmd := exec.Command(os.Args[0], "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "work")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "ANTHROPIC_API_KEY="+key, "MY_DB_PASSWORD="+pass)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the bash call never started: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	environ, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rein: %v\n%s", err, stderr.String())
	}
	if !bytes.Contains(environ, []byte("REIN_TEST_MAIN=1")) {
		t.Fatalf("read the wrong environment: %q", environ)
	}
	if bytes.Contains(environ, []byte(key)) || bytes.Contains(environ, []byte(pass)) {
		t.Fatal("a secret is readable in rein's /proc/<pid>/environ")
	}
	if !bytes.Contains(environ, []byte("\x00ANTHROPIC_API_KEY=\x00")) {
		t.Fatalf("the key's name should stay, its value blanked: %q", environ)
	}
	if strings.Contains(stderr.String()+stdout.String(), pass) || !strings.Contains(stderr.String(), "[REDACTED]") {
		t.Fatalf("rein lost the secret's value (it did not mask it):\n%s", stderr.String())
	}
}

// BenchmarkRunWithKey measures a real rein binary, started with a model
// key in its environment, against a local mock of the Anthropic API: the
// time to the first request (ms-to-request) and to the end of a two-turn
// task that reads hello.txt (ms-two-turn), and the CPU time rein used for
// that task (ms-cpu-two-turn, user and system: unlike wall time, it barely
// depends on how busy the machine is). The binary is built from this
// tree, or is REIN_BENCH_BIN (an earlier release built from git, to
// compare side by side).
func BenchmarkRunWithKey(b *testing.B) {
	bin := os.Getenv("REIN_BENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "rein")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	turns := [2]string{
		sseAnthropic("msg_1", `{"type":"tool_use","id":"toolu_1","name":"read","input":{}}`, `{"type":"input_json_delta","partial_json":"{\"path\":\"hello.txt\"}"}`, "tool_use"),
		sseAnthropic("msg_2", `{"type":"text","text":""}`, `{"type":"text_delta","text":"It says hello."}`, "end_turn"),
	}
	hit := make(chan time.Time, 1)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		i := n.Add(1) - 1
		if i == 0 {
			hit <- time.Now()
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, turns[min(i, 1)])
	}))
	defer srv.Close()
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)
	home := b.TempDir()
	var toRequest, whole, cpu time.Duration
	for i := 0; i < b.N; i++ {
		n.Store(0)
		cmd := exec.Command(bin, "run", "-m", "anthropic/claude-sonnet-5-5", "--base-url", srv.URL, "-C", dir, "--no-session", "what does hello.txt say?")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Bx7_", 12)}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		err := cmd.Wait()
		end := time.Now()
		if err != nil || !strings.Contains(out.String(), "It says hello.") || n.Load() != 2 {
			b.Fatalf("rein: %v, %d requests\n%s", err, n.Load(), out.String())
		}
		toRequest += (<-hit).Sub(start)
		whole += end.Sub(start)
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(toRequest.Microseconds())/1000/float64(b.N), "ms-to-request")
	b.ReportMetric(float64(whole.Microseconds())/1000/float64(b.N), "ms-two-turn")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "ms-cpu-two-turn")
}

// sseAnthropic is one streamed Anthropic reply with a single content
// block.
func sseAnthropic(id, block, delta, stop string) string {
	return `event: message_start
data: {"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":` + block + `}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":` + delta + `}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"` + stop + `"},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`
}
