package builtin

import (
	"fmt"
	"github.com/reinhq/rein/internal/proc"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Jobs is the table of background commands the model started with bash
// (background: true). They run until they end or KillAll stops them; the
// harness calls KillAll when the session ends. The zero value is ready;
// safe for concurrent use.
type Jobs struct {
	mu   sync.Mutex
	next int
	list []*job
}

type job struct {
	info JobInfo
	done chan struct{}
	err  error
}

// JobInfo describes one background job.
type JobInfo struct {
	ID      int       `json:"id"`
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	LogPath string    `json:"log_path"`
	Started time.Time `json:"started"`
	Running bool      `json:"running"`
}

func (j *Jobs) add(command string, pid int, logPath string, done chan struct{}) JobInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.next++
	jb := &job{info: JobInfo{ID: j.next, Command: command, PID: pid, LogPath: logPath, Started: time.Now(), Running: true}, done: done}
	j.list = append(j.list, jb)
	return jb.info
}

// List returns the jobs started so far, running or not.
func (j *Jobs) List() []JobInfo {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]JobInfo, 0, len(j.list))
	for _, jb := range j.list {
		info := jb.info
		select {
		case <-jb.done:
			info.Running = false
		default:
		}
		out = append(out, info)
	}
	return out
}

// KillAll kills every job still running (its whole process group) and
// returns the ones it killed.
func (j *Jobs) KillAll() []JobInfo {
	var killed []JobInfo
	for _, info := range j.List() {
		if !info.Running {
			continue
		}
		proc.Kill(info.PID)
		killed = append(killed, info)
	}
	j.mu.Lock()
	list := append([]*job(nil), j.list...)
	j.mu.Unlock()
	for _, jb := range list {
		select {
		case <-jb.done:
		case <-time.After(2 * time.Second):
		}
	}
	return killed
}

// procDir is where bash records the process groups it has running,
// relative to the workspace root: one file per group, named by its id,
// holding the leader's start time, removed when the group is gone.
const procDir = ".rein/procs"

// recordGroup notes that process group pgid is running. It returns a
// function that removes the note.
func recordGroup(root string, pgid int, command string) func() {
	dir := filepath.Join(root, filepath.FromSlash(procDir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}
	}
	_ = ignoreOutputDir(filepath.Dir(dir))
	name := filepath.Join(dir, strconv.Itoa(pgid))
	start := procStart(pgid)
	if start == "" {
		return func() {}
	}
	owner := fmt.Sprintf("%d %s", os.Getpid(), procStart(os.Getpid()))
	_ = os.WriteFile(name, []byte(start+"\n"+owner+"\n"+command+"\n"), 0o600)
	return func() { os.Remove(name) }
}

// KillRecorded kills the process groups a previous rein process recorded
// as running in the workspace at root and never saw end (it was killed
// or crashed), and returns their ids. Groups of a rein process that is
// still running are left alone. Call it before an interrupted
// session is resumed, so nothing from the old run writes after the
// interrupted call is repaired. A group whose leader's start time no
// longer matches (the id was reused) is left alone.
func KillRecorded(root string) []int {
	dir := filepath.Join(root, filepath.FromSlash(procDir))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var killed []int
	for _, e := range ents {
		pgid, err := strconv.Atoi(e.Name())
		if err != nil || pgid <= 1 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err == nil {
			start, rest, _ := strings.Cut(string(data), "\n")
			owner, _, _ := strings.Cut(rest, "\n")
			if opid, ostart, ok := strings.Cut(owner, " "); ok {
				if n, err := strconv.Atoi(opid); err == nil && ostart != "" && procStart(n) == ostart {
					continue // its rein is alive and owns it
				}
			}
			if cur := procStart(pgid); cur != "" && cur == start {
				proc.Kill(pgid)
				killed = append(killed, pgid)
			} else if cur == "" && proc.Alive(pgid) {
				// The leader is gone but members remain.
				proc.Kill(pgid)
				killed = append(killed, pgid)
			}
		}
		os.Remove(path)
	}
	return killed
}

// procStart returns the start time (in clock ticks since boot) of
// process pid, or "" when it does not exist.
func procStart(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
