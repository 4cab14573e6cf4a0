//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// dialEnv makes the test binary connect to the Unix socket it names and
// exit: the client the matrix runs inside the sandbox, so the test needs
// no third-party socket client.
const dialEnv = "REIN_SANDBOX_TEST_DIAL"

func dialMain(path string) int {
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("dial failed:", err)
		return 1
	}
	c.Close()
	fmt.Println("CONNECTED")
	return 0
}

// matrixEnv is one attempt's world: a workspace with the protected
// files, a directory outside every writable one, a directory in the
// shared /tmp, a home with a key, and a Unix socket outside the
// workspace.
type matrixEnv struct {
	ws, outside, hostTmp, home, sock, dialer, id string
}

func (e *matrixEnv) vars() []string {
	return []string{"WS=" + e.ws, "OUT=" + e.outside, "HOSTTMP=" + e.hostTmp, "FAKEHOME=" + e.home,
		"SOCK=" + e.sock, "DIALER=" + e.dialer, "ID=" + e.id}
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// attempt is one way out. escaped looks at the host after the command
// (and the sweep) ended.
type attempt struct {
	name, kind string
	script     string
	noNetwork  bool
	// harmful attempts are not run unconfined as a control.
	harmful bool
	escaped func(e *matrixEnv, out string) bool
}

const (
	kindOutside   = "write outside"
	kindMount     = "remount/umount/sysctl"
	kindProtected = "protected path"
	kindSocket    = "unix socket"
	kindSecret    = "home secret"
)

var attempts = []attempt{
	{name: "remount / read-write", kind: kindMount, harmful: true,
		script: `mount -o remount,rw / 2>&1 && echo REMOUNTED; mount -o remount,rw "$WS/.git/hooks" 2>&1 && echo REMOUNTED; touch /rein-matrix-$ID 2>&1;
			unshare -Urm sh -c 'mount -o remount,rw / && touch /rein-matrix-$ID && echo REMOUNTED' 2>&1`,
		escaped: func(e *matrixEnv, out string) bool {
			f := "/rein-matrix-" + e.id
			hit := exists(f)
			os.Remove(f)
			return hit || strings.Contains(out, "REMOUNTED")
		}},
	{name: "umount a protection", kind: kindMount, harmful: true,
		script:  `for m in "$WS/.git/hooks" "$WS/.git/config" "$WS/.rein" "$WS/.git" /proc/sys; do umount "$m" 2>&1 && echo UNMOUNTED; done`,
		escaped: func(e *matrixEnv, out string) bool { return strings.Contains(out, "UNMOUNTED") }},
	{name: "write /proc/sys", kind: kindMount, harmful: true,
		script:  `f=/proc/sys/vm/swappiness; [ -e $f ] || f=/proc/sys/kernel/printk_ratelimit; v=$(cat $f) && echo "$v" > $f && echo SYSCTL-WRITTEN`,
		escaped: func(e *matrixEnv, out string) bool { return strings.Contains(out, "SYSCTL-WRITTEN") }},
	{name: "write outside the workspace", kind: kindOutside,
		script: `echo x > "$OUT/new"; echo x > "$OUT/keep"; rm -f "$OUT/keep"; echo x > "$FAKEHOME/planted"`,
		escaped: func(e *matrixEnv, out string) bool {
			return exists(filepath.Join(e.outside, "new")) || readFile(filepath.Join(e.outside, "keep")) != "keep" || exists(filepath.Join(e.home, "planted"))
		}},
	{name: "delete in the shared /tmp", kind: kindOutside,
		script: `sh -c "$(printf rm) -rf $HOSTTMP"; echo x > /tmp/rein-matrix-new-$ID`,
		escaped: func(e *matrixEnv, out string) bool {
			f := "/tmp/rein-matrix-new-" + e.id
			hit := exists(f)
			os.Remove(f)
			return hit || readFile(filepath.Join(e.hostTmp, "keep")) != "keep"
		}},
	{name: "hook in .git/hooks", kind: kindProtected,
		script:  `printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
		escaped: func(e *matrixEnv, out string) bool { return exists(filepath.Join(e.ws, ".git/hooks/pre-commit")) }},
	{name: "core.fsmonitor in .git/config", kind: kindProtected,
		script: `git config core.fsmonitor "touch pwned" 2>&1; printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config`,
		escaped: func(e *matrixEnv, out string) bool {
			return strings.Contains(readFile(filepath.Join(e.ws, ".git/config")), "fsmonitor")
		}},
	{name: "rein config in .rein", kind: kindProtected,
		script: `echo '{"sandbox":"off"}' > .rein/security.json; echo '{}' > .rein/config.json`,
		escaped: func(e *matrixEnv, out string) bool {
			return exists(filepath.Join(e.ws, ".rein/security.json")) || readFile(filepath.Join(e.ws, ".rein/config.json")) != "keep"
		}},
	{name: ".claude/settings.json by python", kind: kindProtected,
		script: `if command -v python3 >/dev/null; then python3 -c 'open(".claude/settings.json","w").write("{\"hooks\":1}")'; else echo '{"hooks":1}' > .claude/settings.json; fi`,
		escaped: func(e *matrixEnv, out string) bool {
			return readFile(filepath.Join(e.ws, ".claude/settings.json")) != "keep"
		}},
	{name: "plant a missing .mcp.json by python", kind: kindProtected,
		script:  `if command -v python3 >/dev/null; then python3 -c 'open(".mcp.json","w").write("{\"mcpServers\":{}}")'; else echo '{"mcpServers":{}}' > .mcp.json; fi`,
		escaped: func(e *matrixEnv, out string) bool { return exists(filepath.Join(e.ws, ".mcp.json")) }},
	{name: "rename .git, plant .git/config", kind: kindProtected,
		script: `mv .git gitx 2>&1; mkdir -p .git && printf '[core]\n\tfsmonitor = touch pwned\n' > .git/config`,
		escaped: func(e *matrixEnv, out string) bool {
			return strings.Contains(readFile(filepath.Join(e.ws, ".git/config")), "fsmonitor") || exists(filepath.Join(e.ws, "gitx"))
		}},
	{name: "rename .claude, plant settings", kind: kindProtected,
		script: `mv .claude c2 2>&1; mkdir -p .claude && echo '{"hooks":1}' > .claude/settings.json`,
		escaped: func(e *matrixEnv, out string) bool {
			return readFile(filepath.Join(e.ws, ".claude/settings.json")) != "keep" || exists(filepath.Join(e.ws, "c2"))
		}},
	{name: "replace .git/config through a lock file", kind: kindProtected,
		script: `printf '[core]\n\tfsmonitor = touch pwned\n' > .git/config.lock && mv -f .git/config.lock .git/config 2>&1; rm -rf .git/hooks 2>&1`,
		escaped: func(e *matrixEnv, out string) bool {
			return strings.Contains(readFile(filepath.Join(e.ws, ".git/config")), "fsmonitor") || !exists(filepath.Join(e.ws, ".git/hooks"))
		}},
	{name: "Unix socket outside, network off", kind: kindSocket, noNetwork: true,
		script:  `REIN_SANDBOX_TEST_DIAL="$SOCK" "$DIALER"`,
		escaped: func(e *matrixEnv, out string) bool { return strings.Contains(out, "CONNECTED") }},
	{name: "read ~/.ssh key", kind: kindSecret,
		script: `cat "$FAKEHOME/.ssh/id_ed25519" 2>/dev/null; ls -1 "$FAKEHOME/.ssh" 2>/dev/null`,
		escaped: func(e *matrixEnv, out string) bool {
			return strings.Contains(out, "PRIVATE-"+e.id) || strings.Contains("\n"+out, "\nid_ed25519\n")
		}},
}

// copyDialer copies the test binary, the matrix's socket client, outside
// /tmp (which the sandbox replaces), readable by everyone; it is removed
// when the test ends.
func copyDialer(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "rein-matrix-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := filepath.Join(dir, "dial")
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func newMatrixEnv(t *testing.T, n int, dialer string) *matrixEnv {
	t.Helper()
	e := &matrixEnv{ws: t.TempDir(), id: fmt.Sprintf("%d-%d", os.Getpid(), n), dialer: dialer}
	for _, d := range []string{".git/hooks", ".rein", ".claude"} {
		if err := os.MkdirAll(filepath.Join(e.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		".git/config":           "[core]\n\trepositoryformatversion = 0\n",
		".git/HEAD":             "ref: refs/heads/main\n",
		".rein/config.json":     "keep",
		".claude/settings.json": "keep",
	} {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(parent, pattern string) string {
		d, err := os.MkdirTemp(parent, pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		if err := os.WriteFile(filepath.Join(d, "keep"), []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	e.outside = mk("/var/tmp", "rein-matrix-out-")
	e.hostTmp = mk("/tmp", "rein-matrix-tmp-")
	e.home = mk("/var/tmp", "rein-matrix-home-")
	if err := os.MkdirAll(filepath.Join(e.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".ssh", "id_ed25519"), []byte("PRIVATE-"+e.id), 0o600); err != nil {
		t.Fatal(err)
	}
	e.sock = filepath.Join(e.outside, "agent.sock")
	ln, err := net.Listen("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return e
}

// runAttempt runs a's script confined by backend b (None: unconfined,
// mode off) and sweeps planted files as the bash tool does.
func runAttempt(t *testing.T, e *matrixEnv, a attempt, b Backend) string {
	t.Helper()
	p := Policy{Mode: WorkspaceWrite, Workspace: e.ws, Backend: b, NoNetwork: a.noNetwork, Hidden: DefaultHidden(e.home)}
	if b == None {
		p.Mode = Off
	}
	cmd := exec.Command("bash", "-c", a.script)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), e.vars()...)
	w := NewWatch(p)
	if _, err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	if _, err := w.Sweep(); err != nil {
		t.Error(err)
	}
	return string(out)
}

// TestConfinementMatrix runs every attempt under each mechanism and
// counts what got out. CI runs it as root and, through .ci/run, as an
// ordinary user. Every attempt that is safe to run unconfined is run so
// first, and must get out there: the checks can fail.
func TestConfinementMatrix(t *testing.T) {
	bs := backends(t)
	t.Logf("running as uid %d", os.Getuid())
	dialer := copyDialer(t)
	for i, a := range attempts {
		if a.harmful {
			continue
		}
		e := newMatrixEnv(t, 1000+i, dialer)
		if out := runAttempt(t, e, a, None); !a.escaped(e, out) {
			t.Errorf("control: %q did not get out when unconfined, so the check cannot see an escape: %q", a.name, out)
		}
	}
	type tally struct{ outside, mounts, protected, sockets, secrets int }
	for _, b := range bs {
		var n tally
		for i, a := range attempts {
			e := newMatrixEnv(t, i, dialer)
			out := runAttempt(t, e, a, b)
			if !a.escaped(e, out) {
				t.Logf("%-8s %-42s held", b, a.name)
				continue
			}
			t.Errorf("%-8s %-42s GOT OUT: %q", b, a.name, out)
			switch a.kind {
			case kindOutside:
				n.outside++
			case kindMount:
				n.mounts++
			case kindProtected:
				n.protected++
			case kindSocket:
				n.sockets++
			case kindSecret:
				n.secrets++
			}
		}
		t.Logf("%s as uid %d: %d attempts; writes outside %d, remounts/umounts/sysctl writes %d, protected paths changed %d, sockets reached %d, secrets read %d",
			b, os.Getuid(), len(attempts), n.outside, n.mounts, n.protected, n.sockets, n.secrets)
	}
}
