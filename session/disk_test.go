package session

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// disk simulates a failing disk under the session's File seam.
type disk struct {
	mu           sync.Mutex
	budget       int64 // bytes it can still take; negative means no limit
	failSync     bool
	failTruncate bool
	syncs        int
}

func (d *disk) open(name string, flag int, perm os.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &diskFile{File: f, d: d}, nil
}

func (d *disk) set(fn func(d *disk)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn(d)
}

type diskFile struct {
	*os.File
	d *disk
}

// Write writes what still fits and fails with ENOSPC, as a full disk does.
func (f *diskFile) Write(b []byte) (int, error) {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.d.budget < 0 || f.d.budget >= int64(len(b)) {
		if f.d.budget >= 0 {
			f.d.budget -= int64(len(b))
		}
		return f.File.Write(b)
	}
	n, _ := f.File.Write(b[:f.d.budget])
	f.d.budget = 0
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

func (f *diskFile) Sync() error {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	f.d.syncs++
	if f.d.failSync {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Sync()
}

func (f *diskFile) Truncate(size int64) error {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.d.failTruncate {
		return &os.PathError{Op: "truncate", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Truncate(size)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestFullDisk(t *testing.T) {
	tests := []struct {
		name   string
		budget int64
	}{
		{"nothing fits", 0},
		{"part of the line fits", 40},
		{"all but the newline fits", -2}, // set below from the line length
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &disk{budget: -1}
			opts := testOpts(t, t.TempDir())
			opts.OpenFile = d.open
			s := mustCreate(t, opts)
			s.AppendMessage(llm.UserText("one"))
			prev, _ := s.AppendMessage(assistantText("two"))
			size := fileSize(t, s.Path())

			msg := llm.UserText("three, which does not fit")
			budget := tc.budget
			if budget < 0 {
				var enc encoder
				line, _ := enc.entryLine(&Entry{Type: TypeMessage, ID: "e0000003", Parent: prev.ID, Timestamp: prev.Timestamp.Add(time.Millisecond), Message: &msg})
				budget = int64(len(line) - 1)
			}
			d.set(func(d *disk) { d.budget = budget })
			for i := 0; i < 2; i++ { // the disk stays full: every try fails cleanly
				_, err := s.AppendMessage(msg)
				var we *WriteError
				if !errors.As(err, &we) || we.Op != "write" || !we.Restored || !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("append on a full disk: %v", err)
				}
				if got := fileSize(t, s.Path()); got != size {
					t.Fatalf("file is %d bytes after the failed append, want %d", got, size)
				}
				if s.Leaf() != prev.ID || len(s.Entries()) != 2 {
					t.Fatalf("the failed entry became part of the session")
				}
				d.set(func(d *disk) { d.budget = budget })
			}
			// Space is freed: the session goes on where it was.
			d.set(func(d *disk) { d.budget = -1 })
			e, err := s.AppendMessage(msg)
			if err != nil || e.Parent != prev.ID {
				t.Fatalf("append after space was freed: %v (parent %q)", err, e.Parent)
			}
			s.Close()
			_, entries, issues, err := ReadFile(s.Path())
			if err != nil || len(issues) != 0 || len(entries) != 3 {
				t.Fatalf("reload: %d entries, issues %v, err %v", len(entries), issues, err)
			}
		})
	}
}

func TestCreateOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	d := &disk{budget: 10}
	opts := testOpts(t, dir)
	opts.OpenFile = d.open
	if _, err := Create(opts); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Create on a full disk: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("Create left %d files behind", len(left))
	}
}

func TestFsyncFailure(t *testing.T) {
	d := &disk{budget: -1}
	opts := testOpts(t, t.TempDir())
	opts.OpenFile = d.open
	s := mustCreate(t, opts)
	prev, _ := s.AppendMessage(llm.UserText("one"))
	size := fileSize(t, s.Path())
	d.set(func(d *disk) { d.failSync = true })
	_, err := s.AppendMessage(llm.UserText("two"))
	var we *WriteError
	if !errors.As(err, &we) || we.Op != "sync" || !we.Restored || !errors.Is(err, syscall.EIO) {
		t.Fatalf("append with failing fsync: %v", err)
	}
	if fileSize(t, s.Path()) != size || s.Leaf() != prev.ID {
		t.Fatal("an entry that was not made durable stayed in the file")
	}
	d.set(func(d *disk) { d.failSync = false })
	if _, err := s.AppendMessage(llm.UserText("two")); err != nil {
		t.Fatal(err)
	}
}

