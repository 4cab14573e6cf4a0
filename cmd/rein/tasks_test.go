package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/work"
)

func TestRunVerifyFailuresGoBackThenPass(t *testing.T) {
	dir := t.TempDir()
	// The first answer comes before the file exists; the check's failure
	// goes back, the model writes the file, and the second answer passes.
	script := writeScript(t, t.TempDir(), `{"text": "Done."}
{"tool_calls": [{"name": "write", "arguments": {"path": "ok.txt", "content": "fine\n"}}]}
{"text": "Now it is done."}
`)
	code, out, errOut := runCLI(t, "", "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", dir, "--verify", "grep -q fine ok.txt", "-o", "rein-json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var told int
	for _, m := range r.Messages {
		if m.Role == "user" && strings.Contains(m.Text(), "`grep -q fine ok.txt` exited with 2") {
			told++
		}
	}
	if r.Stop != "completed" || told != 1 || r.Text != "Now it is done." {
		t.Fatalf("stop %s, failure messages %d, text %q", r.Stop, told, r.Text)
	}
}

func TestRunContractUnmetExitStatus(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".rein"), 0o755)
	os.WriteFile(filepath.Join(dir, ".rein", "contract.json"), []byte(`{"max_retries": 1, "predicates": [{"type": "file", "path": "report.md"}]}`), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "a"}
{"text": "b"}
`)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "go")
	if code != 4 || !strings.Contains(errOut, "contract_unmet") || !strings.Contains(errOut, "report.md exists: it does not exist") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

func TestRunMalformedContractDoesNotStart(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "c.json")
	os.WriteFile(bad, []byte("{\n  \"predicates\": [\n    {\"type\": \"comand\", \"run\": \"make\"}\n  ]\n}\n"), 0o644)
	script := writeScript(t, t.TempDir(), `{"text": "should not be asked"}`)
	code, _, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "--contract", bad, "go")
	if code != 2 || !strings.Contains(errOut, bad+":3:") || !strings.Contains(errOut, `unknown type "comand"`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rein", "sessions")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".rein", "sessions"))
		if len(entries) > 0 {
			t.Fatal("a session was started with a malformed contract")
		}
	}
}

func TestRunRefusesEditsToTheContract(t *testing.T) {
	// Under .rein/ the permission gate already protects the file; a
	// contract elsewhere in the workspace is protected by the harness.
	dir := t.TempDir()
	contract := `{"predicates": [{"type": "final_text", "matches": "shipped"}]}`
	os.WriteFile(filepath.Join(dir, "task.json"), []byte(contract), 0o644)
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "write", "arguments": {"path": "task.json", "content": "{}"}}, {"name": "edit", "arguments": {"path": "./task.json", "edits": [{"old_text": "shipped", "new_text": "x"}]}}]}
{"text": "shipped"}
`)
	code, out, errOut := runCLI(t, "", "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", dir, "--contract", "task.json", "-o", "rein-json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	json.Unmarshal([]byte(out), &r)
	refused := 0
	for _, m := range r.Messages {
		if m.Role == "tool_result" && m.IsError && strings.Contains(m.Text(), "is the task's contract") {
			refused++
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "task.json"))
	if refused != 2 || string(b) != contract {
		t.Fatalf("refused %d, contract now %s", refused, b)
	}
}

func TestTasksCommand(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": [{"content": "parse input", "status": "in_progress", "activeForm": "Parsing input"}, {"content": "write output", "status": "pending", "activeForm": "Writing output"}]}}]}
{"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": [{"content": "parse input", "status": "completed", "activeForm": "Parsing input"}]}}]}
{"tool_calls": [{"name": "work_item_update", "arguments": {"id": "1", "status": "completed"}}]}
{"text": "Parsed."}
`)
	code, out, errOut := runCLI(t, "", "run", "-m", "faux", "--script", script, "-C", dir, "-o", "rein-json", "go")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r result
	json.Unmarshal([]byte(out), &r)
	refused := false
	for _, m := range r.Messages {
		if m.Role == "tool_result" && m.ToolName == "TodoWrite" && m.IsError && strings.Contains(m.Text(), "#2 write output") {
			refused = true
		}
	}
	if !refused {
		t.Fatal("a TodoWrite omitting an open item was not refused with the list")
	}
	code, out, errOut = runCLI(t, "", "tasks", "-C", dir)
	if code != 0 || !strings.Contains(out, "2 work items: 1 open (0 in progress), 1 completed") || !strings.Contains(out, "[pending] #2 write output") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", "tasks", "-C", dir, "--json")
	var list work.List
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != 2 || list[0].Status != work.Completed {
		t.Fatalf("--json: %v %q", err, out)
	}
}
