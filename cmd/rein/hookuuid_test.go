package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHookSessionIDIsAUUIDAcrossResume: hooks receive session_id as a
// UUID, as Claude Code sends it, and the same one when the session is
// continued in another run.
func TestHookSessionIDIsAUUIDAcrossResume(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	logf := filepath.Join(t.TempDir(), "hooks.jsonl")
	hook := map[string]any{"hooks": []map[string]string{{"type": "command", "command": "cat >> " + logf + "; echo >> " + logf}}}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{hook}, "UserPromptSubmit": []any{hook}}})
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), settings, 0o644)
	vars := map[string]string{"HOME": home}
	for _, args := range [][]string{{"p1"}, {"-c", "p2"}} {
		script := writeScript(t, t.TempDir(), `{"text": "ok"}`+"\n")
		all := append([]string{"run", "-m", "faux", "--script", script, "-C", ws}, args...)
		if code, _, errOut := runCLIVars(t, vars, all...); code != 0 {
			t.Fatalf("rein %v: exit %d\n%s", all, code, errOut)
		}
	}
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatalf("no hook ran: %v", err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	var ids, events []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var in struct {
			SessionID string `json:"session_id"`
			Event     string `json:"hook_event_name"`
			Source    string `json:"source"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook stdin %q: %v", line, err)
		}
		if !uuid.MatchString(in.SessionID) {
			t.Errorf("%s: session_id %q is not a UUID", in.Event, in.SessionID)
		}
		ids = append(ids, in.SessionID)
		events = append(events, in.Event+":"+in.Source)
	}
	if want := []string{"SessionStart:startup", "UserPromptSubmit:", "SessionStart:resume", "UserPromptSubmit:"}; strings.Join(events, " ") != strings.Join(want, " ") {
		t.Fatalf("hooks ran for %v, want %v", events, want)
	}
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("the session_id changed across the resume: %v", ids)
		}
	}
}
