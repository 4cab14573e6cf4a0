package long

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"
)

// Store reads and writes the progress and notes files of one workspace.
// Every write takes the workspace's long-mode lock (a file lock, so other
// processes see it too) and replaces the progress file atomically. The
// Store remembers the content it last read or wrote, so that a change made
// behind its back can be noticed (Changed) and undone (Restore). Safe for
// concurrent use.
type Store struct {
	root   string
	layout Layout
	lock   *flock.Flock

	wmu  sync.Mutex // held with the file lock
	mu   sync.Mutex
	last []byte // the progress file as the store last read or wrote it
}

// NewStore returns the store of the workspace root with layout l. It
// touches no file.
func NewStore(root string, l Layout) *Store {
	return &Store{root: root, layout: l, lock: flock.New(filepath.Join(root, ".rein", "long", "lock"))}
}

// Layout returns the store's layout.
func (s *Store) Layout() Layout { return s.layout }

// Root returns the workspace root.
func (s *Store) Root() string { return s.root }

// Path returns the absolute path of the workspace file name (one of the
// layout's).
func (s *Store) Path(name string) string { return filepath.Join(s.root, filepath.FromSlash(name)) }

// ProgressPath is the absolute path of the progress file.
func (s *Store) ProgressPath() string { return s.Path(s.layout.Progress) }

// NotesPath is the absolute path of the notes file.
func (s *Store) NotesPath() string { return s.Path(s.layout.Notes) }

// SetupPath is the absolute path of the set-up script.
func (s *Store) SetupPath() string { return s.Path(s.layout.Setup) }

// Load reads and checks the progress file. A missing file is an error
// wrapping fs.ErrNotExist; a malformed one is Problems with lines.
func (s *Store) Load() (*Plan, error) {
	data, err := os.ReadFile(s.ProgressPath())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: run rein long init \"GOAL\" to write a plan first: %w", s.layout.Progress, err)
		}
		return nil, err
	}
	p, err := Parse(s.layout.Preset, s.layout.Progress, data)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.last = data
	s.mu.Unlock()
	return p, nil
}

// Update applies fn to the plan on disk and writes the result, under the
// lock. The plan fn leaves must still be valid; when it is not, or fn
// fails, nothing is written and the error is returned.
func (s *Store) Update(fn func(*Plan) error) (*Plan, error) {
	unlock, err := s.withLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := s.Load()
	if err != nil {
		return nil, err
	}
	if err := fn(p); err != nil {
		return nil, err
	}
	if probs := validate(s.layout.Preset, s.layout.Progress, nil, p, nil); len(probs) > 0 {
		return nil, probs
	}
	data, err := encode(s.layout.Preset, p)
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(s.ProgressPath(), data); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.last = data
	s.mu.Unlock()
	return p, nil
}

// Changed reports whether the progress file differs from what the store
// last read or wrote: someone changed it behind the store's back.
func (s *Store) Changed() (bool, error) {
	data, err := os.ReadFile(s.ProgressPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last != nil && !bytes.Equal(data, s.last), nil
}

// Restore writes back the progress file as the store last read or wrote
// it.
func (s *Store) Restore() error {
	unlock, err := s.withLock()
	if err != nil {
		return err
	}
	defer unlock()
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil {
		return errors.New("the progress file was never read: nothing to restore")
	}
	return writeAtomic(s.ProgressPath(), last)
}

// AppendNotes appends text to the notes file under the lock, creating it
// when missing, separated from what is there by a blank line.
func (s *Store) AppendNotes(text string) error {
	unlock, err := s.withLock()
	if err != nil {
		return err
	}
	defer unlock()
	path := s.NotesPath()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var b bytes.Buffer
	if len(old) > 0 {
		if !bytes.HasSuffix(old, []byte("\n")) {
			b.WriteByte('\n')
		}
		if !bytes.HasSuffix(old, []byte("\n\n")) {
			b.WriteByte('\n')
		}
	}
	b.WriteString(text)
	if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// NotesTail returns about the last n bytes of the notes file, starting at
// a line, or "" when there is none.
func (s *Store) NotesTail(n int) (string, error) {
	data, err := os.ReadFile(s.NotesPath())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if n > 0 && len(data) > n {
		cut := len(data) - n
		if data[cut-1] != '\n' {
			if i := bytes.IndexByte(data[cut:], '\n'); i >= 0 {
				cut += i + 1
			}
		}
		data = data[cut:]
	}
	return string(data), nil
}

// withLock takes the store's lock: a mutex for this process's goroutines
// (a file lock held by a process admits all of them) and the file lock.
func (s *Store) withLock() (unlock func(), err error) {
	s.wmu.Lock()
	if err := os.MkdirAll(filepath.Dir(s.lock.Path()), 0o755); err != nil {
		s.wmu.Unlock()
		return nil, err
	}
	if err := s.lock.Lock(); err != nil {
		s.wmu.Unlock()
		return nil, fmt.Errorf("locking %s: %w", s.lock.Path(), err)
	}
	return func() {
		s.lock.Unlock()
		s.wmu.Unlock()
	}, nil
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, synced, given the old file's mode, renamed over it.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
