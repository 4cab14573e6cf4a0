package coding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

// TestOpenNewSessionReadsNoOtherLogs: opening a new session does not
// read the workspace's other session logs (only a resumed session looks
// for the sub-agents its crash left), so opening stays as fast with a
// thousand logs as with none. A FIFO among the logs tells: reading it
// would open it for reading, which the test sees as a writer it can
// attach.
func TestOpenNewSessionReadsNoOtherLogs(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	logs := session.DefaultDir(dir)
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(logs, "2026-01-01T00-00-00-000Z_fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		a, err := Open(context.Background(), e.options(dir, faux.Text("hi")))
		if err == nil {
			err = a.Close()
		}
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
		// O_NONBLOCK write-only open succeeds only when a reader has the
		// FIFO open: then Open read the log.
		w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w.Close() // the reader sees EOF and goes on
			<-done
			t.Fatal("opening a new session read another session's log")
		}
		if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
	}
}
