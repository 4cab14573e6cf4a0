package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// shellProbe is a Messages API server that answers a prompt with one call
// of the shell tool running command, then with text, and keeps the
// tool results it was sent, in order.
type shellProbe struct {
	command string
	mu      sync.Mutex
	results []string
}

func (p *shellProbe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, ok := readMessagesRequest(w, r)
	if !ok {
		return
	}
	if !req.Stream {
		fmt.Fprintf(w, `{"id":"msg_x","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`, req.Model)
		return
	}
	shell := ""
	for _, t := range req.Tools {
		if t.Name == "Bash" || t.Name == "bash" {
			shell = t.Name
		}
	}
	answered := false
	if n := len(req.Messages); n > 0 {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(req.Messages[n-1].Content, &blocks)
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			answered = true
			var text string
			if json.Unmarshal(b.Content, &text) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				json.Unmarshal(b.Content, &parts)
				for _, p := range parts {
					text += p.Text
				}
			}
			p.mu.Lock()
			p.results = append(p.results, text)
			p.mu.Unlock()
		}
	}
	command := ""
	if shell != "" && !answered {
		command = p.command
	}
	if command == "" {
		streamShellOrText(w, req.Model, shell, "")
		return
	}
	// Each call has an id of its own: a resumed conversation holds the
	// earlier one.
	var buf strings.Builder
	streamShellOrText(&textWriter{&buf}, req.Model, shell, command)
	w.Header().Set("content-type", "text/event-stream")
	io.WriteString(w, strings.Replace(buf.String(), `"toolu_01"`, fmt.Sprintf(`"toolu_%02d"`, len(req.Messages)), 1))
}

// textWriter is an http.ResponseWriter that keeps the body.
type textWriter struct{ b *strings.Builder }

func (t *textWriter) Header() http.Header         { return http.Header{} }
func (t *textWriter) Write(p []byte) (int, error) { return t.b.Write(p) }
func (t *textWriter) WriteHeader(int)             {}

func (p *shellProbe) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.results...)
}

