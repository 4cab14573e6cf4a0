package session

// /dev/full, which fails every write with ENOSPC, exists on every Linux
// system; elsewhere TestFullDisk covers the same path through the seam.

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/reinhq/rein/llm"
)

// devFullFile writes to /dev/full (every write fails with ENOSPC from the
// kernel) and does everything else on the real session file.
type devFullFile struct {
	*os.File
	full *os.File
}

func (f *devFullFile) Write(b []byte) (int, error) { return f.full.Write(b) }
func (f *devFullFile) Close() error {
	f.full.Close()
	return f.File.Close()
}

func TestDevFull(t *testing.T) {
	path, written := writeSession(t, "one", "two")
	size := fileSize(t, path)
	opts := testOpts(t, "")
	opts.OpenFile = func(name string, flag int, perm os.FileMode) (File, error) {
		f, err := os.OpenFile(name, flag, perm)
		if err != nil {
			return nil, err
		}
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			f.Close()
			return nil, err
		}
		return &devFullFile{File: f, full: full}, nil
	}
	s, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.AppendMessage(llm.UserText("three"))
	var we *WriteError
	if !errors.As(err, &we) || !we.Restored || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append to /dev/full: %v", err)
	}
	s.Close()
	if fileSize(t, path) != size {
		t.Fatal("the session file changed")
	}
	_, entries, issues, err := ReadFile(path)
	if err != nil || len(issues) != 0 || len(entries) != len(written) {
		t.Fatalf("reload: %d entries, issues %v, err %v", len(entries), issues, err)
	}
}
