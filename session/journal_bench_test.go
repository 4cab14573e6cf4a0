package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/llm"
)

// journaledSession writes, through the package's own writer (SyncBatch,
// to build it fast), a session of about n entries: turns of a request
// pair, an assistant message with a tool call, the call's pair and its
// result, ending with a request and a call in flight. It returns its
// path.
func journaledSession(tb testing.TB, dir string, n int) string {
	tb.Helper()
	s, err := Create(Options{Dir: dir, Sync: SyncBatch})
	if err != nil {
		tb.Fatal(err)
	}
	app := func(e Entry, sync bool) Entry {
		var err error
		if sync {
			e, err = s.Append(e)
		} else {
			e, err = s.AppendUnsynced(e)
		}
		if err != nil {
			tb.Fatal(err)
		}
		return e
	}
	app(Entry{Type: TypeMessage, Message: ptr(realisticMessage(0))}, true)
	for i := 0; s.log.entries.len() < n-6; i++ {
		r := app(Entry{Type: TypeRequestStarted, Turn: i + 1}, false)
		app(Entry{Type: TypeRequestSettled, Target: r.ID, Status: StatusOK}, false)
		asst := realisticMessage(4*i + 1)
		app(Entry{Type: TypeMessage, Message: &asst}, true)
		call := asst.ToolCalls()[0]
		app(Entry{Type: TypeToolStarted, CallID: call.ID, ToolName: call.Name, Idempotent: true, Turn: i + 1}, false)
		app(Entry{Type: TypeToolSettled, CallID: call.ID, ToolName: call.Name, Status: StatusOK}, false)
		res := realisticMessage(4*i + 2)
		app(Entry{Type: TypeMessage, Message: &res}, true)
	}
	app(Entry{Type: TypeRequestStarted, Turn: 9999}, false)
	asst := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Content{
		llm.ToolCall("open1", "bash", json.RawMessage(`{"command":"make"}`)), llm.ToolCall("open2", "read", json.RawMessage(`{"path":"a"}`))}}
	app(Entry{Type: TypeMessage, Message: &asst}, true)
	app(Entry{Type: TypeToolStarted, CallID: "open1", ToolName: "bash"}, true)
	app(Entry{Type: TypeToolStarted, CallID: "open2", ToolName: "read", Idempotent: true}, false)
	app(Entry{Type: TypeRequestStarted, Turn: 10000}, false)
	path := s.Path()
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

func copyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	// Synced off the clock: the file of a crashed session is on disk
	// already, save its last lines.
	if err := out.Sync(); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkReopenRecover10k opens a 10,000-entry journaled session that
// a crash left with work in flight: load, reduce, settle (a dropped
// request, an interrupted call, synced once) and list what is left.
// Each iteration opens a fresh copy of the file (copied off the clock).
func BenchmarkReopenRecover10k(b *testing.B) {
	dir := b.TempDir()
	src := journaledSession(b, filepath.Join(dir, "src"), 10000)
	work := filepath.Join(dir, "work.jsonl")
	n := 0
	for b.Loop() {
		b.StopTimer()
		copyFile(b, src, work)
		b.StartTimer()
		s, err := Open(work, Options{})
		if err != nil {
			b.Fatal(err)
		}
		f := s.InFlight()
		b.StopTimer()
		if len(s.Dropped()) != 2 || len(s.Repairs()) != 1 || len(f.Calls) != 1 || s.log.entries.len() < 10000 {
			b.Fatalf("dropped %d, repairs %d, open calls %d, entries %d", len(s.Dropped()), len(s.Repairs()), len(f.Calls), s.log.entries.len())
		}
		s.Close()
		b.StartTimer()
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(n), "ms/op")
}

// syncCounter counts the fsyncs of a session file.
type syncCounter struct {
	*os.File
	n *int
}

func (c syncCounter) Sync() error { *c.n++; return c.File.Sync() }

// BenchmarkTurnJournal measures the log cost of one turn with one tool
// call on a real file: the two messages a turn always wrote, and the
// same with the journal entries the harness adds around them, for a
// tool that is not idempotent (its start is synced) and for one that is.
// With SyncEvery (the default) the time is mostly fsyncs, so fsyncs/turn
// is reported too; with SyncBatch (no fsync) the time is the encoding
// and writing alone. The difference to "messages" is the journal's
// per-turn overhead.
func BenchmarkTurnJournal(b *testing.B) {
	asst, res := realisticMessage(1), realisticMessage(2)
	for _, sync := range []SyncMode{SyncEvery, SyncBatch} {
		for _, mode := range []string{"messages", "journal-idempotent", "journal-not-idempotent"} {
			name := mode + "/every"
			if sync == SyncBatch {
				name = mode + "/nosync"
			}
			b.Run(name, func(b *testing.B) {
				syncs := 0
				open := func(name string, flag int, perm os.FileMode) (File, error) {
					f, err := os.OpenFile(name, flag, perm)
					if err != nil {
						return nil, err
					}
					return syncCounter{f, &syncs}, nil
				}
				s, err := Create(Options{Dir: b.TempDir(), Sync: sync, SyncInterval: 1 << 62, OpenFile: open})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				syncs = 0
				n := 0
				for b.Loop() {
					turnEntries(b, s, mode, n, &asst, &res)
					n++
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n), "µs/turn")
				b.ReportMetric(float64(syncs)/float64(n), "fsyncs/turn")
			})
		}
	}
}

// turnEntries writes the entries of one turn as the harness does.
func turnEntries(b *testing.B, s *Session, mode string, n int, asst, res *llm.Message) {
	journal := mode != "messages"
	if journal {
		r, _ := s.AppendUnsynced(Entry{Type: TypeRequestStarted, Turn: n})
		_, _ = s.AppendUnsynced(Entry{Type: TypeRequestSettled, Target: r.ID, Status: StatusOK})
	}
	if _, err := s.Append(Entry{Type: TypeMessage, Message: asst}); err != nil {
		b.Fatal(err)
	}
	if journal {
		start := Entry{Type: TypeToolStarted, CallID: fmt.Sprint(n), ToolName: "t", Idempotent: mode == "journal-idempotent"}
		var err error
		if start.Idempotent {
			_, err = s.AppendUnsynced(start)
		} else {
			_, err = s.Append(start)
		}
		if err != nil {
			b.Fatal(err)
		}
		_, _ = s.AppendUnsynced(Entry{Type: TypeToolSettled, CallID: fmt.Sprint(n), ToolName: "t", Status: StatusOK})
	}
	if _, err := s.Append(Entry{Type: TypeMessage, Message: res}); err != nil {
		b.Fatal(err)
	}
}
