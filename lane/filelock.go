package lane

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// A session shared across processes is guarded by an flock(2) on a small
// lock file beside the session (LockFile, such as <session>.run.lock),
// held from the start of a run of this process until the last run queued
// behind it here ends. The kernel releases it when its holder dies. The
// file records the holder's pid so a busy error can name it. Release
// removes the file before unlocking it; a taker therefore checks, once
// locked, that the path still names the file it locked.

type fileLock struct {
	fl   *flock.Flock
	path string
}

type lockRecord struct {
	PID int `json:"pid"`
}

// tryLock takes the lock file at path without waiting. It returns nil
// and the holder's pid (0 when unknown) when another holder has it.
func tryLock(path string) (*fileLock, int, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, 0, fmt.Errorf("lane: lock %s: %w", path, err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
		ok, err := fl.TryLock()
		if err != nil {
			return nil, 0, fmt.Errorf("lane: taking the lock %s: %w", path, err)
		}
		if !ok {
			return nil, readHolder(path), nil
		}
		held, herr := fl.Stat()
		cur, cerr := os.Stat(path)
		if herr != nil || cerr != nil || !os.SameFile(held, cur) {
			_ = fl.Close()
			continue
		}
		b, _ := json.Marshal(lockRecord{PID: os.Getpid()})
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
			_, _ = f.Write(append(b, '\n'))
			_ = f.Close()
		}
		return &fileLock{fl: fl, path: path}, 0, nil
	}
	return nil, 0, fmt.Errorf("lane: the lock %s keeps changing hands; try again", path)
}

func readHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var rec lockRecord
	if json.Unmarshal([]byte(strings.TrimSpace(string(b))), &rec) != nil {
		return 0
	}
	return rec.PID
}

// release removes the lock file, then unlocks it.
func (l *fileLock) release() {
	if l == nil {
		return
	}
	if held, err := l.fl.Stat(); err == nil {
		if cur, err := os.Stat(l.path); err == nil && os.SameFile(held, cur) {
			_ = os.Remove(l.path)
		}
	}
	_ = l.fl.Close()
}
