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

const helperEnv = "REIN_LANE_HELPER_LOCK"

// holdHelper is the other process: it enters the session whose lock
// file the environment names, says "ready" and holds it until its
// standard input closes.
func holdHelper() int {
	s, err := lane.New(lane.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	lock := os.Getenv(helperEnv)
	_, run, err := s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: lock, NoWait: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	run.Release()
	return 0
}

type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func startHolder(t *testing.T, lock string) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+lock)
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the holder did not start: %q %v", line, err)
	}
	return &holder{cmd: cmd, stdin: stdin}
}

// TestBusyAcrossProcesses: while another process runs the session, a run
// with NoWait gets busy naming that process, and a waiting run starts
// once the other process lets go (released, or killed).
func TestBusyAcrossProcesses(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "sessions", "s.jsonl.run.lock")
	r := newRig(t, lane.Options{PollInterval: time.Second})
	h := startHolder(t, lock)

	_, _, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: lock, NoWait: true})
	var be *lane.BusyError
	if !errors.Is(err, lane.ErrBusy) || !errors.As(err, &be) || be.PID != h.cmd.Process.Pid {
		t.Fatalf("got %v, want busy naming pid %d", err, h.cmd.Process.Pid)
	}
	if st := r.s.Stats(); st.Runs != 0 || st.Queued != 0 {
		t.Fatalf("a refused run left state: %+v", st)
	}

	// A waiting run polls the lock on the (fake) clock.
	out := make(chan entered, 1)
	enterAsync(context.Background(), r.s, lane.RunOptions{Session: "shared", LockFile: lock}, "waiter", out)
	r.await(t, lane.EventRunWait)
	r.clock.Advance(time.Second)
	none(t, out) // still held
	h.stdin.Close()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	r.clock.Advance(time.Second)
	e := recv(t, out)
	if e.err != nil {
		t.Fatal(e.err)
	}

	// Now this process holds it: the other process gets busy.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+lock)
	msg, err := cmd.CombinedOutput()
	if want := fmt.Sprintf("session shared is busy: process %d is running it", os.Getpid()); err == nil || !strings.Contains(string(msg), want) {
		t.Fatalf("the other process: %v %q, want %q", err, msg, want)
	}
	e.run.Release()
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock file outlived the run: %v", err)
	}

	// A holder killed with SIGKILL frees the session.
	h = startHolder(t, lock)
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = h.cmd.Wait()
	h.stdin.Close()
	_, run, err := r.s.Enter(context.Background(), lane.RunOptions{Session: "shared", LockFile: lock, NoWait: true})
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	run.Release()
}
