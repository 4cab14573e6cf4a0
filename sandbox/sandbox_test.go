//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	RunHelper()
	if path := os.Getenv(dialEnv); path != "" {
		os.Exit(dialMain(path))
	}
	os.Exit(m.Run())
}

// backends returns the mechanisms to test on this system. Under CI
// both must be present.
func backends(t *testing.T) []Backend {
	var out []Backend
	if bwrapWorks() {
		out = append(out, Bwrap)
	} else if os.Getenv("CI") != "" {
		t.Fatal("bubblewrap is missing or cannot create namespaces; .ci/run installs it")
	}
	if LandlockABI() > 0 {
		out = append(out, Landlock)
	} else if os.Getenv("CI") != "" {
		t.Log("the kernel has no Landlock; its cases are not run")
	}
	if len(out) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no sandbox mechanism; .ci/run installs bubblewrap")
		}
		t.Skip("bubblewrap is not installed and the kernel has no Landlock")
	}
	return out
}

// run runs a bash script confined by p with backend b, in the workspace.
func run(t *testing.T, p Policy, b Backend, script string) (string, error) {
	t.Helper()
	p.Backend = b
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = p.Workspace
	if _, err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func setup(t *testing.T) (ws, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

func TestWorkspaceWrite(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			ws, outside := setup(t)
			// The outside directory is under the temp dir, which is
			// writable; use a directory elsewhere for "outside".
			home, err := os.MkdirTemp(filepath.Dir(ws), "x")
			if err != nil {
				t.Fatal(err)
			}
			_ = outside
			p := Policy{Mode: WorkspaceWrite, Workspace: ws, Writable: nil}
			if out, err := run(t, p, b, "echo hi > inside.txt && cat inside.txt"); err != nil || !strings.Contains(out, "hi") {
				t.Fatalf("write inside: %v %q", err, out)
			}
			// /etc is outside every writable directory.
			if out, err := run(t, p, b, "echo x > /etc/rein-sandbox-test"); err == nil {
				os.Remove("/etc/rein-sandbox-test")
				t.Fatalf("write to /etc was allowed: %q", out)
			}
			if out, err := run(t, p, b, "cat /etc/hostname >/dev/null && ls / >/dev/null"); err != nil {
				t.Fatalf("reading outside failed: %v %q", err, out)
			}
			_ = home
			if b == Bwrap {
				if out, err := run(t, p, b, "echo evil > .git/hooks/pre-commit"); err == nil {
					t.Fatalf("write to .git/hooks was allowed: %q", out)
				}
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			ws, _ := setup(t)
			p := Policy{Mode: ReadOnly, Workspace: ws}
			if out, err := run(t, p, b, "echo hi > inside.txt"); err == nil {
				t.Fatalf("write in read-only mode was allowed: %q", out)
			}
			if out, err := run(t, p, b, "ls . >/dev/null && echo ok"); err != nil || !strings.Contains(out, "ok") {
				t.Fatalf("read in read-only mode: %v %q", err, out)
			}
		})
	}
}

func TestNetworkOff(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			ws, _ := setup(t)
			if out, err := run(t, Policy{Mode: WorkspaceWrite, Workspace: ws}, b, script); err != nil || !strings.Contains(out, "connected") {
				t.Fatalf("network on: %v %q", err, out)
			}
			if out, err := run(t, Policy{Mode: WorkspaceWrite, Workspace: ws, NoNetwork: true}, b, script); err == nil || strings.Contains(out, "connected") {
				t.Fatalf("network off, but the command connected: %q", out)
			}
		})
	}
}

// TestEnvironHidden starts a process holding a secret in its environment
// (as rein holds a provider key) and checks a confined command cannot
// read it through /proc/<pid>/environ.
func TestEnvironHidden(t *testing.T) {
	holder := exec.Command("sleep", "30")
	holder.Env = append(os.Environ(), "REIN_TEST_PLANTED=sk-planted-secret-value")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	script := fmt.Sprintf("cat /proc/%d/environ; tr '\\0' '\\n' < /proc/%d/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep planted", holder.Process.Pid, holder.Process.Pid)
	// Unconfined, the secret is readable: the test can fail.
	cmd := exec.Command("bash", "-c", script)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "planted-secret") {
		t.Fatalf("the unconfined control could not read the environ: %q", out)
	}
	for _, b := range backends(t) {
		t.Run(string(b), func(t *testing.T) {
			ws, _ := setup(t)
			out, _ := run(t, Policy{Mode: WorkspaceWrite, Workspace: ws}, b, script)
			leaked := strings.Contains(out, "planted-secret")
			if b == Landlock {
				// Landlock's ptrace scoping does not stop a same-user
				// read of /proc/<pid>/environ here (measured); the
				// docs say so, and rein keeps keys out of its own
				// environment for this case.
				t.Logf("landlock: another process's environ readable: %v", leaked)
				return
			}
			if leaked {
				t.Fatalf("a confined command read another process's environment: %q", out)
			}
		})
	}
}

// TestNoOrphans runs a command that backgrounds a process and one that
// setsids away, and checks neither outlives the command.
func TestNoOrphans(t *testing.T) {
	all := append(backends(t), None)
	for i, b := range all {
		t.Run(string(b), func(t *testing.T) {
			ws, _ := setup(t)
			mark := fmt.Sprintf("%d.%d%d", 40+i, os.Getpid()%1000, time.Now().Nanosecond()%1000)
			script := fmt.Sprintf("(sleep %s; touch late) & setsid sleep %s & nohup sleep %s >/dev/null 2>&1 & echo started", mark, mark, mark)
			mode := WorkspaceWrite
			if b == None {
				mode = Off
			}
			out, err := run(t, Policy{Mode: mode, Workspace: ws}, b, script)
			if err != nil || !strings.Contains(out, "started") {
				t.Fatalf("%v %q", err, out)
			}
			deadline := time.Now().Add(3 * time.Second)
			for {
				n := countProcs("sleep " + mark)
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d processes outlived the command", n)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// countProcs counts live processes whose command line contains s.
func countProcs(s string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(cl) == 0 {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(cl), "\x00", " "), s) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
					continue
				}
			}
			n++
		}
	}
	return n
}

func TestRefuseWhenUnavailable(t *testing.T) {
	ws, _ := setup(t)
	cmd := exec.Command("true")
	_, err := Wrap(cmd, Policy{Mode: WorkspaceWrite, Workspace: ws, Backend: None, Fallback: Refuse})
	if err == nil || !strings.Contains(err.Error(), "permission") {
		t.Fatalf("err = %v, want a refusal that says what to do", err)
	}
	if !strings.Contains(Notice(Policy{Mode: WorkspaceWrite, Backend: None}), "UNCONFINED") {
		t.Error("the notice for an unavailable sandbox does not say commands run unconfined")
	}
}
