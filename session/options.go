package session

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"time"
)

// SyncMode says when appended entries are made durable.
type SyncMode int

const (
	// SyncEvery writes and fsyncs every entry before Append returns. It is
	// the default.
	SyncEvery SyncMode = iota
	// SyncBatch writes every entry before Append returns (so it survives
	// the process dying) but fsyncs only on Flush, on Close, and on the
	// first Append after SyncInterval has passed since the last fsync, so
	// an operating-system crash or power loss may lose the entries since
	// the last fsync.
	SyncBatch
)

// DefaultSyncInterval is the SyncBatch interval when Options.SyncInterval
// is zero.
const DefaultSyncInterval = time.Second

// File is the part of *os.File a session writes through. The file is
// opened for appending: every Write goes to the end of the file.
type File interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// Options configure Create, Open and Fork. The zero value is usable
// except that Create and Fork need a directory (Dir, or Cwd to derive it).
type Options struct {
	// Dir is where Create and Fork put the new file. Empty means
	// DefaultDir(Cwd); Fork falls back to the source session's directory.
	Dir string
	// Cwd is recorded in the header of a new session.
	Cwd string
	// Agent, for a sub-agent's session, is recorded in the header of a
	// new session (Create).
	Agent *AgentLink
	// Sync selects the durability of appends; see SyncMode.
	Sync SyncMode
	// SyncInterval bounds how long SyncBatch leaves written entries
	// without an fsync; zero means DefaultSyncInterval.
	SyncInterval time.Duration
	// Now stamps entries and names files; nil means time.Now.
	Now func() time.Time
	// NewID returns a new entry ID; nil means 8 random hex digits. IDs it
	// returns that are already used in the file are skipped.
	NewID func() string
	// SessionID is the ID of a session made by Create or Fork; empty
	// means 32 random hex digits.
	SessionID string
	// OpenFile opens the session file for appending; nil means
	// os.OpenFile. It is the seam for tests of failing disks.
	OpenFile func(name string, flag int, perm os.FileMode) (File, error)
	// Redact, when set, is applied to every encoded line before it is
	// written (rein passes redact.Redactor.Bytes, so secrets never reach
	// the file). It must keep the line valid JSON; entries kept in memory
	// are not changed.
	Redact func(line []byte) []byte
	// MaxLineBytes bounds an encoded entry; 0 means the loader's limit
	// (256 MiB), and larger values are capped to it. An entry over it is
	// refused with ErrTooLarge instead of being written where the loader
	// could not read it back.
	MaxLineBytes int
}

// DefaultDir is where the sessions of a workspace live:
// <workspace>/.rein/sessions.
func DefaultDir(workspace string) string {
	return filepath.Join(workspace, ".rein", "sessions")
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) newID() string {
	if o.NewID != nil {
		return o.NewID()
	}
	return randomHex(4)
}

// uniqueID returns a new non-empty entry ID for which used is false. A
// NewID that keeps repeating itself is given up on for random IDs.
func (o *Options) uniqueID(used func(string) bool) string {
	for i := 0; ; i++ {
		id := o.newID()
		if i >= 100 {
			id = randomHex(8)
		}
		if id != "" && !used(id) {
			return id
		}
	}
}

func (o *Options) sessionID() string {
	if o.SessionID != "" {
		return o.SessionID
	}
	return randomHex(16)
}

func (o *Options) syncInterval() time.Duration {
	if o.SyncInterval > 0 {
		return o.SyncInterval
	}
	return DefaultSyncInterval
}

func (o *Options) openFile(name string, flag int, perm os.FileMode) (File, error) {
	if o.OpenFile != nil {
		return o.OpenFile(name, flag, perm)
	}
	return os.OpenFile(name, flag, perm)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
