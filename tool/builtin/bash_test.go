//go:build unix

// Tests that need a Unix system: bash, process groups, FIFOs.

package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reinhq/rein/tool"
)

func TestBash(t *testing.T) {
	w := newWorkspace(t)
	put(t, w.Root, map[string]string{"file.txt": "content\n"})
	reg := registry(t, Bash(w, BashOptions{Env: []string{"REIN_TEST_VAR=from-env"}, MaxTimeout: 5 * time.Second}))
	tests := []struct {
		name    string
		args    string
		isErr   bool
		want    string // exact text when exact, else |-separated fragments
		exact   bool
		details func(BashDetails) bool
	}{
		{name: "echo", args: `{"command":"echo hello"}`, want: "hello\nexit code: 0", exact: true},
		{name: "no output", args: `{"command":"true"}`, want: "(no output)\nexit code: 0", exact: true},
		{name: "no final newline", args: `{"command":"printf abc"}`, want: "abc\nexit code: 0", exact: true},
		{name: "exit code", args: `{"command":"echo failing; exit 3"}`, isErr: true, want: "failing\nexit code: 3", exact: true,
			details: func(d BashDetails) bool { return d.ExitCode == 3 }},
		{name: "stdout and stderr in order", args: `{"command":"echo a; echo b >&2; echo c; echo d >&2"}`, want: "a\nb\nc\nd\nexit code: 0", exact: true},
		{name: "runs in root", args: `{"command":"pwd; cat file.txt"}`, want: w.Root + "\ncontent\nexit code: 0", exact: true},
		{name: "stdin is empty", args: `{"command":"cat; read x; echo read=$?"}`, want: "read=1\nexit code: 0", exact: true},
		{name: "env", args: `{"command":"echo $REIN_TEST_VAR $PAGER"}`, want: "from-env cat\nexit code: 0", exact: true},
		{name: "bash syntax", args: `{"command":"a=(1 2 3); echo ${#a[@]}; [[ x == x ]] && echo yes"}`, want: "3\nyes\nexit code: 0", exact: true},
		{name: "ansi stripped", args: `{"command":"printf '\\033[31mred\\033[0m plain\\n'"}`, want: "red plain\nexit code: 0", exact: true},
		{name: "progress bar collapsed", args: `{"command":"printf '10%%\\r50%%\\r100%%\\ndone\\n'"}`, want: "100%\ndone\nexit code: 0", exact: true},
		{name: "invalid utf-8", args: `{"command":"printf 'a\\377b\\n'"}`, want: "a\uFFFDb\nexit code: 0", exact: true},
		{name: "signal", args: `{"command":"kill -SEGV $$"}`, isErr: true, want: "killed by signal SIGSEGV",
			details: func(d BashDetails) bool { return d.ExitCode == -1 && strings.HasPrefix(d.Signal, "SIGSEGV") }},
		{name: "timeout capped", args: `{"command":"echo ok","timeout":99999}`, want: "ok\nexit code: 0 (the timeout asked for was capped at 5s)", exact: true},
		{name: "empty command", args: `{"command":"  "}`, isErr: true, want: "command is empty"},
		{name: "negative timeout", args: `{"command":"true","timeout":-1}`, isErr: true, want: "timeout must be a positive number"},
		{name: "missing command", args: `{}`, isErr: true, want: "Invalid arguments for bash|command"},
		{name: "wrong type", args: `{"command":["ls"]}`, isErr: true, want: "Invalid arguments for bash"},
		{name: "timeout wrong type", args: `{"command":"true","timeout":"10"}`, isErr: true, want: "Invalid arguments for bash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, reg, "bash", tt.args)
			if tt.exact {
				if res.IsError != tt.isErr || res.Text() != tt.want {
					t.Fatalf("result = %v %q, want %v %q", res.IsError, res.Text(), tt.isErr, tt.want)
				}
			} else {
				expect(t, res, tt.isErr, strings.Split(tt.want, "|")...)
			}
			if tt.details != nil {
				if d, ok := res.Details.(BashDetails); !ok || !tt.details(d) {
					t.Fatalf("details = %+v", res.Details)
				}
			}
		})
	}
}

