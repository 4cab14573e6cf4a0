package faux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestScriptedReplies(t *testing.T) {
	script := `# a comment
{"thinking": "look first", "text": "Listing.", "tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}

{"text": "Done."}
{"error": {"code": "rate_limit", "message": "try later"}}
`
	replies, err := LoadScript(strings.NewReader(script), "demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := New(replies...)
	p.IDPrefix = "id"
	req := &llm.Request{Model: Model(), Messages: []llm.Message{llm.UserText("hello there, model")}}
	m, err := llm.Collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	if m.StopReason != llm.StopToolUse || len(m.Content) != 3 || m.Content[0].Text != "look first" || m.Content[1].Text != "Listing." {
		t.Fatalf("reply 1 = %+v", m)
	}
	if c := m.Content[2]; c.ID != "id1" || c.Name != "ls" || string(c.Arguments) != `{"path":"."}` {
		t.Fatalf("tool call = %+v", c)
	}
	if m.Usage == nil || m.Usage.Input == 0 || m.Usage.Output == 0 {
		t.Fatalf("usage not estimated: %+v", m.Usage)
	}
	m, _ = llm.Collect(context.Background(), p, req)
	if m.StopReason != llm.StopEnd || m.Text() != "Done." {
		t.Fatalf("reply 2 = %+v", m)
	}
	_, err = llm.Collect(context.Background(), p, req)
	if !errors.Is(err, llm.ErrRateLimit) {
		t.Fatalf("reply 3 err = %v", err)
	}
	_, err = llm.Collect(context.Background(), p, req)
	if err == nil || !strings.Contains(err.Error(), "no reply left: it gave 3") {
		t.Fatalf("empty queue err = %v", err)
	}
	if len(p.Requests()) != 4 {
		t.Fatalf("requests = %d", len(p.Requests()))
	}
}

func TestScriptErrors(t *testing.T) {
	tests := []struct{ script, want string }{
		{`{"text": "a"}` + "\n" + `{"txt": "typo"}`, `s.jsonl:2: json: unknown field "txt"`},
		{`{"text": `, "s.jsonl:1:"},
		{`{"tool_calls": [{"arguments": {}}]}`, "s.jsonl:1: tool call 1 has no name"},
	}
	for _, tt := range tests {
		_, err := LoadScript(strings.NewReader(tt.script), "s.jsonl")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadScript(%q) err = %v, want %q", tt.script, err, tt.want)
		}
	}
}

func TestStreamsInChunksAndHonoursCancel(t *testing.T) {
	p := New(Text(strings.Repeat("abc ", 50)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deltas := 0
	var final llm.Message
	for ev, err := range p.Stream(ctx, &llm.Request{Model: Model()}) {
		if ev.Type == llm.EventTextDelta {
			deltas++
			if deltas == 3 {
				cancel()
			}
		}
		if ev.Final() {
			final = *ev.Message
			if !errors.Is(err, llm.ErrAborted) {
				t.Fatalf("err = %v", err)
			}
		}
	}
	if deltas != 3 || final.StopReason != llm.StopAborted || final.Text() != strings.Repeat("abc ", 50)[:18] {
		t.Fatalf("deltas %d, final %q %s", deltas, final.Text(), final.StopReason)
	}
}

func TestLoadScriptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "replies.jsonl")
	if err := os.WriteFile(path, []byte("{\"text\": \"one\"}\n# note\n{\"text\": \"two\"}\n{\"txt\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadScriptFile(path); err == nil || !strings.Contains(err.Error(), path+":4:") {
		t.Fatalf("malformed line: %v", err)
	}
	os.WriteFile(path, []byte("{\"text\": \"one\"}\n{\"text\": \"two\"}\n"), 0o644)
	replies, err := LoadScriptFile(path)
	if err != nil || len(replies) != 2 {
		t.Fatalf("%d replies, %v", len(replies), err)
	}
	if _, err := LoadScriptFile(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
