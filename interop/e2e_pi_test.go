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

// piSetup makes pi's directories in a temp home, with a model "mock"
// served by m.
func piSetup(t *testing.T, m *mockModel) (home string, env []string) {
	home = t.TempDir()
	agent := filepath.Join(home, "agent")
	os.MkdirAll(agent, 0o700)
	models := `{"providers":{"mock":{"baseUrl":"` + m.srv.URL + `/v1","api":"openai-completions","apiKey":"dummy",` +
		`"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},"models":[{"id":"mock-1","contextWindow":128000,"maxTokens":4096}]}}}`
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o600)
	return home, sandboxEnv(home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1")
}

func piReply(body []byte) mockReply {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "user" && strings.Contains(string(mustJSON(last.Content)), "read hello.txt") {
		return mockReply{Tool: "read", ToolArgs: `{"path":"hello.txt"}`}
	}
	if last.Role == "tool" {
		return mockReply{Text: "DONE: file read."}
	}
	return mockReply{Text: "DONE"}
}

// rein → pi: pi opens the export and its get_messages gives the same
// conversation: the active branch, with texts, tool calls and results.
func TestPiOpensExport(t *testing.T) {
	pi := program(t, "pi")
	m := newMockModel(t, piReply)
	home, env := piSetup(t, m)
	s, err := LoadSession(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Header.Cwd = home
	file := filepath.Join(home, "export.jsonl")
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Pi, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, buf.Bytes(), 0o600)
	lines := rpcSession(t, home, env, 1, []string{`{"id":"1","type":"get_messages"}`}, pi, "--mode", "rpc", "--provider", "mock", "--model", "mock-1", "--session", file)
	var resp struct {
		Success bool `json:"success"`
		Data    struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &resp); err != nil || !resp.Success {
		t.Fatalf("get_messages: %v %s", err, lines[0])
	}
	// pi's messages, read back, are rein's active branch.
	var got []shapeMsg
	r := &Report{}
	for _, raw := range resp.Data.Messages {
		msg, err := piToMessage(raw, r, lineRef{"rpc", 0})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, shapeOf(t, []session.Entry{{Type: session.TypeMessage, ID: "x", Message: msg}}, false)...)
	}
	want := shapeOf(t, s.Entries, false)
	if len(got) != len(want) {
		t.Fatalf("pi has %d messages, rein's branch %d:\n%s", len(got), len(want), lines[0])
	}
	for i := range want {
		if strings.Join(got[i].Texts, "|") != strings.Join(want[i].Texts, "|") || strings.Join(got[i].Calls, "|") != strings.Join(want[i].Calls, "|") ||
			got[i].Result != want[i].Result || got[i].Role != want[i].Role || got[i].IsError != want[i].IsError {
			t.Fatalf("message %d: pi %+v, rein %+v", i, got[i], want[i])
		}
	}
	// pi's own spelling of an edit call, as its tool takes it.
	if !strings.Contains(lines[0], `"name":"edit","arguments":{"edits":[{"newText":"end := i+1","oldText":"end := i"}],"path":"store/page.go"}`) {
		t.Fatalf("the edit call is not in pi's spelling: %s", lines[0])
	}

	// pi --export renders it as HTML.
	html := filepath.Join(home, "out.html")
	run(t, home, env, "", pi, "--export", file, html)
	page, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(page, []byte("<html")) {
		t.Fatalf("pi --export: %v %.200s", err, page)
	}
}

// pi → rein, and rein → pi → rein: pi writes a session against the mock
// model; it imports. pi then continues rein's export, and the result
// imports with the whole tree and pi's new turn.
func TestPiSessionsImport(t *testing.T) {
	pi := program(t, "pi")
	m := newMockModel(t, piReply)
	home, env := piSetup(t, m)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("Hello from the test!\n"), 0o600)
	dir := filepath.Join(home, "sessions")
	run(t, ws, env, "", pi, "--provider", "mock", "--model", "mock-1", "--session-dir", dir, "-p", "read hello.txt")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("pi wrote %v", files)
	}
	c, err := ReadFile(files[0], "")
	if err != nil {
		t.Fatal(err)
	}
	got := shapeOf(t, c.Entries, false)
	if len(got) != 4 || got[0].Texts[0] != "text:read hello.txt" || got[1].Calls[0] != `call_1 read {"path":"hello.txt"}` ||
		got[2].Result != "Hello from the test!\n" || got[3].Texts[0] != "text:DONE: file read." || len(c.Report.Dropped) != 0 {
		t.Fatalf("imported %+v\nreport %s", got, c.Report.Summary())
	}

	// rein → pi → rein.
	path := sample(t)
	_, orig, _, _ := session.ReadFile(path)
	s, _ := LoadSession(path)
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Pi, Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, "continued.jsonl")
	os.WriteFile(file, buf.Bytes(), 0o600)
	run(t, ws, env, "", pi, "--provider", "mock", "--model", "mock-1", "--session", file, "-p", "and now?")
	last := m.requests()[len(m.requests())-1]
	if !bytes.Contains(last, []byte("Why does TestPage fail?")) || !bytes.Contains(last, []byte("edited store/page.go")) {
		t.Fatalf("pi did not send the exported history: %s", last)
	}
	back, err := ReadFile(file, Pi)
	if err != nil {
		t.Fatal(err)
	}
	want := treeKeys(shapeOf(t, orig, true))
	gotKeys := treeKeys(shapeOf(t, back.Entries, true))
	// The same tree, plus pi's turn under the leaf.
	if len(gotKeys) != len(want)+2 {
		t.Fatalf("%d messages after pi, want %d + 2:\n%q", len(gotKeys), len(want), gotKeys)
	}
	for _, k := range want {
		if !containsString(gotKeys, k) {
			t.Fatalf("lost in the round trip: %s", k)
		}
	}
	ctx := session.BuildContext(back.Entries, session.LastLeaf(back.Entries))
	n := len(ctx.Messages)
	if ctx.Messages[n-2].Text() != "and now?" || ctx.Messages[n-1].Text() != "DONE" || ctx.Messages[n-3].Text() != "Fixed." {
		t.Fatalf("the branch pi continued: %q %q %q", ctx.Messages[n-3].Text(), ctx.Messages[n-2].Text(), ctx.Messages[n-1].Text())
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
