package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// envProbe is a Messages API server that has the shell tool print three
// variables and keeps what the tool returned.
type envProbe struct {
	mu     sync.Mutex
	result string
}

func (p *envProbe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, ok := readMessagesRequest(w, r)
	if !ok {
		return
	}
	shell := ""
	for _, t := range req.Tools {
		if t.Name == "Bash" || t.Name == "bash" {
			shell = t.Name
		}
	}
	answered := false
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				answered = true
				p.mu.Lock()
				p.result = string(b.Content)
				p.mu.Unlock()
			}
		}
	}
	if !req.Stream {
		fmt.Fprintf(w, `{"id":"msg_x","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, req.Model)
		return
	}
	command := ""
	if shell != "" && !answered {
		command = "printenv FROM_USER FROM_PROJECT BOTH"
	}
	streamShellOrText(w, req.Model, shell, command)
}

func (p *envProbe) seen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.result
}

// The settings files' env (the user's and the trusted project's, the
// project winning) reaches the shell tool as it does in Claude Code: the
// same settings, run by the real Claude Code and by rein, print the same
// values.
func TestClaudeCodeSettingsEnv(t *testing.T) {
	bin := claudeCodeBin(t)
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	write := func(path, body string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"env": {"FROM_USER": "user-value", "BOTH": "user"}}`)
	write(filepath.Join(ws, ".claude", "settings.json"), `{"env": {"FROM_PROJECT": "project-value", "BOTH": "project"}}`)
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
	write(filepath.Join(home, ".claude.json"), string(cfg))
	args := []string{"-p", "run it", "--allowedTools", "Bash(printenv:*)"}

	cc := &envProbe{}
	srv := httptest.NewServer(cc)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}

	rp := &envProbe{}
	rsrv := httptest.NewServer(rp)
	defer rsrv.Close()
	vars := map[string]string{"HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir(), "REIN_TRUST_WORKSPACE": "1"}
	code, out, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		append(args, "-C", ws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", rsrv.URL)...)
	if code != 0 {
		t.Fatalf("rein: exit %d\n%s\n%s", code, out, errOut)
	}
	const want = `user-value\nproject-value\nproject`
	if !strings.Contains(cc.seen(), want) {
		t.Fatalf("Claude Code's shell printed %s, want %s", cc.seen(), want)
	}
	if !strings.Contains(rp.seen(), want) {
		t.Errorf("rein's shell printed %s; Claude Code's %s", rp.seen(), cc.seen())
	}
}

// The MCP servers Claude Code keeps in ~/.claude.json (the user's and
// this directory's) are the ones rein offers: `claude mcp list` and
// `rein mcp list` name the same servers; another project's stay out.
func TestClaudeCodeMCPServersFromClaudeJSON(t *testing.T) {
	bin := claudeCodeBin(t)
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true,
		"mcpServers": map[string]any{"userfs": map[string]any{"type": "stdio", "command": "/bin/false", "args": []string{}}},
		"projects": map[string]any{
			ws:           map[string]any{"hasTrustDialogAccepted": true, "mcpServers": map[string]any{"localtool": map[string]any{"type": "stdio", "command": "/bin/true", "args": []string{"x"}}}},
			"/elsewhere": map[string]any{"mcpServers": map[string]any{"other": map[string]any{"command": "/bin/true"}}},
		}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "mcp", "list")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude mcp list: %v\n%s", err, out)
	}
	names := func(s string) []string {
		var ns []string
		for _, n := range []string{"userfs", "localtool", "other"} {
			if strings.Contains(s, n) {
				ns = append(ns, n)
			}
		}
		return ns
	}
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": t.TempDir()}
	code, rout, rerr := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } }, "mcp", "list", "-C", ws)
	if code != 0 && code != 1 {
		t.Fatalf("rein mcp list: exit %d\n%s\n%s", code, rout, rerr)
	}
	cc, rn := names(string(out)), names(rout)
	if strings.Join(cc, ",") != "userfs,localtool" {
		t.Fatalf("Claude Code lists %v:\n%s", cc, out)
	}
	if strings.Join(rn, ",") != strings.Join(cc, ",") {
		t.Errorf("rein lists %v, Claude Code %v:\n%s", rn, cc, rout)
	}
}