func TestBashBaseEnv(t *testing.T) {
	w := newWorkspace(t)
	t.Setenv("REIN_TEST_SECRET", "leaked")
	reg := registry(t, Bash(w, BashOptions{BaseEnv: []string{"PATH=" + os.Getenv("PATH")}, Env: []string{"A=1", "A=2"}}))
	expect(t, call(t, reg, "bash", `{"command":"echo \"[$REIN_TEST_SECRET]\" $A"}`), false, "[] 2\nexit code: 0")
	reg = registry(t, Bash(w, BashOptions{}))
	expect(t, call(t, reg, "bash", `{"command":"echo $REIN_TEST_SECRET"}`), false, "leaked\nexit code: 0")
}

func TestBashToolSettings(t *testing.T) {
	w := newWorkspace(t)
	b := Bash(w, BashOptions{MaxTimeout: 10 * time.Minute})
	if b.Mode != tool.Sequential || b.ReadOnly {
		t.Fatalf("mode = %v, read-only = %v", b.Mode, b.ReadOnly)
	}
	if b.Timeout <= 10*time.Minute {
		t.Fatalf("Timeout = %v, want more than MaxTimeout so the middleware never pre-empts bash", b.Timeout)
	}
	if !strings.Contains(b.Description, "default 120, at most 600") {
		t.Fatalf("description does not state the limits:\n%s", b.Description)
	}
	sh := Bash(w, BashOptions{Shell: "/bin/sh"})
	expect(t, call(t, registry(t, sh), "bash", `{"command":"echo $0"}`), false, "/bin/sh\nexit code: 0")
	if !strings.Contains(sh.Description, "sh -c") {
		t.Fatalf("description does not name the shell:\n%s", sh.Description)
	}
}

// pidAlive reports whether pid is a live process (zombies count as dead).
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill -0
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// waitDead waits until pid is gone; processes killed with SIGKILL die
// at once, but their parent may take a moment to reap them.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		if !pidAlive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d is still alive", pid)
}

// readPid waits for a file holding a pid and returns it.
func readPid(t *testing.T, path string) int {
	t.Helper()
	for range 1000 {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{KillGrace: 200 * time.Millisecond, Sandbox: noSandbox}))
	// A background grandchild that holds the output pipe open and
	// ignores SIGTERM must not keep the call waiting.
	res := call(t, reg, "bash", `{"command":"echo started; (trap '' TERM; exec sleep 100) & echo $! > bg.pid; sleep 100","timeout":1}`)
	expect(t, res, true, "started\n", "timed out after 1s: the command and its child processes were killed")
	if d := res.Details.(BashDetails); !d.TimedOut || d.ExitCode != -1 {
		t.Fatalf("details = %+v", d)
	}
	waitDead(t, readPid(t, filepath.Join(w.Root, "bg.pid")))
}

func TestBashCancelKillsGroup(t *testing.T) {
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{Sandbox: noSandbox}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan tool.Result, 1)
	go func() {
		done <- callCtx(ctx, t, reg, "bash", `{"command":"sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; wait"}`)
	}()
	bg := readPid(t, filepath.Join(w.Root, "bg.pid"))
	sh := readPid(t, filepath.Join(w.Root, "sh.pid"))
	cancel()
	res := <-done
	expect(t, res, true, "cancelled: the command and its child processes were killed.")
	if d := res.Details.(BashDetails); !d.Cancelled {
		t.Fatalf("details = %+v", d)
	}
	waitDead(t, bg)
	waitDead(t, sh)
}

func TestBashCancelledBeforeStart(t *testing.T) {
	w := newWorkspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := callCtx(ctx, t, registry(t, Bash(w, BashOptions{})), "bash", `{"command":"touch ran"}`)
	expect(t, res, true, "the command was not started")
	if _, err := os.Stat(filepath.Join(w.Root, "ran")); err == nil {
		t.Fatal("the command ran")
	}
}

