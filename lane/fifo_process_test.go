package lane_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/lane"
)

// waitEnv names the lock file of a waiting helper; waitPollEnv its poll
// interval.
const (
	waitEnv     = "REIN_LANE_HELPER_WAIT"
	waitPollEnv = "REIN_LANE_HELPER_POLL"
)

// waitHelper is a process that asks for the session and waits its turn:
// it says "waiting" once it is in line, "granted" when the session is
// its, and lets go when its standard input closes.
func waitHelper() int {
	poll, _ := time.ParseDuration(os.Getenv(waitPollEnv))
	s, err := lane.New(lane.Options{PollInterval: poll, Observe: func(e lane.Event) {
		if e.Type == lane.EventRunWait {
			fmt.Println("waiting")
		}
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, run, err := s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: os.Getenv(waitEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	fmt.Println("granted")
	_, _ = io.Copy(io.Discard, os.Stdin)
	run.Release()
	return 0
}

// waiter is a waitHelper process and the lines it says.
type waiter struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startWaiter(t *testing.T, lock string, poll time.Duration) *waiter {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), waitEnv+"="+lock, waitPollEnv+"="+poll.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &waiter{cmd: cmd, stdin: stdin, lines: make(chan string, 8)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if l := recv(t, w.lines); l != "waiting" {
		t.Fatalf("the waiter said %q, want waiting", l)
	}
	return w
}

// says waits for the waiter's next line.
func (w *waiter) says(t *testing.T, want string) {
	t.Helper()
	if l := recv(t, w.lines); l != want {
		t.Fatalf("the waiter said %q, want %q", l, want)
	}
}

// done lets the waiter go and waits for it to end.
func (w *waiter) done(t *testing.T) {
	t.Helper()
	w.stdin.Close()
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// TestFIFOAcrossProcesses: runs of different processes waiting for one
// session get it in the order they asked, whoever tries the lock first
// when it is let go: a process that polls fast does not overtake one
// that asked before it, and a run of the process letting go does not
// overtake another process that was waiting.
func TestFIFOAcrossProcesses(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "sessions", "s.jsonl.run.lock")
	r := newRig(t, lane.Options{PollInterval: time.Second})

	// This process runs the session; A then B (which polls far more
	// often) wait in other processes, then a second run of this one.
	_, own, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: lock})
	if err != nil {
		t.Fatal(err)
	}
	a := startWaiter(t, lock, 200*time.Millisecond)
	b := startWaiter(t, lock, 2*time.Millisecond)
	out := make(chan entered, 1)
	enterAsync(context.Background(), r.s, lane.RunOptions{Session: "shared", LockFile: lock}, "mine", out)
	r.await(t, lane.EventRunWait)

	// Letting go hands the session to A, not to this process's next
	// run nor to B.
	own.Release()
	a.says(t, "granted")
	r.clock.Advance(time.Second)
	none(t, out)
	a.done(t)
	b.says(t, "granted")
	r.clock.Advance(time.Second)
	none(t, out)
	b.done(t)
	r.clock.Advance(time.Second)
	e := recv(t, out)
	if e.err != nil {
		t.Fatal(e.err)
	}
	e.run.Release()
	if _, err := os.Stat(lock + ".q"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the queue folder outlived the waiters: %v", err)
	}
}

// A waiter killed with SIGKILL loses its place: the run behind it gets
// the session, and its ticket is cleared.
func TestFIFOAcrossProcessesSkipsTheDead(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "s.jsonl.run.lock")
	r := newRig(t, lane.Options{PollInterval: time.Second})
	_, own, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: lock})
	if err != nil {
		t.Fatal(err)
	}
	a := startWaiter(t, lock, time.Hour) // would never poll again
	b := startWaiter(t, lock, 2*time.Millisecond)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	own.Release()
	b.says(t, "granted")
	b.done(t)
	ents, _ := os.ReadDir(lock + ".q")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "t-") {
			t.Errorf("a ticket is left: %s", e.Name())
		}
	}
}
