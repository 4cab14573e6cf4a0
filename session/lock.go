package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// The lock of a session file <f> is an flock(2) on <f>.lock, a small
// file recording who holds it. The kernel releases an flock when its
// holder dies, so a crashed writer never blocks the next one. The record
// covers the remaining case: the lock is still held, but by a process
// that inherited the descriptor from the writer named in the record, and
// that writer is dead (it ran on this host, in this pid namespace, and
// its pid no longer exists). Such a lock is stale: the lock file is
// removed and the lock taken on a fresh one. A holder always checks,
// after locking, that the path still names the file it locked, so two
// processes can never both believe they hold the lock.

// lockRecord is the content of a lock file.
type lockRecord struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// PIDNS names the holder's pid namespace where the system has them
	// (Linux): containers on one host can share a host name and a
	// workspace, and a pid means nothing outside its namespace.
	PIDNS string    `json:"pidns,omitempty"`
	Since time.Time `json:"since"`
}

// stale reports whether rec names a writer that is certainly dead: one on
// this host, in this pid namespace, whose process no longer exists.
func (rec lockRecord) stale(host, ns string) bool {
	return rec.PID > 0 && rec.Host == host && rec.PIDNS == ns && rec.PID != os.Getpid() && !processAlive(rec.PID)
}

// staleGrace is how long a lock that looks stale is watched before it is
// taken over.
const staleGrace = 20 * time.Millisecond

type fileLock struct {
	fl   *flock.Flock
	path string
}

// lockPath is the lock file of a session file.
func lockPath(session string) string { return session + ".lock" }

// acquire takes the lock of the session file at path without waiting.
// It returns a *LockedError when a live writer holds it.
func acquire(path string, now time.Time) (*fileLock, error) {
	lp := lockPath(path)
	host, _ := os.Hostname()
	ns := pidNamespace()
	for attempt := 0; attempt < 5; attempt++ {
		fl := flock.New(lp, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("session %s: taking the lock %s: %w", path, lp, err)
		}
		if !ok {
			rec, info := readLockRecord(lp)
			if info != nil && rec.stale(host, ns) {
				// Stale: its writer is dead and whoever still holds the
				// descriptor is not writing this session. Look again
				// after a moment, in case a new holder has just locked
				// a leftover file and is about to rewrite the record.
				time.Sleep(staleGrace)
				again, info2 := readLockRecord(lp)
				if again == rec && info2 != nil && os.SameFile(info, info2) {
					_ = os.Remove(lp)
				}
				continue
			}
			return nil, &LockedError{Path: path, PID: rec.PID, Host: rec.Host}
		}
		// Locked; make sure the path still names the locked file (a
		// previous holder may have removed it while we opened it).
		held, herr := fl.Stat()
		cur, cerr := os.Stat(lp)
		if herr != nil || cerr != nil || !os.SameFile(held, cur) {
			_ = fl.Close()
			continue
		}
		if err := writeLockRecord(lp, held, lockRecord{PID: os.Getpid(), Host: host, PIDNS: ns, Since: now.UTC()}); err != nil {
			_ = fl.Close()
			return nil, fmt.Errorf("session %s: writing the lock %s: %w", path, lp, err)
		}
		return &fileLock{fl: fl, path: lp}, nil
	}
	return nil, fmt.Errorf("session %s: the lock %s keeps changing hands; try again", path, lp)
}

// readLockRecord reads a lock file; a record that cannot be read is zero.
func readLockRecord(lp string) (lockRecord, os.FileInfo) {
	var rec lockRecord
	f, err := os.Open(lp)
	if err != nil {
		return rec, nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return rec, nil
	}
	b := make([]byte, 512)
	n, _ := f.Read(b)
	if json.Unmarshal(b[:n], &rec) != nil {
		return lockRecord{}, info
	}
	return rec, info
}

// writeLockRecord replaces the content of the lock file, provided the
// path still names the locked file.
func writeLockRecord(lp string, held os.FileInfo, rec lockRecord) error {
	f, err := os.OpenFile(lp, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(info, held) {
		return errors.New("the lock file was replaced while it was being taken")
	}
	b, _ := json.Marshal(rec)
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(b, '\n'), 0)
	return err
}

// release removes the lock file and then unlocks it, so that the next
// writer locks a fresh file (see acquire's check).
func (l *fileLock) release() error {
	if l == nil {
		return nil
	}
	if held, err := l.fl.Stat(); err == nil {
		if cur, err := os.Stat(l.path); err == nil && os.SameFile(held, cur) {
			_ = os.Remove(l.path)
		}
	}
	return l.fl.Close()
}
