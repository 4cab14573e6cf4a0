package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// REIN_LOG writes subsystem lines to REIN_LOG_FILE, not standard error;
// a bad specification stops rein before anything runs.
func TestReinLog(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, t.TempDir(), readScript)
	logFile := filepath.Join(t.TempDir(), "rein.log")
	vars := map[string]string{"REIN_LOG": "agent=info,tool=debug", "REIN_LOG_FILE": logFile}
	code, _, errOut := runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		"run", "--model", "faux", "--script", script, "-C", dir, "what does a.txt say?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{`msg=call subsystem=tool tool=read`, `msg="run ended" subsystem=agent stop=completed`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(errOut, "subsystem=") {
		t.Errorf("log lines reached standard error with REIN_LOG_FILE set:\n%s", errOut)
	}

	vars = map[string]string{"REIN_LOG": "gaurd=debug"}
	code, _, errOut = runCLIEnv(t, "", func(e *env) { e.getenv = func(k string) string { return vars[k] } },
		"run", "--model", "faux", "--script", script, "-C", dir, "hi")
	if code != 2 || !strings.Contains(errOut, `REIN_LOG: no subsystem "gaurd" to log: use agent`) {
		t.Errorf("bad REIN_LOG: exit %d, %q", code, errOut)
	}
}
