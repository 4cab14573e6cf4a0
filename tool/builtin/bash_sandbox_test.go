//go:build linux

package builtin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/sandbox"
)

func TestBashSandboxed(t *testing.T) {
	if sandbox.Detect() == sandbox.None {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{}))
	res := call(t, reg, "bash", `{"command":"echo in > inside.txt && cat inside.txt"}`)
	expect(t, res, false, "in")
	res = call(t, reg, "bash", `{"command":"echo x > /etc/rein-bash-sandbox-test"}`)
	os.Remove("/etc/rein-bash-sandbox-test")
	expect(t, res, true, "ask the user for permission")
	// A command that backgrounds and setsids: nothing survives the call.
	res = call(t, reg, "bash", `{"command":"(sleep 47.25; touch late) & setsid sleep 47.25 & echo ok"}`)
	expect(t, res, false, "ok")
	waitNoProc(t, "sleep 47.25")
}

func TestBashBackgroundJob(t *testing.T) {
	w := newWorkspace(t)
	jobs := &Jobs{}
	reg := registry(t, Bash(w, BashOptions{Jobs: jobs}))
	res := call(t, reg, "bash", `{"command":"echo started; exec sleep 48.5","background":true}`)
	expect(t, res, false, "background job 1")
	if l := jobs.List(); len(l) != 1 || !l[0].Running {
		t.Fatalf("jobs = %+v", l)
	}
	if n := countProc("sleep 48.5"); n == 0 {
		t.Fatal("the background job is not running")
	}
	killed := jobs.KillAll()
	if len(killed) != 1 {
		t.Fatalf("killed = %+v", killed)
	}
	waitNoProc(t, "sleep 48.5")
}

// TestKillRecorded plays a rein killed with -9: a group recorded as
// running is killed by the next process before it resumes.
func TestKillRecorded(t *testing.T) {
	w := newWorkspace(t)
	cmd := exec.Command("sh", "-c", "sleep 49.75 & sleep 49.75")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	time.Sleep(50 * time.Millisecond)
	recordGroup(w.Root, cmd.Process.Pid, "sleep")
	// While the recording process lives, its groups are its own.
	if killed := KillRecorded(w.Root); len(killed) != 0 {
		t.Fatalf("killed the groups of a live owner: %v", killed)
	}
	// Now play its death: the record names an owner that is gone.
	rec := filepath.Join(w.Root, procDir, strconv.Itoa(cmd.Process.Pid))
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 3)
	lines[1] = "999999999 1"
	if err := os.WriteFile(rec, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	killed := KillRecorded(w.Root)
	if len(killed) != 1 || killed[0] != cmd.Process.Pid {
		t.Fatalf("killed = %v", killed)
	}
	waitNoProc(t, "sleep 49.75")
	if ents, _ := os.ReadDir(filepath.Join(w.Root, procDir)); len(ents) != 0 {
		t.Fatalf("records left: %d", len(ents))
	}
}

