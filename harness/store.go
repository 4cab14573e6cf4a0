package harness

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/reinhq/rein/session"
)

// Store is the session log the harness writes: *session.Session
// satisfies it, and so does MemoryStore.
//
// The harness calls Append sometimes while holding its own lock, and
// from several goroutines at once (the tool calls of a batch journal
// their start and end as they run), so Append must be safe for
// concurrent use and a Store must never call back into the harness.
type Store interface {
	// Append fills the entry's ID, Parent (the current leaf) and Timestamp
	// when empty, makes it durable and returns it as stored. A tree entry
	// becomes the leaf; a leaf entry moves the leaf to its Target.
	Append(e session.Entry) (session.Entry, error)
	// Context builds the conversation at the current leaf.
	Context() session.Context
	// Leaf is the current leaf ("" before the first entry).
	Leaf() string
}

// MemoryStore is a Store kept in memory, for tests and for applications
// that do not persist their sessions. It builds contexts with
// session.BuildContext, so it honours compaction and branch summaries
// exactly as a session file does. Safe for concurrent use.
type MemoryStore struct {
	mu      sync.Mutex
	now     func() time.Time
	entries []session.Entry
	index   map[string]int
	leaf    string
}

// NewMemoryStore returns an empty store; now stamps entries (nil means
// time.Now).
func NewMemoryStore(now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{now: now, index: map[string]int{}}
}

// Entry returns the entry with this ID.
func (m *MemoryStore) Entry(id string) (session.Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, ok := m.index[id]
	if !ok {
		return session.Entry{}, false
	}
	return m.entries[i], true
}

// Append implements Store. It checks what a session file checks: known
// types, parents and targets that exist, unused IDs.
func (m *MemoryStore) Append(e session.Entry) (session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !e.Type.Known() {
		return session.Entry{}, fmt.Errorf("%w: unknown entry type %q", session.ErrInvalidEntry, e.Type)
	}
	isTree := func(id string) bool {
		i, ok := m.index[id]
		return ok && m.entries[i].IsTree()
	}
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return session.Entry{}, fmt.Errorf("%w: message entry without a message", session.ErrInvalidEntry)
		}
	case session.TypeLeaf:
		if e.Target != "" && !isTree(e.Target) {
			return session.Entry{}, fmt.Errorf("%w: cannot navigate to %q", session.ErrNotFound, e.Target)
		}
	case session.TypeLabel:
		if _, ok := m.index[e.Target]; !ok {
			return session.Entry{}, fmt.Errorf("%w: cannot label %q", session.ErrNotFound, e.Target)
		}
	case session.TypeCompaction, session.TypeBranchSummary:
		if e.Summary == "" {
			return session.Entry{}, fmt.Errorf("%w: %s entry without a summary", session.ErrInvalidEntry, e.Type)
		}
		if e.FirstKept != "" && !isTree(e.FirstKept) {
			return session.Entry{}, fmt.Errorf("%w: FirstKept %q is not a tree entry", session.ErrInvalidEntry, e.FirstKept)
		}
	}
	if e.ID == "" {
		e.ID = strconv.Itoa(len(m.entries) + 1)
	}
	if _, dup := m.index[e.ID]; dup {
		return session.Entry{}, fmt.Errorf("%w: id %q is already used", session.ErrInvalidEntry, e.ID)
	}
	if e.Parent == "" {
		e.Parent = m.leaf
	} else if !isTree(e.Parent) {
		return session.Entry{}, fmt.Errorf("%w: parent %q", session.ErrNotFound, e.Parent)
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = m.now()
	}
	e.Timestamp = e.Timestamp.UTC()
	m.index[e.ID] = len(m.entries)
	m.entries = append(m.entries, e)
	switch {
	case e.Type == session.TypeLeaf:
		m.leaf = e.Target
	case e.IsTree():
		m.leaf = e.ID
	}
	return e, nil
}

// Context implements Store.
func (m *MemoryStore) Context() session.Context {
	m.mu.Lock()
	defer m.mu.Unlock()
	return session.BuildContext(m.entries, m.leaf)
}

// Leaf implements Store.
func (m *MemoryStore) Leaf() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.leaf
}

// Entries returns every entry in order (the messages are shared).
func (m *MemoryStore) Entries() []session.Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]session.Entry(nil), m.entries...)
}
