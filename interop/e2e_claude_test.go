package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

func claudeEnv(home string, m *mockModel) []string {
	return sandboxEnv(home, "ANTHROPIC_BASE_URL="+m.srv.URL, "ANTHROPIC_API_KEY=sk-ant-test-dummy",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
}

func claudeReply(body []byte) mockReply {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	if len(req.Messages) == 0 {
		return mockReply{Text: "ok"}
	}
	last := req.Messages[len(req.Messages)-1]
	if bytes.Contains(last.Content, []byte("read hello.txt")) {
		return mockReply{Tool: "Read", ToolArgs: `{"file_path":"HELLO"}`}
	}
	if bytes.Contains(last.Content, []byte(`"tool_result"`)) {
		return mockReply{Text: "DONE: file read."}
	}
	return mockReply{Text: "DONE"}
}

// rein → Claude Code: the export, installed where Claude Code keeps the
// workspace's sessions, is resumed by claude -p --resume, whose request
// to the model carries the imported history. Then Claude Code's own file
// imports back with the whole conversation and Claude Code's turn.
func TestClaudeResumesExport(t *testing.T) {
	claude := program(t, "claude")
	m := newMockModel(t, claudeReply)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	env := claudeEnv(home, m)
	path := sample(t)
	_, orig, _, _ := session.ReadFile(path)
	s, _ := LoadSession(path)
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Claude, Options{}); err != nil {
		t.Fatal(err)
	}
	e := Env{Home: home, Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return filepath.Join(home, ".claude")
		}
		return ""
	}}
	file, err := e.InstallPath(s, Claude, s.Header.Created)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, buf.Bytes(), 0o600)
	id := ClaudeSessionID(s.Header.ID)
	out, _ := run(t, ws, env, "", claude, "-p", "--resume", id, "--model", "claude-mock", "and now?")
	if !strings.Contains(out, "DONE") {
		t.Fatalf("claude answered %q", out)
	}
	var sent []byte
	for _, r := range m.requests() {
		if bytes.Contains(r, []byte("and now?")) {
			sent = r
		}
	}
	for _, want := range []string{"Why does TestPage fail?", `"tool_use_id":"toolu_03"`, "edited store/page.go", `"name":"Edit"`, "Fixed."} {
		if !bytes.Contains(sent, []byte(want)) {
			t.Fatalf("the request claude sent lacks %s:\n%s", want, clipOut(string(sent)))
		}
	}
	if bytes.Contains(sent, []byte("Try cursors instead.")) {
		t.Fatalf("claude sent the branch that is not current:\n%s", clipOut(string(sent)))
	}
	// Claude Code's file, now with its turn, imports back.
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.jsonl"))
	var back *Conversation
	for _, f := range files {
		c, err := ReadFile(f, "")
		if err != nil {
			t.Fatal(err)
		}
		if back == nil || len(c.Entries) > len(back.Entries) {
			back = c
		}
	}
	ctx := session.BuildContext(back.Entries, session.LastLeaf(back.Entries))
	n := len(ctx.Messages)
	if n < 3 || ctx.Messages[n-1].Text() != "DONE" || ctx.Messages[n-2].Text() != "and now?" {
		t.Fatalf("Claude Code's file: %d messages, ending %+v\nreport %s", n, ctx.Messages[max(n-3, 0):], back.Report.Summary())
	}
	keys := treeKeys(shapeOf(t, back.Entries, true))
	for _, k := range treeKeys(shapeOf(t, orig, false)) {
		_ = k
	}
	wantBranch := shapeOf(t, orig, false)
	gotBranch := shapeOf(t, back.Entries, false)
	for i := range wantBranch {
		if strings.Join(gotBranch[i].Calls, "|") != strings.Join(wantBranch[i].Calls, "|") || gotBranch[i].Result != wantBranch[i].Result ||
			strings.Join(gotBranch[i].Texts, "|") != strings.Join(wantBranch[i].Texts, "|") {
			t.Fatalf("message %d after Claude Code: %+v, want %+v\n%q", i, gotBranch[i], wantBranch[i], keys)
		}
	}
}

// Claude Code → rein, with a sub-agent: a session in which Claude Code's
// model started a sub-agent through the Agent tool imports with the
// sub-agent's transcript (which Claude Code keeps in SESSION/subagents/)
// as a child conversation linked to the Agent call.
func TestClaudeSubagentImports(t *testing.T) {
	claude := program(t, "claude")
	m := newMockModel(t, func(body []byte) mockReply {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		if len(req.Messages) == 0 {
			return mockReply{Text: "ok"}
		}
		last := req.Messages[len(req.Messages)-1].Content
		msgs, _ := json.Marshal(req.Messages)
		main := bytes.Contains(msgs, []byte("delegate please"))
		switch {
		case main && (bytes.Contains(last, []byte(`"tool_result"`)) || bytes.Contains(last, []byte("task-notification"))):
			return mockReply{Text: "MAIN DONE"}
		case !main && bytes.Contains(msgs, []byte("SUBTASK-XYZ")):
			return mockReply{Text: "SUB DONE: nothing calls Page."}
		case main && bytes.Contains(body, []byte(`"name":"Agent"`)):
			return mockReply{Tool: "Agent", ToolArgs: `{"subagent_type":"general-purpose","description":"find callers","prompt":"SUBTASK-XYZ find the callers of Page"}`}
		}
		return mockReply{Text: "ok"}
	})
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	env := claudeEnv(home, m)
	run(t, ws, env, "", claude, "-p", "--model", "claude-mock", "--allowedTools", "Agent", "--", "delegate please")
	found, err := Env{Home: home, Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return filepath.Join(home, ".claude")
		}
		return ""
	}}.Latest(ws, Claude)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(found.Path, "")
	if err != nil {
		t.Fatal(err)
	}
	var call string
	for _, e := range c.Entries {
		if e.Message != nil {
			for _, tc := range e.Message.ToolCalls() {
				if tc.Name == "agent" {
					call = tc.ID
				}
			}
		}
	}
	if call == "" || len(c.Children) != 1 {
		t.Fatalf("the Agent call %q, %d children (report %s)", call, len(c.Children), c.Report.Summary())
	}
	child := c.Children[0]
	if child.Link.ParentCall != call || child.Link.Type != "general-purpose" {
		t.Fatalf("child link %+v, want the call %s", child.Link, call)
	}
	got := shapeOf(t, child.Entries, false)
	if len(got) < 2 || !strings.Contains(got[0].Texts[0], "SUBTASK-XYZ find the callers of Page") || !strings.Contains(strings.Join(got[len(got)-1].Texts, " "), "SUB DONE") {
		t.Fatalf("child conversation %+v\nreport %s", got, child.Report.Summary())
	}
}
