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

// codexSetup makes CODEX_HOME in a temp home with a model provider
// "mock" served by m.
func codexSetup(t *testing.T, m *mockModel) (home, codexHome string, env []string) {
	home = t.TempDir()
	codexHome = filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	cfg := `model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "` + m.srv.URL + `/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600)
	return home, codexHome, sandboxEnv(home, "CODEX_HOME="+codexHome, "MOCK_API_KEY=dummy", "RUST_LOG=error")
}

func codexReply(body []byte) mockReply {
	var req struct {
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	last := req.Input[len(req.Input)-1]
	if bytes.Contains(last, []byte("function_call_output")) {
		return mockReply{Text: "DONE: file read."}
	}
	if bytes.Contains(last, []byte("read hello.txt")) {
		return mockReply{Tool: "exec_command", ToolArgs: `{"cmd":"cat hello.txt"}`}
	}
	return mockReply{Text: "DONE"}
}

// codex → rein: the rollout codex exec writes against the mock imports
// with the command as rein's bash and its output as the result.
func TestCodexRolloutImports(t *testing.T) {
	codex := program(t, "codex")
	m := newMockModel(t, codexReply)
	home, codexHome, env := codexSetup(t, m)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("Hello from the test!\n"), 0o600)
	run(t, ws, env, "", codex, "exec", "--skip-git-repo-check", "read hello.txt")
	found, err := Env{Home: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}}.Latest(ws, Codex)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(found.Path, "")
	if err != nil {
		t.Fatal(err)
	}
	got := shapeOf(t, c.Entries, false)
	if len(got) != 4 || got[0].Texts[0] != "text:read hello.txt" || got[1].Calls[0] != `call_mock1 bash {"command":"cat hello.txt"}` ||
		!strings.Contains(got[2].Result, "Hello from the test!") || got[3].Texts[0] != "text:DONE: file read." {
		t.Fatalf("imported %+v\nreport %s", got, c.Report.Summary())
	}
	if c.Source.Version != "0.171.0" || c.Cwd != ws || c.Source.ID == "" {
		t.Fatalf("source %+v cwd %s", c.Source, c.Cwd)
	}
}

// rein → codex: the rollout, installed in CODEX_HOME, is read by codex
// app-server's thread/read, which rebuilds from it one turn per user
// message with the user and agent messages. codex keeps such a rollout
// in its legacy history mode, whose records hold no command items; after
// codex's own migrate-rollouts, thread/read rebuilds the command items
// too, from the calls and outputs rein wrote.
func TestCodexAppServerReadsExport(t *testing.T) {
	codex := program(t, "codex")
	m := newMockModel(t, codexReply)
	home, codexHome, env := codexSetup(t, m)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	path := sample(t)
	_, orig, _, _ := session.ReadFile(path)
	s, _ := LoadSession(path)
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Codex, Options{}); err != nil {
		t.Fatal(err)
	}
	file, err := Env{Home: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}}.InstallPath(s, Codex, s.Header.Created)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, buf.Bytes(), 0o600)
	id := CodexThreadID(s.Header.ID)
	want := []string{"Why does TestPage fail?", "agentMessage:Let me look.", "agentMessage:The slice end is wrong.", "Fix it.", "agentMessage:Fixed."}
	readThread(t, codex, ws, env, id, orig, want)
	run(t, ws, env, "", codex, "migrate-rollouts", "--apply", "--thread", id)
	readThread(t, codex, ws, env, id, orig, append(want, "commandExecution:/bin/bash -lc 'go test ./store'"))
}

// readThread reads the thread id through codex app-server and checks it
// holds two turns and every item of want.
func readThread(t *testing.T, codex, ws string, env []string, id string, orig []session.Entry, want []string) {
	t.Helper()
	lines := rpcSessionMatch(t, ws, env, 2, `"id":`, []string{
		`{"method":"initialize","id":1,"params":{"clientInfo":{"name":"rein-test","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"method":"thread/read","id":2,"params":{"threadId":"` + id + `","includeTurns":true}}`,
	}, codex, "app-server")
	var resp struct {
		Result struct {
			Thread struct {
				Turns []struct {
					Items []map[string]any `json:"items"`
				} `json:"turns"`
			} `json:"thread"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &resp); err != nil || resp.Error != nil {
		t.Fatalf("thread/read: %v %s", err, clipOut(lines[1]))
	}
	var kinds []string
	for _, turn := range resp.Result.Thread.Turns {
		for _, it := range turn.Items {
			k, _ := it["type"].(string)
			switch k {
			case "userMessage":
				content, _ := json.Marshal(it["content"])
				k += ":" + string(content)
			case "agentMessage":
				k += ":" + it["text"].(string)
			case "commandExecution":
				k += ":" + it["command"].(string)
			}
			kinds = append(kinds, k)
		}
	}
	got := strings.Join(kinds, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Fatalf("thread/read lacks %q (rein's branch %d messages):\n%s\n%s", w, len(shapeOf(t, orig, false)), got, clipOut(lines[1]))
		}
	}
	if len(resp.Result.Thread.Turns) != 2 {
		t.Fatalf("%d turns, want 2 (one per user message):\n%s", len(resp.Result.Thread.Turns), got)
	}
}