// A SessionStart hook that writes export lines to $CLAUDE_ENV_FILE gives
// the later shell commands those variables, in the real Claude Code and
// in rein alike: the same workspace, run and then resumed by each, sends
// the model the same values from the shell tool (the file of the first
// run still counts after the resume, the resume's hook adds to it).
func TestClaudeCodeEnvFile(t *testing.T) {
	bin := claudeCodeBin(t)
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	hook := `src=$(grep -o '"source":"[a-z]*"' | cut -d'"' -f4); ` +
		`printf 'export SRC_%s=1 LAST=%s\nexport FROM_HOME="$HOME/bin"\n' "$src" "$src" >> "$CLAUDE_ENV_FILE"`
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
	os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600)
	const command = `echo "startup=[$SRC_startup] resume=[$SRC_resume] last=[$LAST] home=[$FROM_HOME]"`
	args := []string{"--output-format", "json", "--allowedTools", "Bash"}
	sessionID := func(who, out string) string {
		var res struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.SessionID == "" {
			t.Fatalf("%s printed no session_id: %v\n%s", who, err, out)
		}
		return res.SessionID
	}

	cc := &shellProbe{command: command}
	srv := httptest.NewServer(cc)
	defer srv.Close()
	claude := func(extra ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(extra, args...)...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", extra, err, out)
		}
		return string(out)
	}
	id := sessionID("claude", claude("-p", "run it"))
	claude("-p", "again", "--resume", id)

	// rein's commands inherit its process's environment.
	t.Setenv("HOME", home)
	rp := &shellProbe{command: command}
	rsrv := httptest.NewServer(rp)
	defer rsrv.Close()
	vars := map[string]string{"HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir(), "REIN_TRUST_WORKSPACE": "1"}
	rein := func(extra ...string) string {
		code, out, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
			append(append(extra, args...), "-C", ws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", rsrv.URL)...)
		if code != 0 {
			t.Fatalf("rein %v: exit %d\n%s\n%s", extra, code, out, errOut)
		}
		return out
	}
	rid := sessionID("rein", rein("-p", "run it"))
	rein("-p", "again", "--resume", rid)

	want := []string{
		"startup=[1] resume=[] last=[startup] home=[" + home + "/bin]",
		"startup=[1] resume=[1] last=[resume] home=[" + home + "/bin]",
	}
	got, rgot := cc.seen(), rp.seen()
	if len(got) != 2 || len(rgot) != 2 {
		t.Fatalf("tool results: Claude Code %q, rein %q; want two each", got, rgot)
	}
	for i, w := range want {
		if strings.TrimSpace(got[i]) != w {
			t.Fatalf("Claude Code's shell printed %q, want %q", got[i], w)
		}
		// rein's result ends with its status line (exit code: 0).
		if first, _, _ := strings.Cut(rgot[i], "\n"); first != w {
			t.Errorf("rein's shell printed %q; Claude Code's %q", rgot[i], got[i])
		}
	}
}

// Secrets exported through CLAUDE_ENV_FILE: a value that looks like a key
// reaches bash but is masked in everything rein writes (its output and
// the session log), and a name that looks like a secret is held back
// from bash with a note, as for rein's own environment.
func TestEnvFileSecrets(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	key := "ghp_" + strings.Repeat("Q7w2", 9)
	hook := `printf 'export DEPLOY_HINT=` + key + `\nexport SERVICE_PASSWORD=hunter2hunter2\n' >> "$CLAUDE_ENV_FILE"`
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}
	rp := &shellProbe{command: `echo "hint=$DEPLOY_HINT pw=[$SERVICE_PASSWORD]"`}
	srv := httptest.NewServer(rp)
	defer srv.Close()
	vars := map[string]string{"HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir()}
	code, out, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		"-p", "go", "--output-format", "stream-json", "--allowedTools", "Bash", "-C", ws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := rp.seen(); len(got) != 1 || !strings.Contains(got[0], "pw=[]") || !strings.Contains(got[0], "hint=") {
		t.Fatalf("the shell printed %q", got)
	}
	if !strings.Contains(errOut, "SERVICE_PASSWORD, held back from bash") {
		t.Errorf("no note about the held-back variable:\n%s", errOut)
	}
	logs, _ := filepath.Glob(filepath.Join(ws, ".rein", "sessions", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("session logs %v", logs)
	}
	log, _ := os.ReadFile(logs[0])
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "the session log": string(log)} {
		if strings.Contains(text, key) || strings.Contains(text, "hunter2hunter2") {
			t.Errorf("%s holds a secret:\n%s", name, text)
		}
	}
	if !strings.Contains(out, "hint=[REDACTED]") {
		t.Errorf("stdout does not show the masked value:\n%s", out)
	}
}

// A CLAUDE_ENV_FILE already in the harness's own environment is read for
// every shell command, before the files the SessionStart hooks write (a
// hook's assignment wins), in the real Claude Code and in rein alike. The
// hooks still get files of their own: the preset file is left as it was.
func TestClaudeCodePresetEnvFile(t *testing.T) {
	bin := claudeCodeBin(t)
	const presetText = "export PRESET=fromfile\nexport SHARED=preset\n"
	const command = `echo "preset=[$PRESET] hooked=[$HOOKED] shared=[$SHARED]"; [ "$CLAUDE_ENV_FILE" = "$WANT_FILE" ] && echo "env file kept"`
	hook := `printf 'export HOOKED=1\nexport SHARED=hook\n' >> "$CLAUDE_ENV_FILE"`
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
	// setup makes a workspace, a home and a preset file for one program.
	setup := func() (ws, home, preset string) {
		ws, home = t.TempDir(), t.TempDir()
		os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
		os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
		if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), settings, 0o644); err != nil {
			t.Fatal(err)
		}
		preset = filepath.Join(t.TempDir(), "preset.sh")
		if err := os.WriteFile(preset, []byte(presetText), 0o644); err != nil {
			t.Fatal(err)
		}
		return ws, home, preset
	}

	ws, home, preset := setup()
	cfg, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{ws: map[string]any{"hasTrustDialogAccepted": true}}})
	os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600)
	cc := &shellProbe{command: command}
	srv := httptest.NewServer(cc)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "go", "--output-format", "json", "--allowedTools", "Bash")
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_ENV_FILE=" + preset, "WANT_FILE=" + preset,
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(preset); string(b) != presetText {
		t.Fatalf("Claude Code's hook wrote to the preset file: %q", b)
	}

	rws, rhome, rpreset := setup()
	// rein's commands inherit its process's environment.
	t.Setenv("HOME", rhome)
	t.Setenv("CLAUDE_ENV_FILE", rpreset)
	t.Setenv("WANT_FILE", rpreset)
	rp := &shellProbe{command: command}
	rsrv := httptest.NewServer(rp)
	defer rsrv.Close()
	vars := map[string]string{"HOME": rhome, "ANTHROPIC_API_KEY": "sk-ant-test", "XDG_CONFIG_HOME": t.TempDir(), "REIN_TRUST_WORKSPACE": "1", "CLAUDE_ENV_FILE": rpreset}
	code, out, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		"-p", "go", "--output-format", "json", "--allowedTools", "Bash", "-C", rws, "--model", "anthropic/claude-sonnet-5-5", "--base-url", rsrv.URL)
	if code != 0 {
		t.Fatalf("rein: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(rpreset); string(b) != presetText {
		t.Errorf("rein's hook wrote to the preset file: %q", b)
	}

	got, rgot := cc.seen(), rp.seen()
	if len(got) != 1 || len(rgot) != 1 {
		t.Fatalf("tool results: Claude Code %q, rein %q; want one each", got, rgot)
	}
	const want = "preset=[fromfile] hooked=[1] shared=[hook]\nenv file kept"
	if strings.TrimSpace(got[0]) != want {
		t.Fatalf("Claude Code's shell printed %q, want %q", got[0], want)
	}
	// rein's result ends with its status line (exit code: 0).
	if !strings.HasPrefix(rgot[0], want+"\n") {
		t.Errorf("rein's shell printed %q; Claude Code's %q", rgot[0], got[0])
	}
}
