package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "demo", "--dir", dir)
	if code != 0 {
		t.Fatalf("demo exit %d\n%s\n%s", code, out, errOut)
	}
	greet, err := os.ReadFile(filepath.Join(dir, "greet.sh"))
	if err != nil || !strings.Contains(string(greet), `echo "Hello, `) {
		t.Fatalf("greet.sh not fixed: %s %v", greet, err)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, ".rein", "output", "*.log"))
	if len(saved) == 0 {
		t.Fatal("the long output was not saved under .rein/output")
	}
	log, _ := os.ReadFile(saved[0])
	if !strings.Contains(string(log), "ok 1503") || !strings.Contains(string(log), "1503 checks, 0 failed") {
		t.Fatalf("saved output is not the full log (%d bytes)", len(log))
	}
	for _, want := range []string{"→ ls", "→ read greet.sh", "→ edit greet.sh", "→ bash sh test.sh -v", "3 checks, 0 failed", "→ grep", "No matches", "stop:       completed", "tool calls: 9", "→ bash cat README.md", "[guard same_output] read succeeded with the same output as in turn 2",
		"ran 1503 checks and none failed", "has no FAIL lines"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// The demo never writes into a directory that holds files.
func TestDemoRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "README.md")
	os.WriteFile(mine, []byte("my project"), 0o644)
	code, _, errOut := runCLI(t, "", "demo", "--dir", dir)
	if code != 2 || !strings.Contains(errOut, "is not empty") {
		t.Fatalf("demo in a non-empty dir: %d %q", code, errOut)
	}
	if data, _ := os.ReadFile(mine); string(data) != "my project" {
		t.Fatalf("the user's file was overwritten: %q", data)
	}
	// A directory that does not exist yet is created.
	if code, out, errOut := runCLI(t, "", "demo", "--dir", filepath.Join(dir, "new", "demo")); code != 0 {
		t.Fatalf("demo in a new dir: %d\n%s\n%s", code, out, errOut)
	}
}
