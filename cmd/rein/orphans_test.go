//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/sandbox"
)

// TestKill9LeavesNoOrphans kills a real rein with SIGKILL while its bash
// call has started a background child, a setsid'd process and a
// foreground one: none of them may outlive rein, sandboxed or not.
func TestKill9LeavesNoOrphans(t *testing.T) {
	modes := []string{"off"}
	if sandbox.Detect() != sandbox.None {
		modes = append(modes, "workspace-write")
	} else if os.Getenv("CI") != "" {
		t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
	}
	for i, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			mark := fmt.Sprintf("6%d.%d", i, os.Getpid()%100000)
			script := writeScript(t, t.TempDir(), fmt.Sprintf(`{"text": "Working.", "tool_calls": [{"name": "bash", "arguments": {"command": "(sleep %[1]s; touch late) & setsid sleep %[1]s & nohup sleep %[1]s >/dev/null 2>&1 & touch started; sleep %[1]s"}}]}
{"text": "never reached"}
`, mark))
			cmd := exec.Command(os.Args[0], "run", "--permission-mode", "bypassPermissions", "-m", "faux", "--script", script, "-C", ws, "work")
			cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_SANDBOX="+mode)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the bash call never started: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			// The children start beside the foreground sleep: wait until
			// all three run, or the test would prove nothing.
			for n := countSleeps(mark); n < 3; n = countSleeps(mark) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("only %d of the command's processes are running; the test would prove nothing", n)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			deadline = time.Now().Add(5 * time.Second)
			for countSleeps(mark) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("%d processes outlived rein's SIGKILL", countSleeps(mark))
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// countSleeps counts live (not zombie) processes running sleep mark.
func countSleeps(mark string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || string(bytes.TrimRight(cl, "\x00")) != "sleep\x00"+mark {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
			continue
		}
		n++
	}
	return n
}
