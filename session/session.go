package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
)

// Session is an open session file: the single writer of an append-only
// JSONL tree log. It holds the file's lock until Close. A Session is safe
// for concurrent use; its methods are serialised.
type Session struct {
	mu   sync.Mutex
	opts Options
	path string
	f    File
	lock *fileLock
	log  *log
	enc  encoder

	repairs  []Repair
	dropped  []Entry   // requests Open settled as dropped
	dirty    bool      // written since the last fsync
	lastSync time.Time // when the last fsync happened (SyncBatch)
	broken   error     // set when a failed write could not be undone
	closed   bool
}

// fileTimeFormat names session files so that they sort by creation time.
const fileTimeFormat = "2006-01-02T15-04-05.000Z"

// Create makes a new session file <Dir>/<timestamp>_<id>.jsonl, takes its
// lock and writes its header durably (the file and its directory entry
// are fsynced) before returning.
func Create(opts Options) (*Session, error) {
	now := opts.now().UTC()
	h := Header{Type: HeaderType, Version: FormatVersion, ID: opts.sessionID(), Created: now, Cwd: opts.Cwd, Agent: opts.Agent}
	return create(opts, h, nil)
}

// create makes a new session file holding h and then entries, which must
// form a valid log (parents before children).
func create(opts Options, h Header, entries []Entry) (*Session, error) {
	dir := opts.Dir
	if dir == "" {
		if opts.Cwd == "" {
			return nil, errors.New("session: Options.Dir or Options.Cwd is needed to create a session")
		}
		dir = DefaultDir(opts.Cwd)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, h.Created.Format(fileTimeFormat)+"_"+h.ID+".jsonl")
	lk, err := acquire(path, opts.now())
	if err != nil {
		return nil, err
	}
	s := &Session{opts: opts, path: path, lock: lk, lastSync: opts.now()}
	s.log = &log{header: h, index: make(map[string]int, len(entries)), labels: make(map[string]string)}
	f, err := opts.openFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		_ = lk.release()
		return nil, fmt.Errorf("session: creating %s: %w", path, err)
	}
	s.f = f
	fail := func(err error) (*Session, error) {
		_ = f.Close()
		_ = os.Remove(path)
		_ = lk.release()
		return nil, err
	}
	line, err := s.enc.line(&h)
	if err != nil {
		return fail(fmt.Errorf("session: encoding the header: %w", err))
	}
	if err := s.write(line); err != nil {
		return fail(err)
	}
	for i := range entries {
		line, err := s.enc.entryLine(&entries[i])
		if err != nil {
			return fail(fmt.Errorf("session: encoding entry %s: %w", entries[i].ID, err))
		}
		if line, err = s.outgoing(line, &entries[i]); err != nil {
			return fail(err)
		}
		if err := s.write(line); err != nil {
			return fail(err)
		}
		s.log.add(entries[i])
	}
	if err := s.sync(); err != nil {
		return fail(err)
	}
	syncDir(dir)
	return s, nil
}

// Open takes the lock of an existing session file and loads it. It
// restores the leaf from the last leaf-affecting entry, sets a torn last
// line aside (into <path>.torn-<timestamp>, then truncates the file before
// it, durably), and repairs the active branch: tool calls left without a
// result get a synthetic error result (see Repairs). What it set aside is
// in Issues. It fails with ErrInUse when another writer holds the lock,
// ErrNotSession when the file has no valid header and ErrVersion when a
// newer, incompatible version wrote it.
func Open(path string, opts Options) (*Session, error) {
	lk, err := acquire(path, opts.now())
	if err != nil {
		return nil, err
	}
	s, err := open(path, opts, lk)
	if err != nil {
		_ = lk.release()
		return nil, err
	}
	return s, nil
}

