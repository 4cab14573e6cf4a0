//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/sandbox"
)

// A run whose bash calls were confined removes their private /tmp when
// it exits, rather than leaving one directory behind per run.
func TestRunRemovesPrivateTemp(t *testing.T) {
	if sandbox.Detect() == sandbox.None {
		t.Fatal("no sandbox mechanism, so no command is confined and the test would prove nothing: install bubblewrap (.ci/run does)")
	}
	tmp, ws := t.TempDir(), t.TempDir()
	script := writeScript(t, t.TempDir(), `{"tool_calls": [{"name": "bash", "arguments": {"command": "echo kept > /tmp/left.txt; cat /tmp/left.txt"}}]}
{"text": "done"}
`)
	cmd := exec.Command(os.Args[0], "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "work")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_SANDBOX=workspace-write", "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kept") {
		t.Fatalf("%v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "rein-tmp-*")); len(left) > 0 {
		t.Fatalf("the run left %s behind", left)
	}
}
