package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rein → Claude Code → codex: codex's own importer of Claude Code
// sessions (app-server's externalAgentConfig/detect and
// externalAgentConfig/import with a SESSIONS item) finds rein's Claude
// Code export installed under ~/.claude/projects, makes a codex thread of
// it, and thread/read shows rein's user and assistant texts (codex turns
// the tool calls and results into text).
func TestCodexImportsClaudeExport(t *testing.T) {
	codex := program(t, "codex")
	m := newMockModel(t, codexReply)
	home, _, env := codexSetup(t, m)
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	s, err := LoadSession(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, Claude, Options{}); err != nil {
		t.Fatal(err)
	}
	file, err := Env{Home: home, Getenv: func(string) string { return "" }}.InstallPath(s, Claude, s.Header.Created)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, buf.Bytes(), 0o600)
	hello := []string{`{"method":"initialize","id":1,"params":{"clientInfo":{"name":"rein-test","version":"1"}}}`, `{"method":"initialized"}`}

	// The sample is older than codex's default window for sessions to
	// bring over, hence maxSessionAgeDays.
	wsJSON, _ := json.Marshal(ws)
	lines := rpcSessionMatch(t, ws, env, 2, `"id":`, append(hello,
		`{"method":"externalAgentConfig/detect","id":2,"params":{"includeHome":true,"cwds":[`+string(wsJSON)+`],"maxSessionAgeDays":36500}}`), codex, "app-server")
	var detect struct {
		Result struct {
			Items []json.RawMessage `json:"items"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &detect); err != nil {
		t.Fatalf("detect: %v %s", err, clipOut(lines[1]))
	}
	var item json.RawMessage
	for _, it := range detect.Result.Items {
		var v struct {
			ItemType string `json:"itemType"`
			Details  struct {
				Sessions []struct {
					Path string `json:"path"`
				} `json:"sessions"`
			} `json:"details"`
		}
		_ = json.Unmarshal(it, &v)
		for _, ss := range v.Details.Sessions {
			if v.ItemType == "SESSIONS" && ss.Path == file {
				item = it
			}
		}
	}
	if item == nil {
		t.Fatalf("codex did not find rein's export %s: %s", file, clipOut(lines[1]))
	}

	lines = rpcSessionMatch(t, ws, env, 1, `"externalAgentConfig/import/completed"`, append(hello,
		`{"method":"externalAgentConfig/import","id":2,"params":{"migrationItems":[`+string(item)+`]}}`), codex, "app-server")
	var done struct {
		Params struct {
			Results []struct {
				Successes []struct {
					Source string `json:"source"`
					Target string `json:"target"`
				} `json:"successes"`
				Failures []json.RawMessage `json:"failures"`
			} `json:"itemTypeResults"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &done); err != nil || len(done.Params.Results) != 1 ||
		len(done.Params.Results[0].Failures) > 0 || len(done.Params.Results[0].Successes) != 1 || done.Params.Results[0].Successes[0].Source != file {
		t.Fatalf("import: %v %s", err, clipOut(lines[0]))
	}
	id := done.Params.Results[0].Successes[0].Target

	lines = rpcSessionMatch(t, ws, env, 2, `"id":`, append(hello,
		`{"method":"thread/read","id":2,"params":{"threadId":"`+id+`","includeTurns":true}}`), codex, "app-server")
	var read struct {
		Error any `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &read); err != nil || read.Error != nil {
		t.Fatalf("thread/read: %v %s", err, clipOut(lines[1]))
	}
	// rein's texts, and a call and a result as codex writes them. (codex
	// reads the file in line order: rein's other branch, written before
	// the active one, shows as a turn too.)
	for _, w := range []string{"Why does TestPage fail?", "Let me look.", "The slice end is wrong.", "Fix it.", "Fixed.", "go test ./store", "--- FAIL: TestPage"} {
		if !strings.Contains(lines[1], w) {
			t.Errorf("thread/read lacks %q:\n%s", w, clipOut(lines[1]))
		}
	}
}