func TestBashBackgroundAfterExit(t *testing.T) {
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{Sandbox: noSandbox}))
	// The shell exits at once while its child keeps the pipe open: the
	// call returns without waiting for the child.
	// The background child is killed when the call ends.
	res := call(t, reg, "bash", `{"command":"sleep 100 & echo $! > bg.pid; echo launched"}`)
	expect(t, res, false, "launched\nexit code: 0")
	pid := readPid(t, filepath.Join(w.Root, "bg.pid"))
	waitDead(t, pid)
}

func TestBashHugeOutput(t *testing.T) {
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{}))
	res := call(t, reg, "bash", `{"command":"yes | head -c 50000000; echo; echo last line"}`)
	expect(t, res, false, "y\ny\n", "omitted from the middle of 50.0 MB of output", "the full output is in .rein/output/bash-", "last line\nexit code: 0")
	if n := len(res.Text()); n > BashHeadBytes+BashTailBytes+500 {
		t.Fatalf("result is %d bytes", n)
	}
	if !slices.Contains(res.Notes, "truncated") {
		t.Errorf("notes = %v, want truncated", res.Notes)
	}
	if short := call(t, reg, "bash", `{"command":"echo hi"}`); len(short.Notes) != 0 {
		t.Errorf("a short output has notes %v", short.Notes)
	}
	d := res.Details.(BashDetails)
	if d.OutputBytes != int64(50_000_000+len("\nlast line\n")) || !strings.HasPrefix(d.LogPath, ".rein/output/bash-") {
		t.Fatalf("details = %+v", d)
	}
	fi, err := os.Stat(filepath.Join(w.Root, d.LogPath))
	if err != nil || fi.Size() != d.OutputBytes {
		t.Fatalf("log %s: size %d, %v; want %d", d.LogPath, fi.Size(), err, d.OutputBytes)
	}
	// The logs are kept out of git, find and grep.
	if gi := readFileString(t, filepath.Join(w.Root, ".rein/output/.gitignore")); !strings.HasSuffix(gi, "\n*\n") {
		t.Fatalf(".rein/output/.gitignore = %q", gi)
	}
	expect(t, call(t, registry(t, Find(w)), "find", `{"pattern":"**/*.log"}`), false, "No files match")
}

func TestBashEndlessOutput(t *testing.T) {
	w := newWorkspace(t)
	const logCap = 1 << 20
	reg := registry(t, Bash(w, BashOptions{MaxLogBytes: logCap, KillGrace: 100 * time.Millisecond}))
	res := call(t, reg, "bash", `{"command":"yes","timeout":1}`)
	expect(t, res, true, "y\ny\n", "the first 1.0 MB of output are in .rein/output/bash-", "timed out after 1s")
	text := res.Text()
	tail := text[strings.Index(text, "…]\n")+len("…]\n") : strings.LastIndex(text, "timed out")]
	if len(tail) < BashTailBytes/2 || strings.Trim(tail, "y\n") != "" {
		t.Fatalf("tail is %d bytes: %q…", len(tail), tail[:min(len(tail), 40)])
	}
	d := res.Details.(BashDetails)
	log := readFileString(t, filepath.Join(w.Root, d.LogPath))
	if len(log) != logCap || !strings.HasPrefix(log, "y\ny\n") || d.OutputBytes <= logCap {
		t.Fatalf("log holds %d bytes, output %d bytes", len(log), d.OutputBytes)
	}
}

func TestBashProgressUpdates(t *testing.T) {
	w := newWorkspace(t)
	reg := registry(t, Bash(w, BashOptions{UpdateInterval: 10 * time.Millisecond}))
	var mu sync.Mutex
	var updates []tool.Result
	c := &tool.Call{ID: "1", Name: "bash", Args: json.RawMessage(`{"command":"echo first; while [ ! -e go-on ]; do sleep 0.01; done; echo second"}`), Tool: reg.Get("bash")}
	c.Update = func(p tool.Result) {
		mu.Lock()
		defer mu.Unlock()
		updates = append(updates, p)
		if len(updates) == 1 {
			os.WriteFile(filepath.Join(w.Root, "go-on"), nil, 0o644)
		}
	}
	res := reg.Execute(context.Background(), c)
	expect(t, res, false, "first\nsecond\nexit code: 0")
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 || !strings.Contains(updates[0].Text(), "first") {
		t.Fatalf("updates = %+v", updates)
	}
	if d := updates[0].Details.(BashDetails); !d.Running || d.OutputBytes == 0 {
		t.Fatalf("update details = %+v", d)
	}
}

