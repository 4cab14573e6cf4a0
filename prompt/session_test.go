package prompt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/anthropic"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/tool/builtin"
)

const toolTurn = `event: message_start
data: {"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_%d","name":"ls","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`

const textTurn = `event: message_start
data: {"type":"message_start","message":{"id":"msg_end","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}

event: message_stop
data: {"type":"message_stop"}

`

type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// Over a scripted session of 100 turns against a local Anthropic server,
// the system prompt above the cache boundary is the same bytes in every
// request, ends with a cache breakpoint, and the volatile tier (which
// changes every turn) sits below it without one.
func TestStablePrefixAcross100Turns(t *testing.T) {
	const turns = 100
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == turns-1 {
			io.WriteString(w, textTurn)
			return
		}
		fmt.Fprintf(w, toolTurn, n, n)
	}))
	defer srv.Close()

	dir := prompt.Tree(t, map[string]string{".git/": "", "AGENTS.md": "Run go test before you finish.", "sub/AGENTS.md": "nested", ".rein/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint Go code.\n---\nbody"})
	ws, err := builtin.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry(ws)
	if err != nil {
		t.Fatal(err)
	}
	found := prompt.Discover(prompt.DiscoverOptions{Workspace: ws.Root, ConfigDir: "-"})
	b := prompt.NewBuilder(prompt.Options{Found: found, Volatile: func(t prompt.Turn) string { return "Turn " + strconv.Itoa(t.Turn) + "." }})
	h, err := harness.New(harness.Options{
		Provider: anthropic.New(anthropic.Options{BaseURL: srv.URL}),
		Model:    llm.Model{ID: "claude-test", Provider: "anthropic", API: "anthropic-messages", ContextWindow: 200000, MaxOutput: 8192},
		Prompt:   b, Tools: reg, NoGuards: true,
		Stop: harness.StopPolicy{MaxTurns: -1, StallTurns: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Prompt(context.Background(), "list the files, many times")
	if err != nil || res.Stop != harness.StopCompleted {
		t.Fatalf("stop %s %s: %v", res.Stop, res.Detail, err)
	}
	if len(bodies) != turns {
		t.Fatalf("%d requests, want %d", len(bodies), turns)
	}
	var first string
	for i, body := range bodies {
		var req struct {
			System []wireBlock `json:"system"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		if len(req.System) != 2 {
			t.Fatalf("request %d: %d system blocks", i, len(req.System))
		}
		stable, volatile := req.System[0], req.System[1]
		if len(stable.CacheControl) == 0 || len(volatile.CacheControl) != 0 {
			t.Fatalf("request %d: breakpoints stable %s volatile %s", i, stable.CacheControl, volatile.CacheControl)
		}
		if volatile.Text != "Turn "+strconv.Itoa(i+1)+"." {
			t.Fatalf("request %d: volatile %q", i, volatile.Text)
		}
		if i == 0 {
			first = stable.Text
		} else if stable.Text != first {
			t.Fatalf("request %d: the stable part changed", i)
		}
	}
	if len(first) < 200 {
		t.Fatalf("stable part %q", first)
	}
}

// firstRequest returns the default system prompt and coding tools of a
// fresh workspace, and the bytes of the Anthropic request that carries
// them with a one-line prompt.
func firstRequest(t testing.TB) (prompt.Size, int) {
	dir := prompt.Tree(t, map[string]string{".git/": ""})
	ws, err := builtin.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.Registry(ws)
	if err != nil {
		t.Fatal(err)
	}
	if reg, err = reg.Select([]string{"coding"}, nil); err != nil {
		t.Fatal(err)
	}
	found := prompt.Discover(prompt.DiscoverOptions{Workspace: ws.Root, ConfigDir: "-"})
	sys, err := prompt.NewBuilder(prompt.Options{Found: found}).System(context.Background(), prompt.Turn{Tools: reg.Names()})
	if err != nil {
		t.Fatal(err)
	}
	var wire []byte
	stop := errors.New("captured")
	req := llm.Request{
		Model:  llm.Model{ID: "claude-test", Provider: "anthropic", API: llm.APIAnthropicMessages, MaxOutput: 8192},
		System: sys, Tools: reg.Specs(), Messages: []llm.Message{llm.UserText("fix the failing test")},
		Options: llm.Options{OnPayload: func(_ context.Context, b []byte) ([]byte, error) { wire = b; return nil, stop }},
	}
	for _, err := range anthropic.New(anthropic.Options{BaseURL: "http://127.0.0.1:1"}).Stream(context.Background(), &req) {
		if err != nil {
			break
		}
	}
	if wire == nil {
		t.Fatal("no payload captured")
	}
	return prompt.Measure(sys, reg.Specs()), len(wire)
}

// The default system prompt and the seven coding tools' schemas fit in
// 6 KB.
func TestFirstRequestSize(t *testing.T) {
	size, wire := firstRequest(t)
	t.Logf("system %d bytes + tools %d bytes = %d bytes (~%d tokens); Anthropic request %d bytes", size.SystemBytes, size.ToolBytes, size.Total(), size.Tokens(), wire)
	if size.Tools != 7 || size.Total() > 6<<10 {
		t.Fatalf("%d tools, %d bytes; the budget is 6144", size.Tools, size.Total())
	}
}

// BenchmarkFirstRequest reports the bytes and estimated tokens of the
// default system prompt and the coding tools' schemas.
func BenchmarkFirstRequest(b *testing.B) {
	var (
		size prompt.Size
		wire int
	)
	for b.Loop() {
		size, wire = firstRequest(b)
	}
	b.ReportMetric(float64(size.SystemBytes), "system-bytes")
	b.ReportMetric(float64(size.ToolBytes), "tool-bytes")
	b.ReportMetric(float64(size.Total()), "total-bytes")
	b.ReportMetric(float64(size.Tokens()), "est-tokens")
	b.ReportMetric(float64(wire), "anthropic-request-bytes")
}

// After a compaction the harness rebuilds the system prompt from the
// context files as they are on disk then; before it, the cached tiers
// stand.
func TestContextReadAgainAfterCompaction(t *testing.T) {
	dir := prompt.Tree(t, map[string]string{".git/": "", "AGENTS.md": "version one"})
	p := faux.New(faux.Text("a"), faux.Text("b"), faux.Text("c"))
	b := prompt.NewBuilder(prompt.Options{Discover: prompt.DiscoverOptions{Workspace: dir, ConfigDir: "-"}})
	h, err := harness.New(harness.Options{Provider: p, Model: faux.Model(), Prompt: b})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := h.Prompt(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("version two"), 0o644)
	if _, err := h.Prompt(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Compact(ctx, harness.CompactOptions{Summary: "we said one and two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(ctx, "three"); err != nil {
		t.Fatal(err)
	}
	var systems []string
	for _, r := range p.Requests() {
		systems = append(systems, llm.SystemText(r.System))
	}
	if len(systems) != 3 || !strings.Contains(systems[0], "version one") || !strings.Contains(systems[1], "version one") || !strings.Contains(systems[2], "version two") {
		t.Fatalf("systems:\n%s", strings.Join(systems, "\n----\n"))
	}
}
