package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeScript(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const readScript = `{"text": "Reading.", "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
{"text": "The file says hello."}
`

func TestRunText(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	code, out, errOut := runCLI(t, "", "run", "--model", "faux", "--script", script, "-C", dir, "what does a.txt say?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "The file says hello.") || !strings.Contains(errOut, "→ read a.txt") {
		t.Fatalf("stdout %q\nstderr %q", out, errOut)
	}
}

func TestRunJSON(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "-o", "json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Stop != "completed" || r.Text != "The file says hello." || r.Turns != 2 || len(r.Messages) != 4 || r.Messages[0].Text() != "go" || !strings.Contains(r.Messages[2].Text(), "hello") || !strings.HasSuffix(r.Session, ".jsonl") {
		t.Fatalf("result = %+v", r)
	}
}

func TestRunStreamJSON(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	script := writeScript(t, t.TempDir(), readScript)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "-o", "rein-stream-json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var types []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Stop string `json:"stop"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, ev.Type)
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"agent_start", "message_update", "tool_start", "tool_end", "turn_end", "agent_end"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s event in %s", want, joined)
		}
	}
	if types[len(types)-1] != "agent_end" {
		t.Fatalf("last event %s", types[len(types)-1])
	}
}

func TestRunPromptFromStdin(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"text": "ok"}`)
	code, out, errOut := runCLI(t, "piped prompt", "run", "-m", "faux", "--script", script, "-C", t.TempDir(), "-")
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeScript(t, t.TempDir(), `{"txt": "typo"}`)
	short := writeScript(t, t.TempDir(), `{"text": "Looking.", "tool_calls": [{"name": "ls", "arguments": {}}]}`)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no model", []string{"run", "-C", dir, "hi"}, 2, "no model is configured"},
		{"no model suggests the demo", []string{"run", "-C", dir, "hi"}, 2, "rein demo"},
		{"faux without script", []string{"run", "-m", "faux", "-C", dir, "hi"}, 2, "add --script FILE"},
		{"bad script", []string{"run", "-m", "faux", "--script", bad, "-C", dir, "hi"}, 2, `script.jsonl:1: json: unknown field "txt"`},
		{"bad output", []string{"run", "-m", "faux", "--script", short, "-o", "xml", "-C", dir, "hi"}, 2, "unknown output format"},
		{"bad tools", []string{"run", "-m", "faux", "--script", short, "--tools", "nope", "-C", dir, "hi"}, 2, `unknown tool or toolset "nope"`},
		{"bad workdir", []string{"run", "-m", "faux", "--script", short, "-C", filepath.Join(dir, "missing"), "hi"}, 2, "does not exist"},
		{"script runs out", []string{"run", "-m", "faux", "--script", short, "-C", dir, "hi"}, 1, "no reply left"},
		{"no prompt", []string{"run", "-m", "faux", "--script", short, "-C", dir, "-"}, 2, "no prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d (want %d), stderr %q, want %q", code, tt.code, errOut, tt.want)
			}
			if n := strings.Count(errOut, tt.want); n != 1 {
				t.Fatalf("the error is printed %d times:\n%s", n, errOut)
			}
		})
	}
}

func TestRunStrict(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"text": "Done, I think."}
{"tool_calls": [{"name": "work_complete", "arguments": {"summary": "checked everything"}}]}
`)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", t.TempDir(), "--strict", "-o", "json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var reminded, completed bool
	for _, m := range r.Messages {
		if m.Role == "user" && strings.Contains(m.Text(), "work_complete") {
			reminded = true
		}
		if m.Role == "tool_result" && m.ToolName == "work_complete" && !m.IsError {
			completed = true
		}
	}
	if r.Stop != "completed" || !reminded || !completed {
		t.Fatalf("stop %s, reminded %v, completed %v", r.Stop, reminded, completed)
	}
	// Without the call, the reminders run out and the run says so.
	script = writeScript(t, t.TempDir(), `{"text": "a"}
{"text": "b"}
{"text": "c"}
`)
	code, _, errOut = runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", t.TempDir(), "--strict", "go")
	if code != 1 || !strings.Contains(errOut, "work_incomplete") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// With stdout piped, the progress goes to stderr and stdout holds only
// the final answer.
func TestRunPipedPrintsOnlyTheAnswer(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"text": "Looking first.", "tool_calls": [{"name": "ls", "arguments": {}}]}
{"text": "The answer."}`)
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, piped: true}
	code := execute(context.Background(), e, []string{"run", "-m", "faux", "--script", script, "-C", ws, "--no-session", "go"})
	if code != 0 || out.String() != "The answer.\n" {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	if !strings.Contains(errOut.String(), "Looking first.") || !strings.Contains(errOut.String(), "→ ls") {
		t.Fatalf("progress missing from stderr: %q", errOut.String())
	}
}
