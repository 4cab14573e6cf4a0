package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/session"
)

// toolsGoneWorkspace makes a session in a fresh workspace whose skill
// and MCP server the model used, then removes both: the workspace no
// longer has the tools the session recorded.
func toolsGoneWorkspace(t *testing.T) (ws, path string, vars map[string]string) {
	t.Helper()
	ws = t.TempDir()
	skill := filepath.Join(ws, ".claude", "skills", "greet")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: greet\ndescription: says hello\n---\nSay hello.\n"), 0o644)
	const token = "tok-resume-7"
	ts := tokenServer(t, token)
	os.WriteFile(filepath.Join(ws, ".mcp.json"), fmt.Appendf(nil, `{"mcpServers": {"notes": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"}}}}`, ts.URL), 0o644)
	vars = map[string]string{"NOTES_TOKEN": token, "XDG_CONFIG_HOME": t.TempDir()}
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "skill", "arguments": {"name": "greet"}}, {"name": "mcp__notes__lookup", "arguments": {"key": "k1"}}]}
{"text": "Greeted and looked up."}
`)
	if code, _, errOut := runCLIVars(t, vars, "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "greet and look k1 up"); code != 0 {
		t.Fatalf("first run: %d %s", code, errOut)
	}
	path = latestSession(t, ws)
	log, _ := os.ReadFile(path)
	for _, want := range []string{`"skill"`, `"mcp__notes__lookup"`, "Say hello.", `note for {\"key\":\"k1\"}`} {
		if !strings.Contains(string(log), want) {
			t.Fatalf("the first run did not use every tool: no %s in the log", want)
		}
	}
	os.RemoveAll(filepath.Join(ws, ".claude"))
	os.Remove(filepath.Join(ws, ".mcp.json"))
	return ws, path, vars
}

// TestResumeWhenToolsAreGone: every way of continuing a session works
// when a skill and an MCP server it used are gone: the tools are dropped
// with a note, the log records it, and the earlier calls and results
// stay in the conversation.
func TestResumeWhenToolsAreGone(t *testing.T) {
	summary := `{"text": "## Goal\ngreet and look k1 up\n## Progress\ngreeted, looked k1 up"}` + "\n"
	for _, tc := range []struct {
		name   string
		args   func(ws, path, script string) []string
		prompt bool // a prompt runs, so the user is told
	}{
		{"run -c", func(ws, _, s string) []string {
			return []string{"run", "-m", "faux", "--script", s, "-C", ws, "-c", "and now?"}
		}, true},
		{"run --resume", func(ws, p, s string) []string {
			return []string{"run", "-m", "faux", "--script", s, "-C", ws, "--resume", p, "and now?"}
		}, true},
		{"rein -c -p", func(ws, _, s string) []string {
			return []string{"-m", "faux", "--script", s, "-C", ws, "-c", "-p", "and now?"}
		}, true},
		{"sessions resume", func(ws, p, s string) []string {
			return []string{"sessions", "resume", "-m", "faux", "--script", s, "-C", ws, p, "and now?"}
		}, true},
		{"sessions compact", func(ws, p, s string) []string {
			return []string{"sessions", "compact", "-m", "faux", "--script", s, "-C", ws, p}
		}, false},
		{"sessions handoff", func(ws, p, s string) []string {
			return []string{"sessions", "handoff", "-m", "faux", "--script", s, "-C", ws, p}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, path, vars := toolsGoneWorkspace(t)
			reply := `{"text": "Carrying on."}` + "\n"
			if !tc.prompt {
				reply = summary
			}
			script := writeScript(t, t.TempDir(), reply)
			code, out, errOut := runCLIVars(t, vars, tc.args(ws, path, script)...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
			}
			if strings.Contains(out+errOut, "unknown tool") {
				t.Fatalf("resume failed over the tool set:\n%s\n%s", out, errOut)
			}
			_, entries, _, err := session.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c := session.BuildContext(entries, session.LastLeaf(entries))
			calls := 0
			for _, m := range c.Messages {
				for _, call := range m.ToolCalls() {
					if call.Name == "skill" || call.Name == "mcp__notes__lookup" {
						calls++
					}
				}
			}
			if calls != 2 && !tc.prompt {
				// compact and handoff summarise; the log still holds the calls.
				calls = strings.Count(readFile(t, path), `"name":"mcp__notes__lookup"`) + strings.Count(readFile(t, path), `"name":"skill"`)
			}
			if calls < 2 {
				t.Fatalf("the earlier calls are gone from the conversation (%d)", calls)
			}
			if !tc.prompt {
				return
			}
			if !strings.Contains(out+errOut, "tools this session used no longer exist and were dropped: mcp__notes__lookup, skill") {
				t.Fatalf("no note on the dropped tools:\n%s\n%s", out, errOut)
			}
			gone := 0
			for _, e := range entries {
				if e.Type == session.TypeCustom && e.Kind == harness.KindToolsGone {
					gone++
				}
				if e.Type == session.TypeToolsChange && e.ID == entries[len(entries)-1].ID {
					t.Fatal("no turn after the tools change")
				}
			}
			if gone != 1 {
				t.Fatalf("%d %s entries, want 1", gone, harness.KindToolsGone)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTUIResumeWhenSkillIsGone: the terminal UI continues a session
// whose skill folder was removed, and says the skill is gone.
func TestTUIResumeWhenSkillIsGone(t *testing.T) {
	needTmux(t)
	dir := t.TempDir()
	skill := filepath.Join(dir, ".claude", "skills", "greet")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: greet\ndescription: says hello\n---\nSay hello.\n"), 0o644)
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "skill", "arguments": {"name": "greet"}}]}
{"text": "Greeted."}
`)
	if code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "greet"); code != 0 {
		t.Fatalf("first run: %d %s", code, errOut)
	}
	os.RemoveAll(filepath.Join(dir, ".claude"))
	env := []string{"TERM=xterm-256color", "XDG_STATE_HOME=" + t.TempDir()}
	s := startTmux(t, dir, 100, 30, env, "-c", "--model", "faux", "--script", writeScript(t, t.TempDir(), `{"text": "Carrying on."}`+"\n"))
	s.wait("Ask rein to do something")
	s.text("and now?")
	s.keys("Enter")
	s.wait("Carrying on.")
	if scr := s.screen(); !strings.Contains(strings.Join(strings.Fields(scr), " "), "no longer exist") {
		t.Fatalf("no note on the dropped skill:\n%s", scr)
	}
	s.keys("C-d")
	s.wait("[exit 0]")
}
