package proc

import (
	"bufio"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// started is a real shell command started with Prepare, whose stdout
// lines report the pids of the processes it started.
type started struct {
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	exited chan struct{}
	err    error
}

func start(t *testing.T, script string) *started {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	Prepare(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, lines: bufio.NewScanner(out), exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		Kill(cmd.Process.Pid)
		<-s.exited
	})
	return s
}

// pid reads the next pid the command printed: the event that says the
// process exists and is ready.
func (s *started) pid(t *testing.T) int {
	t.Helper()
	if !s.lines.Scan() {
		t.Fatalf("the command printed no pid: %v", s.lines.Err())
	}
	n, err := strconv.Atoi(strings.TrimSpace(s.lines.Text()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// signalOf returns the signal that ended the leader, after it exited.
func (s *started) signalOf(t *testing.T) syscall.Signal {
	t.Helper()
	<-s.exited
	var ee *exec.ExitError
	if !errors.As(s.err, &ee) {
		t.Fatalf("the leader ended with %v, not by a signal", s.err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		t.Fatalf("the leader exited with status %d, not by a signal", ws.ExitStatus())
	}
	return ws.Signal()
}

// waitGone waits, on a pidfd (an event, not a poll), until pid has
// exited; a process that is already a zombie or gone returns at once.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 30_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("process %d still runs 30 s after Stop returned", pid)
		}
		return
	}
}

// A group that ends on SIGTERM ends by SIGTERM: Stop does not wait out
// its grace, nor reach for SIGKILL.
func TestStopTerminatesGroup(t *testing.T) {
	s := start(t, `sleep 1000 & echo $!; exec sleep 1000`)
	child := s.pid(t)
	Stop(s.cmd.Process.Pid, s.exited, DefaultGrace*30)
	if sig := s.signalOf(t); sig != syscall.SIGTERM {
		t.Fatalf("the leader ended by %v, want SIGTERM", sig)
	}
	waitGone(t, child)
	if Alive(s.cmd.Process.Pid) {
		t.Fatal("the group is still alive after Stop")
	}
}

// Members that ignore SIGTERM are killed once grace has passed, the
// leader included.
func TestStopKillsWhatIgnoresTerm(t *testing.T) {
	s := start(t, `trap "" TERM; sleep 1000 & echo $!; exec sleep 1000`)
	child := s.pid(t)
	Stop(s.cmd.Process.Pid, s.exited, 50e6)
	if sig := s.signalOf(t); sig != syscall.SIGKILL {
		t.Fatalf("the leader ended by %v, want SIGKILL", sig)
	}
	waitGone(t, child)
}

// A setsid'd grandchild has left the group, yet descends from the
// leader: Stop reaches it, even when it ignores SIGTERM.
func TestStopReachesSetsidGrandchild(t *testing.T) {
	s := start(t, `setsid sh -c 'trap "" TERM; echo $$; exec sleep 1000' & wait`)
	grand := s.pid(t)
	if pg, err := syscall.Getpgid(grand); err != nil || pg == s.cmd.Process.Pid {
		t.Fatalf("the grandchild's group is %d (%v); the test would prove nothing", pg, err)
	}
	Stop(s.cmd.Process.Pid, s.exited, 50e6)
	s.signalOf(t)
	waitGone(t, grand)
}

// grace <= 0 kills at once; Kill and Alive agree.
func TestStopWithoutGraceKills(t *testing.T) {
	s := start(t, `trap "" TERM; echo $$; exec sleep 1000`)
	s.pid(t)
	if !Alive(s.cmd.Process.Pid) {
		t.Fatal("Alive = false for a running group")
	}
	Stop(s.cmd.Process.Pid, nil, 0)
	if sig := s.signalOf(t); sig != syscall.SIGKILL {
		t.Fatalf("the leader ended by %v, want SIGKILL", sig)
	}
	if Alive(s.cmd.Process.Pid) {
		t.Fatal("Alive = true after the group was killed")
	}
}

// Prepare keeps what the caller set and a parent-death signal already
// chosen.
func TestPrepareKeepsSettings(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setsid: false, Noctty: true}
	Prepare(cmd)
	a := cmd.SysProcAttr
	if !a.Setpgid || a.Pdeathsig != syscall.SIGTERM || !a.Noctty {
		t.Fatalf("SysProcAttr = %+v", a)
	}
	cmd = exec.Command("true")
	Prepare(cmd)
	if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Fatalf("SysProcAttr = %+v", cmd.SysProcAttr)
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
