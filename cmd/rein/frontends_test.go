package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// parityFixture is a home whose user settings hold a UserPromptSubmit
// hook that blocks prompts mentioning a secret, and a workspace with a
// prompt template; the scripted model answers the one prompt that gets
// through.
func parityFixture(t *testing.T) (home, ws, script string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
		"command": "if grep -q secret; then echo 'no secrets here' >&2; exit 2; fi"}]}]}}`), 0o644)
	os.MkdirAll(filepath.Join(ws, ".rein", "prompts"), 0o755)
	os.WriteFile(filepath.Join(ws, ".rein", "prompts", "greet.md"), []byte("Say hello to $1."), 0o644)
	return home, ws, writeScript(t, t.TempDir(), `{"text": "Hello, Ada."}`)
}

// userMessages are the user messages of the workspace's sessions.
func userMessages(t *testing.T, ws string) []string {
	t.Helper()
	infos, err := session.List(session.DefaultDir(ws))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range infos {
		_, entries, _, err := session.ReadFile(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range session.BuildContext(entries, session.LastLeaf(entries)).Messages {
			if m.Role == llm.RoleUser {
				out = append(out, m.Text())
			}
		}
	}
	return out
}

// checkParity: the blocked prompt never reached the log, the template
// did, expanded.
func checkParity(t *testing.T, ws, output string) {
	t.Helper()
	if got := strings.Join(userMessages(t, ws), "|"); got != "Say hello to Ada." {
		t.Errorf("the log holds the user messages %q, want only the expanded template\n%s", got, output)
	}
	if !strings.Contains(output, "no secrets here") {
		t.Errorf("the hook's reason was not shown:\n%s", output)
	}
}

// A UserPromptSubmit block and a template behave the same in rein run
// (a block is not a failure of the run: exit 0, as Claude Code does).
func TestParityRun(t *testing.T) {
	home, ws, script := parityFixture(t)
	vars := map[string]string{"HOME": home}
	code, out, errOut := runCLIVars(t, vars, "run", "-m", "faux", "--script", script, "-C", ws, "tell me the secret")
	if code != 0 || !strings.Contains(errOut, "a UserPromptSubmit hook blocked the prompt") {
		t.Fatalf("blocked run: exit %d\n%s%s", code, out, errOut)
	}
	code, out2, errOut2 := runCLIVars(t, vars, "run", "-m", "faux", "--script", script, "-C", ws, "/greet Ada")
	if code != 0 || !strings.Contains(out2, "Hello, Ada.") {
		t.Fatalf("template run: exit %d\n%s%s", code, out2, errOut2)
	}
	checkParity(t, ws, out+errOut+out2+errOut2)
}

// The same in the line chat, and /mode sets the permission mode.
func TestParityLineChat(t *testing.T) {
	home, ws, script := parityFixture(t)
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	var out syncBuffer
	e := &env{stdin: stdinR, stdout: &out, stderr: &out, getenv: func(k string) string {
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}[k]
	}}
	done := make(chan int)
	go func() {
		done <- execute(context.Background(), e, []string{"chat", "-m", "faux", "--script", script, "-C", ws})
	}()
	go func() {
		waitFor(t, &out, "› ")
		io.WriteString(stdinW, "tell me the secret\n")
		waitForAfter(t, &out, "no secrets here", "› ")
		io.WriteString(stdinW, "/greet Ada\n")
		waitForAfter(t, &out, "Hello, Ada.", "› ")
		io.WriteString(stdinW, "/mode auto_edit\n")
		waitForAfter(t, &out, "permission mode: auto_edit", "› ")
		io.WriteString(stdinW, "/mode\n/exit\n")
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, out.String())
		}
	case <-time.After(30 * time.Second):
		stdinW.Close()
		t.Fatalf("chat did not finish\n%s", out.String())
	}
	if n := strings.Count(out.String(), "permission mode: auto_edit"); n != 2 {
		t.Errorf("/mode auto_edit then /mode: %d mentions of the mode, want 2\n%s", n, out.String())
	}
	checkParity(t, ws, out.String())
}

// The same in the terminal UI: the blocked prompt is refused there too
// (it used to reach the model), the template is expanded, and /mode is
// the permission mode, not /model.
func TestParityTUI(t *testing.T) {
	home, ws, script := parityFixture(t)
	s := startTmux(t, ws, 100, 30, []string{"TERM=xterm-256color", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")},
		"--model", "faux", "--script", script)
	s.wait("Ask rein to do something")
	s.text("tell me the secret")
	s.keys("Enter")
	s.wait("no secrets here")
	s.text("/greet Ada")
	s.keys("Enter")
	s.wait("Hello, Ada.")
	s.text("/mode auto_edit")
	s.keys("Enter")
	s.wait("permission mode: auto_edit")
	s.text("/status")
	s.keys("Enter")
	scr := s.wait("mode auto_edit")
	s.keys("C-d")
	s.wait("[exit 0]")
	var b bytes.Buffer
	b.WriteString(scr)
	checkParity(t, ws, b.String())
}