// TestUnrecoverableWrite: the write fails and so does cutting it back.
// The session refuses to write on; reopening sets the damage aside.
func TestUnrecoverableWrite(t *testing.T) {
	d := &disk{budget: -1}
	opts := testOpts(t, t.TempDir())
	opts.OpenFile = d.open
	s := mustCreate(t, opts)
	s.AppendMessage(llm.UserText("one"))
	d.set(func(d *disk) { d.budget, d.failTruncate = 25, true })
	_, err := s.AppendMessage(llm.UserText("two"))
	var we *WriteError
	if !errors.As(err, &we) || we.Restored {
		t.Fatalf("append: %v", err)
	}
	if _, err := s.AppendMessage(llm.UserText("three")); !errors.Is(err, ErrBroken) {
		t.Fatalf("append on a broken session: %v", err)
	}
	if err := s.Flush(); !errors.Is(err, ErrBroken) {
		t.Fatalf("flush on a broken session: %v", err)
	}
	s.Close()
	r, err := Open(s.Path(), testOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if is := r.Issues(); len(is) != 1 || is[0].Kind != IssueTornLine {
		t.Fatalf("issues %v", is)
	}
	if len(r.Entries()) != 1 {
		t.Fatalf("%d entries", len(r.Entries()))
	}
}

func TestSyncModes(t *testing.T) {
	var clock time.Time
	now := func() time.Time { return clock }
	tests := []struct {
		name       string
		mode       SyncMode
		appends    int
		advance    time.Duration // clock step per append
		wantSyncs  int           // after the appends, before Flush
		flushSyncs bool          // whether Flush has something left to sync
	}{
		{"every append is fsynced", SyncEvery, 5, 0, 5, false},
		{"batch: none within the interval", SyncBatch, 5, 0, 0, true},
		{"batch: one per interval", SyncBatch, 5, 600 * time.Millisecond, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock = time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
			d := &disk{budget: -1}
			opts := Options{Dir: t.TempDir(), Sync: tc.mode, Now: now, OpenFile: d.open}
			s := mustCreate(t, opts)
			d.set(func(d *disk) { d.syncs = 0 })
			for i := 0; i < tc.appends; i++ {
				clock = clock.Add(tc.advance)
				if _, err := s.AppendMessage(llm.UserText("x")); err != nil {
					t.Fatal(err)
				}
			}
			if d.syncs != tc.wantSyncs {
				t.Fatalf("%d fsyncs, want %d", d.syncs, tc.wantSyncs)
			}
			// Entries are written before Append returns, synced or not.
			_, entries, _, _ := ReadFile(s.Path())
			if len(entries) != tc.appends {
				t.Fatalf("%d entries in the file before Flush", len(entries))
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			want := tc.wantSyncs
			if tc.flushSyncs {
				want++
			}
			if d.syncs != want {
				t.Fatalf("%d fsyncs after Flush, want %d", d.syncs, want)
			}
			if err := s.Close(); err != nil || d.syncs != want {
				t.Fatalf("close: %v, %d fsyncs (nothing was left to sync)", err, d.syncs)
			}
		})
	}
}

func TestBatchSyncFailure(t *testing.T) {
	d := &disk{budget: -1}
	opts := testOpts(t, t.TempDir())
	opts.OpenFile, opts.Sync = d.open, SyncBatch
	s := mustCreate(t, opts)
	s.AppendMessage(llm.UserText("one"))
	d.set(func(d *disk) { d.failSync = true })
	var we *WriteError
	if err := s.Flush(); !errors.As(err, &we) || we.Op != "sync" {
		t.Fatalf("flush: %v", err)
	}
	if _, err := s.AppendMessage(llm.UserText("two")); !errors.Is(err, ErrBroken) {
		t.Fatalf("append after a failed batch fsync: %v", err)
	}
}
