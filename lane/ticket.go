package lane

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// Across processes the session lock alone is exclusive but not fair:
// whoever tries it first after a release wins. So a run that must wait
// for another process takes a ticket: a file in a queue folder beside
// the lock file (<lock>.q), named by a number one above every ticket
// there, and flock'ed by its owner for as long as it waits. The session
// goes to the run holding the lowest live ticket; a ticket whose file is
// not locked belongs to a process that died and is removed by whoever
// finds it. Every change of the folder is made under an flock of the
// folder's own lock file, so numbering and removal do not race.

// ticket is one waiting run's place in the cross-process queue.
type ticket struct {
	dir  string
	name string
	fl   *flock.Flock
}

const ticketPrefix = "t-"

// queueDir is the queue folder of a lock file.
func queueDir(lockFile string) string { return lockFile + ".q" }

// withQueue runs fn with the queue folder of lockFile locked, making
// the folder when create is set; without it, a missing folder (no one
// waits) runs fn with dir "". The folder is removed when the last ticket
// leaves it, so a taker checks, once locked, that the lock file it holds
// is still the folder's.
func withQueue(lockFile string, create bool, fn func(dir string) error) error {
	dir := queueDir(lockFile)
	lockPath := filepath.Join(dir, ".lock")
	for range 5 {
		if create {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("lane: queue %s: %w", dir, err)
			}
		} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return fn("")
		}
		dl := flock.New(lockPath, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
		if err := dl.Lock(); err != nil {
			if !create && errors.Is(err, fs.ErrNotExist) {
				return fn("")
			}
			return fmt.Errorf("lane: locking the queue %s: %w", dir, err)
		}
		held, herr := dl.Stat()
		cur, cerr := os.Stat(lockPath)
		if herr != nil || cerr != nil || !os.SameFile(held, cur) {
			_ = dl.Close()
			continue
		}
		err := fn(dir)
		if len(liveTickets(dir)) == 0 {
			// No one waits: leave nothing behind beside the session.
			_ = os.Remove(lockPath)
			_ = os.Remove(dir)
		}
		_ = dl.Close()
		return err
	}
	return fmt.Errorf("lane: the queue %s keeps changing; try again", dir)
}

// liveTickets lists the tickets of dir in queue order, removing those
// of processes that died. A ticket of this process is live too: flock
// locks belong to open files, so trying one opened again fails while its
// owner holds it. Called with the folder locked.
func liveTickets(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, ticketPrefix) {
			continue
		}
		p := filepath.Join(dir, n)
		fl := flock.New(p, flock.SetFlag(os.O_RDWR))
		if ok, err := fl.TryLock(); err == nil && ok {
			// No one holds it: its owner died.
			_ = os.Remove(p)
			_ = fl.Close()
			continue
		}
		_ = fl.Close()
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(a, b) })
	return out
}

// ticketNumber reads the number of a ticket's name (0 when malformed).
func ticketNumber(name string) uint64 {
	num, _, _ := strings.Cut(strings.TrimPrefix(name, ticketPrefix), "-")
	n, _ := strconv.ParseUint(num, 10, 64)
	return n
}

// takeTicket puts a ticket at the end of lockFile's queue and locks it.
func takeTicket(lockFile string) (*ticket, error) {
	var t *ticket
	err := withQueue(lockFile, true, func(dir string) error {
		var last uint64
		for _, n := range liveTickets(dir) {
			last = max(last, ticketNumber(n))
		}
		name := fmt.Sprintf("%s%020d-%d", ticketPrefix, last+1, os.Getpid())
		fl := flock.New(filepath.Join(dir, name), flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
		ok, err := fl.TryLock()
		if err != nil || !ok {
			_ = fl.Close()
			return fmt.Errorf("lane: taking a ticket in %s: %v", dir, err)
		}
		t = &ticket{dir: dir, name: name, fl: fl}
		return nil
	})
	return t, err
}

// String is the ticket's name ("" for none).
func (t *ticket) String() string {
	if t == nil {
		return ""
	}
	return t.name
}

// drop removes the ticket from the queue (and the queue folder when it
// was the last). Nil-safe; idempotent.
func (t *ticket) drop(lockFile string) {
	if t == nil || t.fl == nil {
		return
	}
	_ = withQueue(lockFile, false, func(dir string) error {
		_ = os.Remove(filepath.Join(t.dir, t.name))
		_ = t.fl.Close()
		t.fl = nil
		return nil
	})
	if t.fl != nil {
		_ = os.Remove(filepath.Join(t.dir, t.name))
		_ = t.fl.Close()
		t.fl = nil
	}
}

// first reports whether no live ticket of lockFile's queue comes before
// the ticket named name (for "": whether no ticket waits at all). A
// queue that cannot be read holds no one back.
func first(lockFile, name string) bool {
	head := true
	_ = withQueue(lockFile, false, func(dir string) error {
		if dir == "" {
			return nil
		}
		if ts := liveTickets(dir); len(ts) > 0 && ts[0] != name {
			head = false
		}
		return nil
	})
	return head
}