func waitNoProc(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for countProc(s) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes %q outlived the call", countProc(s), s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func countProc(s string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(strings.ReplaceAll(string(cl), "\x00", " "), s) {
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

// TestBashPlantedConfigMovedAside plants the files that make programs
// run at the next start (.mcp.json, .claude/settings.json) with python
// and the shell: they do not stay, the model is told, nothing is
// deleted; and /tmp is the call's own, not the shared one.
func TestBashPlantedConfigMovedAside(t *testing.T) {
	if sandbox.Detect() == sandbox.None {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{}))
	res := call(t, reg, "bash", `{"command":"mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json; if command -v python3 >/dev/null; then python3 -c 'open(\".mcp.json\",\"w\").write(\"{}\")'; else echo '{}' > .mcp.json; fi; echo done"}`)
	expect(t, res, false, "done")
	text := res.Text()
	for _, name := range []string{".mcp.json", ".claude"} {
		if _, err := os.Lstat(filepath.Join(w.Root, name)); err == nil {
			t.Errorf("%s planted by the command is still in place", name)
		}
		if !strings.Contains(text, "created "+name) {
			t.Errorf("the result does not name %s: %q", name, text)
		}
	}
	moved, _ := filepath.Glob(filepath.Join(w.Root, ".mcp.json.planted-*"))
	if len(moved) != 1 {
		t.Errorf("the planted .mcp.json was not kept aside: %v", moved)
	}

	shared, err := os.MkdirTemp("/tmp", "rein-shared-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	if err := os.WriteFile(filepath.Join(shared, "keep"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = call(t, reg, "bash", `{"command":"sh -c \"$(printf rm) -rf `+shared+`\"; echo mine > ${TMPDIR:-/tmp}/rein-private-check; cat ${TMPDIR:-/tmp}/rein-private-check"}`)
	expect(t, res, false, "mine")
	if _, err := os.Stat(filepath.Join(shared, "keep")); err != nil {
		t.Errorf("a command deleted a file in the shared /tmp: %v", err)
	}
	if _, err := os.Stat("/tmp/rein-private-check"); err == nil {
		os.Remove("/tmp/rein-private-check")
		if sandbox.Detect() == sandbox.Bwrap {
			t.Error("a command wrote into the shared /tmp")
		}
	}
	res = call(t, reg, "bash", `{"command":"cat ${TMPDIR:-/tmp}/rein-private-check"}`)
	expect(t, res, false, "mine") // the private /tmp lasts for the run
}

// TestBashLandlockPutsProtectedBack runs commands under Landlock, which
// cannot keep existing protected files read-only: a changed .git/config
// and a new hook are undone when the command ends, the model is told,
// the command's versions are kept aside, and ~/.ssh stays unreadable
// while the rest of home is read.
func TestBashLandlockPutsProtectedBack(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the kernel has no Landlock")
		}
		t.Skip("the kernel has no Landlock")
	}
	w := newWorkspace(t)
	home := t.TempDir()
	// The rules grant whole a directory whose walk would pass 4,096
	// entries (see sandbox.readRules), hiding nothing beneath it.
	entries := 0
	for d := filepath.Dir(home); ; d = filepath.Dir(d) {
		ents, _ := os.ReadDir(d)
		entries += len(ents)
		if d == "/" {
			break
		}
	}
	if entries > 4000 {
		t.Fatalf("the test's home %s lies under directories holding %d entries: above 4,096 Landlock grants them whole, so ~/.ssh could not be hidden; clear out %s", home, entries, os.TempDir())
	}
	for name, body := range map[string]string{".ssh/id_ed25519": "PRIVATE", ".profile": "PROFILE"} {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(w.Root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[core]\n\trepositoryformatversion = 0\n"
	if err := os.WriteFile(filepath.Join(w.Root, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Backend: sandbox.Landlock, Hidden: sandbox.DefaultHidden(home)}
	reg := registry(t, Bash(w, BashOptions{Sandbox: p}))
	res := call(t, reg, "bash", `{"command":"printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config; printf '#!/bin/sh\\n' > .git/hooks/pre-commit; echo made > work.txt; cat `+home+`/.profile; cat `+home+`/.ssh/id_ed25519; echo done"}`)
	text := res.Text()
	if !strings.Contains(text, "PROFILE") || strings.Contains(text, "PRIVATE") {
		t.Errorf("home was not read around ~/.ssh: %q", text)
	}
	if got, _ := os.ReadFile(filepath.Join(w.Root, ".git", "config")); string(got) != config {
		t.Errorf(".git/config = %q, want the original", got)
	}
	if _, err := os.Lstat(filepath.Join(w.Root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the planted hook is still in place")
	}
	if got, _ := os.ReadFile(filepath.Join(w.Root, "work.txt")); string(got) != "made\n" {
		t.Errorf("ordinary work was not kept: %q", got)
	}
	for _, want := range []string{"changed or moved .git/config", "the original was put back", "created .git/hooks/pre-commit"} {
		if !strings.Contains(text, want) {
			t.Errorf("the result does not say %q: %q", want, text)
		}
	}
	if kept, _ := filepath.Glob(filepath.Join(w.Root, ".git", "config.modified-*")); len(kept) != 1 {
		t.Errorf("the command's .git/config was not kept aside: %v", kept)
	}
}