func open(path string, opts Options, lk *fileLock) (*Session, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	var size int64
	if fi, err := r.Stat(); err == nil {
		size = fi.Size()
	}
	l, err := readLog(r, path, size)
	r.Close()
	if err != nil {
		return nil, err
	}
	if l.header.Version > FormatVersion {
		return nil, &FormatError{Path: path, Line: 1, Err: ErrVersion,
			Detail: fmt.Sprintf("written by format version %d, newer than this program's %d; upgrade to write to it (reading works)", l.header.Version, FormatVersion)}
	}
	f, err := opts.openFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	s := &Session{opts: opts, path: path, f: f, lock: lk, log: l, lastSync: opts.now()}
	if err := s.fixTail(); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := s.repair(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return s, nil
}

// fixTail sets a torn last line aside and ends the file with a newline.
func (s *Session) fixTail() error {
	l := s.log
	switch {
	case l.torn:
		side, err := saveTorn(s.path, l.size, s.opts.now())
		if err != nil {
			return fmt.Errorf("session: saving the torn last line of %s: %w", s.path, err)
		}
		for i := range l.issues {
			if l.issues[i].Kind == IssueTornLine {
				l.issues[i].Sidecar = side
				l.issues[i].Detail += "; moved to the sidecar file and cut from the session file"
			}
		}
		if err := s.f.Truncate(l.size); err != nil {
			return &WriteError{Path: s.path, Op: "truncate", Err: err}
		}
		l.torn = false
		s.dirty = true
	case l.noNewline:
		if err := s.write([]byte{'\n'}); err != nil {
			return err
		}
		l.noNewline = false
	}
	if s.dirty {
		return s.sync()
	}
	return nil
}

// saveTorn copies the bytes of path from off to its end into a sidecar
// file and fsyncs it.
func saveTorn(path string, off int64, now time.Time) (string, error) {
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	if _, err := src.Seek(off, 0); err != nil {
		return "", err
	}
	base := fmt.Sprintf("%s.torn-%s", path, now.UTC().Format("20060102T150405.000000000Z"))
	side := base
	dst, err := os.OpenFile(side, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	for i := 1; errors.Is(err, fs.ErrExist) && i < 100; i++ {
		side = fmt.Sprintf("%s-%d", base, i)
		dst, err = os.OpenFile(side, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		return "", err
	}
	if _, err := dst.ReadFrom(src); err != nil {
		dst.Close()
		return "", err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		return "", err
	}
	return side, dst.Close()
}

// syncDir makes a new directory entry durable, best-effort (not every
// platform can fsync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// Path is the session file.
func (s *Session) Path() string { return s.path }

// ID is the session's ID from its header.
func (s *Session) ID() string { return s.log.header.ID }

// Header is the session's header.
func (s *Session) Header() Header { return s.log.header }

// Leaf is the ID of the current leaf; "" means before the first entry.
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.leaf
}

// Name is the session's name from its latest session_info entry.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.name
}

// Issues lists what loading set aside or changed (nil for a new session).
func (s *Session) Issues() []LoadIssue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LoadIssue(nil), s.log.issues...)
}

// Repairs lists the synthetic tool results Open (or Fork) appended.
func (s *Session) Repairs() []Repair {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Repair(nil), s.repairs...)
}

// Entries returns every entry in file order (a copy of the list; the
// entries' messages are shared and must not be modified).
func (s *Session) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.entries.all()
}

// Entry returns the entry with this ID.
func (s *Session) Entry(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.log.get(id)
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// Labels returns the current label of every labelled entry.
func (s *Session) Labels() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]string, len(s.log.labels))
	for k, v := range s.log.labels {
		m[k] = v
	}
	return m
}

// Branch returns the path from the root to the entry id, in order: the
// tree entries whose messages and settings make up that point of the
// conversation. id "" gives an empty path.
func (s *Session) Branch(id string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != "" {
		if !s.log.isTree(id) {
			return nil, fmt.Errorf("%w: %q is not a tree entry of %s", ErrNotFound, id, s.path)
		}
	}
	return s.log.branch(id), nil
}

// Context builds the conversation at the current leaf (see BuildContext).
func (s *Session) Context() Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.context(s.log.leaf)
}

// AppendMessage appends a message entry under the current leaf.
func (s *Session) AppendMessage(m llm.Message) (Entry, error) {
	return s.Append(Entry{Type: TypeMessage, Message: &m})
}

// Navigate moves the leaf to the tree entry id ("" = before the first
// entry, so that the next entry starts a new root) by appending a durable
// leaf entry; reopening the session restores it.
func (s *Session) Navigate(id string) error {
	_, err := s.Append(Entry{Type: TypeLeaf, Target: id})
	return err
}

// Label sets the label of entry id; "" clears it.
func (s *Session) Label(id, label string) error {
	_, err := s.Append(Entry{Type: TypeLabel, Target: id, Label: label})
	return err
}

// SetName names the session (shown by List).
func (s *Session) SetName(name string) error {
	_, err := s.Append(Entry{Type: TypeSessionInfo, Name: name})
	return err
}
