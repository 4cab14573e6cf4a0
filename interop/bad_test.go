package interop

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

func TestImportClaudeHandmade(t *testing.T) {
	path := testdata("claude/handmade.jsonl")
	before, _ := os.ReadFile(path)
	c, err := ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the source changed")
	}
	if c.Source.Format != "claude" || c.Source.ID != "5d1c0e34-1111-4222-8333-944455556666" || c.Source.Version != "2.1.3" || c.Cwd != "/home/ana/shop" || c.Name != "Fix the pager" {
		t.Fatalf("source %+v cwd %q name %q", c.Source, c.Cwd, c.Name)
	}
	got := shapeOf(t, c.Entries, false)
	// user; assistant (three lines of msg_01 merged: thinking, Read, TodoWrite
	// as text with its result); Read's result; assistant Bash; its
	// synthetic result; the user's interruption.
	if len(got) != 6 {
		t.Fatalf("%d messages: %+v", len(got), got)
	}
	a := got[1]
	if a.Role != "assistant" || a.Texts[0] != "thinking:Read it." || a.Calls[0] != `toolu_01 read {"path":"/home/ana/shop/page.go"}` ||
		!strings.Contains(a.Texts[1], "[tool call TodoWrite, id toolu_02]") || !strings.Contains(a.Texts[2], "Todos have been modified") {
		t.Fatalf("assistant %+v", a)
	}
	if got[3].Calls[0] != `toolu_03 bash {"command":"go test ./...","timeout":120}` {
		t.Fatalf("bash %+v", got[3])
	}
	if got[4].Result != NotRecorded || !got[4].IsError || got[5].Texts[0] != "text:never mind, stop" {
		t.Fatalf("synthetic result %+v then %+v", got[4], got[5])
	}
	if c.Report.TextCalls != 1 || c.Report.Synthetic != 1 || c.Report.Merged != 2 {
		t.Fatalf("report %+v", c.Report)
	}
	if !strings.Contains(c.Report.Summary(), "1 sidechain lines: they are a sub-agent's own conversation") {
		t.Fatalf("summary %s", c.Report.Summary())
	}
	// The signed thinking is kept byte for byte, for Anthropic.
	for _, e := range c.Entries {
		if m := e.Message; m != nil && m.Role == llm.RoleAssistant && m.Content[0].Type == llm.ContentThinking {
			if m.Content[0].Signature != "EqQBsig" || m.API != llm.APIAnthropicMessages {
				t.Fatalf("thinking %+v api %s", m.Content[0], m.API)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	pi, _ := os.ReadFile(testdata("pi/session-read-tool-then-followup.jsonl"))
	claude, _ := os.ReadFile(testdata("claude/handmade.jsonl"))
	s, err := LoadSession(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	var cx, oc bytes.Buffer
	if _, err := Export(&cx, s, Codex, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(&oc, s, OpenCode, Options{}); err != nil {
		t.Fatal(err)
	}
	codex, opencode := cx.String(), oc.String()
	_, noMeta, _ := strings.Cut(codex, "\n")
	cases := []struct {
		name, data string
		err        string   // the error, or "" for a partial import
		skipped    []string // file:line items the report must name
	}{
		{name: "garbage.bin", data: "\x00\x01\x7fELF\x02\xff\xfe garbage", err: "not a session of rein, pi, Claude Code, codex or opencode"},
		{name: "empty.jsonl", data: "", err: "not a session"},
		{name: "pi-newer.jsonl", data: strings.Replace(string(pi), `"version":3`, `"version":4`, 1), err: "pi-newer.jsonl:1: format version too new: pi session format version 4 is newer than the 3 this program reads"},
		{name: "pi-truncated.jsonl", data: string(pi[:len(pi)-40]), skipped: []string{"pi-truncated.jsonl:9: line: the last line is cut off"}},
		{name: "pi-garbage-line.jsonl", data: strings.Replace(string(pi), "\n", "\n\x00\x00\x00garbage\n", 3), skipped: []string{"pi-garbage-line.jsonl:4: line: not a JSON object"}},
		{name: "claude-truncated.jsonl", data: string(claude[:len(claude)-30]), skipped: []string{"claude-truncated.jsonl:11: line: the last line is cut off"}},
		{name: "codex-no-meta.jsonl", data: noMeta, skipped: []string{"codex-no-meta.jsonl: the session_meta record: missing"}},
		{name: "codex-truncated.jsonl", data: codex[:len(codex)-25], skipped: []string{"codex-truncated.jsonl:24: line: the last line is cut off"}},
		{name: "codex-unknown-record.jsonl", data: codex + `{"timestamp":"2026-05-14T10:00:01.000Z","type":"hologram","payload":{}}` + "\n", skipped: []string{`codex-unknown-record.jsonl:25: line: a record of type "hologram"`}},
		{name: "opencode-truncated.json", data: opencode[:len(opencode)/2], err: "opencode-truncated.json: not an opencode export"},
		{name: "opencode-not-session.json", data: `{"info":{"id":"x"},"messages":[]}`, err: "no opencode session info"},
		{name: "claude-unknown-type.jsonl", data: string(claude) + `{"type":"hologram","uuid":"x"}` + "\n", skipped: []string{`claude-unknown-type.jsonl:12: line: a line of type "hologram"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Read(strings.NewReader(tc.data), tc.name, "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := c.Report.Summary()
			for _, s := range tc.skipped {
				if !strings.Contains(sum, s) {
					t.Errorf("report lacks %q:\n%s", s, sum)
				}
			}
			// What was read is a conversation rein can write and continue.
			s, err := Import(c, session.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		})
	}
}

func TestAskedFormatMismatch(t *testing.T) {
	_, err := ReadFile(testdata("claude/handmade.jsonl"), Pi)
	if err == nil || !strings.Contains(err.Error(), "handmade.jsonl") || !errors.Is(err, ErrUnrecognised) && !strings.Contains(err.Error(), "pi session header") {
		t.Fatalf("err %v", err)
	}
}

func TestImportWritesProvenance(t *testing.T) {
	c, err := ReadFile(testdata("claude/handmade.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := Import(c, session.Options{Dir: dir, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	h, _, issues, err := session.ReadFile(s.Path())
	if err != nil || len(issues) > 0 {
		t.Fatal(err, issues)
	}
	abs, _ := filepath.Abs(testdata("claude/handmade.jsonl"))
	_ = abs
	if h.Source == nil || *h.Source != (session.Source{Format: "claude", Version: "2.1.3", Path: testdata("claude/handmade.jsonl"), ID: "5d1c0e34-1111-4222-8333-944455556666"}) {
		t.Fatalf("header source %+v", h.Source)
	}
}

// A sub-agent's own transcript (every line a sidechain line) imports as
// its conversation.
func TestImportClaudeSubagentTranscript(t *testing.T) {
	data := `{"parentUuid":null,"isSidechain":true,"agentId":"a1","cwd":"/w","sessionId":"s1","version":"2.1.3","type":"user","message":{"role":"user","content":"find the bug"},"uuid":"x1","timestamp":"2026-05-14T10:00:00.000Z"}
{"parentUuid":"x1","isSidechain":true,"agentId":"a1","cwd":"/w","sessionId":"s1","version":"2.1.3","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"It is in page.go."}]},"uuid":"x2","timestamp":"2026-05-14T10:00:01.000Z"}
`
	c, err := Read(strings.NewReader(data), "agent-a1.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	got := shapeOf(t, c.Entries, false)
	if len(got) != 2 || got[1].Texts[0] != "text:It is in page.go." || len(c.Report.Dropped) != 0 {
		t.Fatalf("%+v %s", got, c.Report.Summary())
	}
}
