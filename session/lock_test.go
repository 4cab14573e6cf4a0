package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/gofrs/flock"

	"github.com/reinhq/rein/llm"
)

func TestSecondWriterInOtherProcess(t *testing.T) {
	path, _ := writeSession(t, "one")
	h := startHelper(t, "hold", path)
	h.ready(t)

	_, err := Open(path, Options{})
	var le *LockedError
	if !errors.Is(err, ErrInUse) || !errors.As(err, &le) {
		t.Fatalf("Open while held: %v", err)
	}
	host, _ := os.Hostname()
	if le.PID != h.cmd.Process.Pid || le.Host != host || le.Path != path {
		t.Fatalf("locked error %+v, want pid %d", le, h.cmd.Process.Pid)
	}
	if want := fmt.Sprintf("in use by pid %d", h.cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}

	h.stdin.Close() // the child closes its session and exits
	h.wait(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	s.Close()
}

// TestTwoWritersNeverInterleave runs two processes that each open the
// session whenever its lock is free and append to it: every line of the
// result is a whole entry, and each process's entries form one chain.
func TestTwoWritersNeverInterleave(t *testing.T) {
	path, _ := writeSession(t, "start")
	const n = 60
	a := startHelper(t, "append", path, envCount+"="+fmt.Sprint(n), envTag+"=A")
	b := startHelper(t, "append", path, envCount+"="+fmt.Sprint(n), envTag+"=B")
	a.wait(t)
	b.wait(t)
	_, entries, issues, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 0 {
		t.Fatalf("issues: %v", issues)
	}
	if len(entries) != 1+2*n {
		t.Fatalf("%d entries, want %d", len(entries), 1+2*n)
	}
	if got := len(BuildContext(entries, LastLeaf(entries)).Messages); got != 1+2*n {
		t.Fatalf("the path holds %d messages, want every entry", got)
	}
	seen := map[string]int{}
	for _, e := range entries[1:] {
		seen[strings.Fields(e.Message.Text())[0]]++
	}
	if seen["A"] != n || seen["B"] != n {
		t.Fatalf("entries per writer: %v", seen)
	}
}

// TestKilledWriter kills a writer in the middle of a tool batch: its lock
// dies with it, and the next Open repairs the unanswered call.
func TestKilledWriter(t *testing.T) {
	path, _ := writeSession(t, "run make")
	h := startHelper(t, "crash", path)
	h.ready(t)
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	if _, err := os.Stat(lockPath(path)); err != nil {
		t.Fatalf("the killed writer should have left its lock file: %v", err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after the writer was killed: %v", err)
	}
	defer s.Close()
	if r := s.Repairs(); len(r) != 1 || r[0].CallID != "call_b" || r[0].ToolName != "read" {
		t.Fatalf("repairs %+v", r)
	}
	checkWellFormed(t, llm.Sendable(s.Context().Messages, llm.APIAnthropicMessages))
	rec, _ := readLockRecord(lockPath(path))
	if rec.PID != os.Getpid() {
		t.Fatalf("lock record names pid %d", rec.PID)
	}
}

// deadPID returns the pid of a process that has exited (and was reaped).
func deadPID(t *testing.T) int {
	t.Helper()
	h := startHelper(t, "exit", "")
	h.wait(t)
	return h.cmd.Process.Pid
}

func writeRecord(t *testing.T, lp string, rec lockRecord) {
	t.Helper()
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(lp, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStaleLock(t *testing.T) {
	host, _ := os.Hostname()
	ns := pidNamespace()
	tests := []struct {
		name string
		// held: another descriptor holds the flock (as a process that
		// inherited the writer's descriptor would).
		held    bool
		rec     func(t *testing.T) lockRecord
		wantErr bool
	}{
		{"left behind by a dead writer", false, func(t *testing.T) lockRecord { return lockRecord{PID: deadPID(t), Host: host, PIDNS: ns} }, false},
		{"held, but its writer is dead", true, func(t *testing.T) lockRecord { return lockRecord{PID: deadPID(t), Host: host, PIDNS: ns} }, false},
		{"held by a live writer", true, func(t *testing.T) lockRecord { return lockRecord{PID: os.Getppid(), Host: host, PIDNS: ns} }, true},
		{"held by a writer on another host", true, func(t *testing.T) lockRecord {
			return lockRecord{PID: deadPID(t), Host: host + "-elsewhere", PIDNS: ns}
		}, true},
		{"held by a writer in another pid namespace", true, func(t *testing.T) lockRecord {
			return lockRecord{PID: deadPID(t), Host: host, PIDNS: ns + "-other"}
		}, true},
		{"held, record unreadable", true, func(t *testing.T) lockRecord { return lockRecord{} }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := writeSession(t, "one")
			lp := lockPath(path)
			rec := tc.rec(t)
			writeRecord(t, lp, rec)
			if tc.held {
				fl := flock.New(lp)
				if ok, err := fl.TryLock(); !ok || err != nil {
					t.Fatalf("test lock: %v %v", ok, err)
				}
				defer fl.Close()
			}
			s, err := Open(path, Options{})
			if tc.wantErr {
				var le *LockedError
				if !errors.As(err, &le) || le.PID != rec.PID {
					t.Fatalf("Open: %v, want a LockedError naming pid %d", err, rec.PID)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open did not take over the stale lock: %v", err)
			}
			defer s.Close()
			if got, _ := readLockRecord(lp); got.PID != os.Getpid() || got.Host != host || got.PIDNS != ns {
				t.Fatalf("lock record after takeover: %+v", got)
			}
			// The takeover is exclusive: a second Open still fails.
			if _, err := Open(path, Options{}); !errors.Is(err, ErrInUse) {
				t.Fatalf("second Open after takeover: %v", err)
			}
		})
	}
}

func TestSecondOpenInSameProcess(t *testing.T) {
	path, _ := writeSession(t, "one")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, Options{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second Open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockPath(path)); !os.IsNotExist(err) {
		t.Fatalf("Close left the lock file: %v", err)
	}
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s.Close()
}
