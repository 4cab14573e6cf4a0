package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty"`
}

func echoTool(t *testing.T) *Tool {
	t.Helper()
	tl, err := New("echo", "Echo text.", func(ctx context.Context, call *Call, in echoArgs) (Result, error) {
		if in.Text == "panic" {
			panic("boom")
		}
		return Text(strings.Repeat(in.Text, max(1, in.Times))), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestExecuteValidatesAndRuns(t *testing.T) {
	reg, err := NewRegistry(echoTool(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		isErr            bool
		contains         string
	}{
		{"ok", "echo", `{"text":"a","times":3}`, false, "aaa"},
		{"missing required", "echo", `{}`, true, "text"},
		{"wrong type", "echo", `{"text":5}`, true, "Invalid arguments for echo"},
		{"extra field", "echo", `{"text":"a","nope":1}`, true, "nope"},
		{"not json", "echo", `"{\"text\": "`, true, "not a valid JSON object"},
		{"array", "echo", `[1]`, true, "not a valid JSON object"},
		{"unknown tool", "ech0", `{}`, true, `Unknown tool "ech0". Available tools: echo.`},
		{"panic", "echo", `{"text":"panic"}`, true, "failed unexpectedly: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := &Call{ID: "1", Name: tt.tool, Args: json.RawMessage(tt.args), Tool: reg.Get(tt.tool)}
			res := reg.Execute(context.Background(), call)
			if res.IsError != tt.isErr || !strings.Contains(res.Text(), tt.contains) {
				t.Fatalf("result = %v %q, want error=%v containing %q", res.IsError, res.Text(), tt.isErr, tt.contains)
			}
		})
	}
}

func TestUnknownToolWithNoTools(t *testing.T) {
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	res := reg.Execute(context.Background(), &Call{ID: "1", Name: "bash", Args: json.RawMessage(`{}`)})
	if !res.IsError || res.Text() != `Unknown tool "bash". No tools are available here: answer in text.` {
		t.Fatalf("result = %v %q", res.IsError, res.Text())
	}
}

func TestRegistrySelect(t *testing.T) {
	mk := func(name string) *Tool {
		return &Tool{Name: name, Run: func(context.Context, *Call) Result { return Text(name) }}
	}
	reg, err := NewRegistry(mk("read"), mk("write"), mk("edit"), mk("bash"), mk("grep"), mk("find"), mk("ls"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := reg.Select([]string{"readonly"}, []string{"grep"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Names(), ",") != "read,find,ls" {
		t.Fatalf("names = %v", got.Names())
	}
	if _, err := reg.Select([]string{"nope"}, nil); err == nil || !strings.Contains(err.Error(), "toolsets: coding, readonly") {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewRegistry(mk("a"), mk("a")); err == nil {
		t.Fatal("duplicate names accepted")
	}
	if _, err := NewRegistry(&Tool{Name: "x", Schema: json.RawMessage(`{"type":5}`), Run: mk("x").Run}); err == nil {
		t.Fatal("invalid schema accepted")
	}
}

func TestTruncate(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, strings.Repeat("x", 40)+" line "+string(rune('a'+i%26)))
	}
	plain := strings.Join(lines, "\n")
	out := Truncate(plain, 4000, "see file")
	if len(out) > 4000 {
		t.Fatalf("len = %d, over the cap", len(out))
	}
	if !strings.HasPrefix(out, lines[0]+"\n") || !strings.Contains(out, "omitted from the end; see file") {
		t.Fatalf("head-only cut wrong:\n%s", out[len(out)-300:])
	}
	withErr := plain + "\nFAIL: TestSomething\nexit status 1"
	out = Truncate(withErr, 4000, "")
	if !strings.HasSuffix(out, "FAIL: TestSomething\nexit status 1") || !strings.Contains(out, "omitted from the middle") {
		t.Fatalf("important tail lost:\n%s", out[len(out)-300:])
	}
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "x") && !strings.HasPrefix(l, "[…") && !strings.HasPrefix(l, "FAIL") && !strings.HasPrefix(l, "exit") {
			t.Fatalf("cut inside a line: %q", l)
		}
	}
	uni := strings.Repeat("é", 5000) // one long line of two-byte runes
	out = Truncate(uni, 2001, "")
	if !strings.HasPrefix(out, "éé") || strings.ContainsRune(out, '\uFFFD') {
		t.Fatal("cut inside a rune")
	}
	if Truncate("short", 10, "") != "short" {
		t.Fatal("short text changed")
	}
}

func TestLimitOffloadsFullOutput(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789\n", 5000)
	h := Chain(func(ctx context.Context, call *Call) Result { return Text(big) }, Limit(LimitOptions{Workdir: dir}))
	res := h(context.Background(), &Call{ID: "call/1", Name: "bash"})
	text := res.Text()
	if len(text) > DefaultMaxChars {
		t.Fatalf("len = %d", len(text))
	}
	i := strings.Index(text, ".rein/output/")
	if i < 0 {
		t.Fatalf("no path in marker: %s", text[len(text)-300:])
	}
	rel := strings.Fields(text[i:])[0]
	rel = strings.TrimRight(rel, ";")
	saved, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != big {
		t.Fatal("offloaded output differs from the original")
	}
	small := Chain(func(ctx context.Context, call *Call) Result { return Text("ok") }, Limit(LimitOptions{Workdir: dir}))
	if r := small(context.Background(), &Call{}); r.Text() != "ok" || len(r.Notes) != 0 {
		t.Fatal("small output changed")
	}
	if (LimitOptions{ContextWindow: 8000}).Max() != 9600 {
		t.Fatalf("share of a small window not applied: %d", LimitOptions{ContextWindow: 8000}.Max())
	}
}

func TestTimeout(t *testing.T) {
	slow := &Tool{Name: "slow", Timeout: 20 * time.Millisecond, Run: func(ctx context.Context, call *Call) Result {
		<-ctx.Done()
		return Text("partial")
	}}
	h := Chain(func(ctx context.Context, call *Call) Result { return call.Tool.Run(ctx, call) }, Timeout(time.Hour))
	res := h(context.Background(), &Call{Name: "slow", Tool: slow})
	if !res.IsError || !strings.Contains(res.Text(), "partial") || !strings.Contains(res.Text(), "timed out after 20ms") {
		t.Fatalf("result = %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = h(ctx, &Call{Name: "slow", Tool: slow})
	if res.IsError {
		t.Fatal("run cancellation reported as a timeout")
	}
}

func BenchmarkChain(b *testing.B) {
	reg, _ := NewRegistry(&Tool{Name: "noop", Run: func(context.Context, *Call) Result { return Result{} }})
	h := Chain(func(ctx context.Context, call *Call) Result { return call.Tool.Run(ctx, call) },
		Timeout(time.Minute), Limit(LimitOptions{}))
	call := &Call{ID: "1", Name: "noop", Tool: reg.Get("noop")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		h(ctx, call)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/call")
}

func BenchmarkTruncate10MB(b *testing.B) {
	s := strings.Repeat("some build output line that goes on for a while\n", 10<<20/49) + "error: exit status 1\n"
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Truncate(s, DefaultMaxChars, ".rein/output/x.txt")
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/10MB")
}
