//go:build unix

package proc

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Prepare makes cmd, not yet started, lead a process group of its own
// and, on Linux, receive SIGKILL when rein dies. It keeps every other
// SysProcAttr field, and a parent-death signal already chosen (a sandbox
// helper asks for SIGTERM, to clean up before it goes).
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSig(cmd.SysProcAttr)
}

// Stop ends the process group led by pid and every descendant of the
// leader: SIGTERM to all, then SIGKILL to all once none is alive (zombies
// count as gone) or grace has passed; grace <= 0 sends SIGKILL at once.
// exited, when not nil, is closed when the caller has reaped the leader;
// Stop then looks again at once instead of at its next poll. Stop
// returns after the SIGKILL (or once everything is gone); the caller
// still reaps the leader. Safe for concurrent use.
func Stop(pid int, exited <-chan struct{}, grace time.Duration) {
	if pid <= 1 {
		return
	}
	targets := members(pid)
	signalAll(pid, targets, syscall.SIGTERM)
	if grace > 0 {
		deadline := time.NewTimer(grace)
		defer deadline.Stop()
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
	wait:
		for {
			targets = append(targets, members(pid)...)
			if !anyAlive(pid, targets) {
				return
			}
			select {
			case <-exited:
				exited = nil
			case <-tick.C:
			case <-deadline.C:
				break wait
			}
		}
	}
	Kill(pid, targets...)
}

// Kill sends SIGKILL at once to the process group pgid and to the extra
// processes given. It looks for no descendants, so it is safe to call
// after the leader was reaped and its pid may be reused: a process
// group's id is not reused while the group has a member.
func Kill(pgid int, extra ...int) {
	if pgid <= 1 {
		return
	}
	signalAll(pgid, extra, syscall.SIGKILL)
}

// Alive reports whether the process group pgid has a member that is not
// a zombie.
func Alive(pgid int) bool {
	if pgid <= 1 || syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	for _, p := range snapshot() {
		if p.pgrp == pgid && p.live {
			return true
		}
	}
	return false
}

func signalAll(pgid int, pids []int, s syscall.Signal) {
	_ = syscall.Kill(-pgid, s)
	for _, p := range pids {
		if p > 1 {
			_ = syscall.Kill(p, s)
		}
	}
}

// anyAlive reports whether the group or one of pids is alive.
func anyAlive(pgid int, pids []int) bool {
	procs := snapshot()
	byPid := make(map[int]procInfo, len(procs))
	for _, p := range procs {
		byPid[p.pid] = p
		if p.pgrp == pgid && p.live {
			return true
		}
	}
	for _, pid := range pids {
		if p, ok := byPid[pid]; ok && p.live {
			return true
		}
	}
	return false
}

// members returns the live processes of group pgid and the descendants
// of its leader (pid pgid), wherever their group or session.
func members(pgid int) []int {
	procs := snapshot()
	children := map[int][]int{}
	var out []int
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.pgrp == pgid && p.pid != pgid && p.live {
			out = append(out, p.pid)
		}
	}
	seen := map[int]bool{pgid: true}
	queue := []int{pgid}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		for _, c := range children[q] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

type procInfo struct {
	pid, ppid, pgrp int
	live            bool // not a zombie
}

// snapshot reads the process table from /proc; where there is no /proc
// it is empty and Stop relies on group signals alone.
func snapshot() []procInfo {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, procInfo{pid: pid, ppid: ppid, pgrp: pgrp, live: f[0] != "Z" && f[0] != "X"})
	}
	return out
}