func TestOutputSinkBounded(t *testing.T) {
	root := t.TempDir()
	s := newOutputSink(root, BashOptions{HeadBytes: 100, TailBytes: 1000, MaxLogBytes: 1 << 30})
	line := []byte(strings.Repeat("x", 999) + "\n")
	for i := 0; i < 10_000; i++ { // 10 MB
		s.Write(line)
		if i%1_000 == 0 && (len(s.buf) > 1100 || len(s.tail.buf) != 1000 || len(s.head) > 100) {
			t.Fatalf("memory grew: buf %d, tail %d, head %d", len(s.buf), len(s.tail.buf), len(s.head))
		}
	}
	s.close()
	out := s.render()
	if !strings.Contains(out, "omitted from the middle of 10.0 MB of output") || len(out) > 1400 {
		t.Fatalf("render:\n%s", out)
	}
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(s.logPath)))
	if err != nil || fi.Size() != 10_000_000 {
		t.Fatalf("log: %v, %v", fi, err)
	}
}

func TestRing(t *testing.T) {
	r := ring{buf: make([]byte, 5)}
	var all []byte
	for _, p := range []string{"ab", "", "cde", "f", "ghijklmn", "o", "pq"} {
		r.write([]byte(p))
		all = append(all, p...)
		want := all[max(0, len(all)-5):]
		if got := r.bytes(); !bytes.Equal(got, want) {
			t.Fatalf("after %q: ring = %q, want %q", p, got, want)
		}
	}
}

func TestCleanOutput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"\x1b[1;32mok\x1b[0m\n", "ok\n"},
		{"\x1b]0;title\x07text", "text"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"1%\r2%\r3%\nnext", "3%\nnext"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"trailing esc \x1b", "trailing esc "},
	}
	for _, tt := range tests {
		if got := cleanOutput([]byte(tt.in)); got != tt.want {
			t.Errorf("cleanOutput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzCleanOutput(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]0;t\x07x", "a\rb\r\n", "\xff\xfe", "\x1b[", "\x1b]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := cleanOutput(in)
		if !utf8.ValidString(out) {
			t.Fatalf("cleanOutput(%q) = %q is not UTF-8", in, out)
		}
		if strings.ContainsRune(out, '\r') {
			t.Fatalf("cleanOutput(%q) = %q keeps a carriage return", in, out)
		}
	})
}

func TestReadFIFO(t *testing.T) {
	w := newWorkspace(t)
	if err := syscall.Mkfifo(filepath.Join(w.Root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry(t, Read(w))
	expect(t, call(t, reg, "read", `{"path":"pipe"}`), true, "pipe is not a regular file")
}

// SessionEnv is asked before every command, sees the environment built
// so far and wins over it; what it returns changes from one command to
// the next.
func TestBashSessionEnv(t *testing.T) {
	w := newWorkspace(t)
	calls := 0
	reg := registry(t, Bash(w, BashOptions{BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "A=base"}, Env: []string{"B=env"},
		SessionEnv: func(env []string) []string {
			calls++
			if !slices.Contains(env, "A=base") || !slices.Contains(env, "B=env") {
				t.Errorf("SessionEnv got %v", env)
			}
			return []string{"A=session", fmt.Sprintf("N=%d", calls)}
		}}))
	expect(t, call(t, reg, "bash", `{"command":"echo $A $B $N"}`), false, "session env 1\nexit code: 0")
	expect(t, call(t, reg, "bash", `{"command":"echo $A $B $N"}`), false, "session env 2\nexit code: 0")
}
