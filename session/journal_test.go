package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/llm"
)

// TestOpenPreJournalFileRepairsAsBefore: a file written before journal
// entries existed loads and every open call gets InterruptedText, the
// idempotent read included, since nothing is known about them.
func TestOpenPreJournalFileRepairsAsBefore(t *testing.T) {
	src, err := os.ReadFile("testdata/pre-journal.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reps := s.Repairs()
	if len(reps) != 2 || reps[0].CallID != "toolu_01" || reps[1].CallID != "toolu_02" {
		t.Fatalf("repairs = %+v, want toolu_01 and toolu_02", reps)
	}
	for _, r := range reps {
		e, _ := s.Entry(r.Entry)
		if got := e.Message.Text(); got != InterruptedText || !e.Message.IsError {
			t.Fatalf("repair of %s: %q (error %v), want InterruptedText", r.CallID, got, e.Message.IsError)
		}
	}
	if f := s.InFlight(); !f.Empty() || len(s.Dropped()) != 0 {
		t.Fatalf("after repair: in flight %+v, dropped %v", f, s.Dropped())
	}
}

// journaledLog writes a session whose writer died with every kind of
// work in flight, and returns its path.
func journaledLog(t *testing.T) string {
	t.Helper()
	s, err := Create(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	app := func(e Entry) Entry {
		t.Helper()
		e, err := s.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	q1 := app(Entry{Type: TypeQueued, Queue: QueueSteer, Message: ptr(llm.UserText("steer one"))})
	q2 := app(Entry{Type: TypeQueued, Queue: QueueFollowUp, Message: ptr(llm.UserText("dropped by abort"))})
	app(Entry{Type: TypeQueued, Queue: QueueNextTurn, Message: ptr(llm.UserText("still waiting"))})
	app(Entry{Type: TypeMessage, Message: ptr(llm.UserText("go"))})
	app(Entry{Type: TypeMessage, Queued: q1.ID, Message: ptr(llm.UserText("steer one"))})
	r1 := app(Entry{Type: TypeRequestStarted, Turn: 1})
	args := json.RawMessage(`{}`)
	asst := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Content{
		llm.ToolCall("A", "read", args), llm.ToolCall("B", "count", args), llm.ToolCall("C", "count", args), llm.ToolCall("D", "count", args)}}
	app(Entry{Type: TypeRequestSettled, Target: r1.ID, Status: StatusOK})
	app(Entry{Type: TypeMessage, Message: &asst})
	app(Entry{Type: TypeDequeued, Target: q2.ID, Status: StatusCleared})
	app(Entry{Type: TypeToolStarted, CallID: "A", ToolName: "read", Idempotent: true, Turn: 1})
	app(Entry{Type: TypeToolStarted, CallID: "B", ToolName: "count", Turn: 1})
	app(Entry{Type: TypeToolStarted, CallID: "D", ToolName: "count", Turn: 1})
	app(Entry{Type: TypeToolSettled, CallID: "D", ToolName: "count", Status: StatusOK})
	app(Entry{Type: TypeMessage, Message: ptr(llm.ToolResult("D", "count", false, llm.Text("3")))})
	app(Entry{Type: TypeRequestStarted, Turn: 2}) // never settled
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenJournaledLog: the reducer tells each kind of in-flight work
// apart, and Open settles what the log alone decides.
func TestOpenJournaledLog(t *testing.T) {
	path := journaledLog(t)
	_, entries, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := FindInFlight(entries, LastLeaf(entries))
	if len(before.Requests) != 1 || before.Requests[0].Turn != 2 {
		t.Fatalf("requests in flight = %+v, want the turn-2 one", before.Requests)
	}
	if len(before.Queued) != 1 || before.Queued[0].Message.Text() != "still waiting" {
		t.Fatalf("queued = %+v, want only the undelivered, uncleared one", before.Queued)
	}
	type st struct {
		id                                      string
		journaled, started, settled, idempotent bool
	}
	var got []st
	for _, c := range before.Calls {
		got = append(got, st{c.Call.ID, c.Journaled, c.Started, c.Settled, c.Idempotent})
	}
	want := []st{{"A", true, true, false, true}, {"B", true, true, false, false}, {"C", true, false, false, false}}
	if len(got) != len(want) {
		t.Fatalf("open calls = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("open call %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reps := s.Repairs()
	if len(reps) != 1 || reps[0].CallID != "B" {
		t.Fatalf("repairs = %+v, want only B (started, not idempotent)", reps)
	}
	if e, _ := s.Entry(reps[0].Entry); e.Message.Text() != PartialText {
		t.Fatalf("B answered %q, want PartialText", e.Message.Text())
	}
	if d := s.Dropped(); len(d) != 1 || d[0].Turn != 2 {
		t.Fatalf("dropped = %+v", d)
	}
	after := s.InFlight()
	if len(after.Calls) != 2 || after.Calls[0].Call.ID != "A" || after.Calls[1].Call.ID != "C" || len(after.Requests) != 0 {
		t.Fatalf("left in flight: %+v", after)
	}
	s.Close()

	// A second open finds nothing new to settle.
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.Repairs()) != 0 || len(s.Dropped()) != 0 {
		t.Fatalf("second open repaired %+v, dropped %+v", s.Repairs(), s.Dropped())
	}
}

// TestJournalEntriesAreSideEntries: journal entries never move the leaf
// nor appear in the context.
func TestJournalEntriesAreSideEntries(t *testing.T) {
	s, err := Create(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m, _ := s.AppendMessage(llm.UserText("hi"))
	if _, err := s.AppendUnsynced(Entry{Type: TypeRequestStarted, Turn: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(Entry{Type: TypeToolStarted, CallID: "x"}); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != m.ID || len(s.Context().Messages) != 1 {
		t.Fatalf("leaf %s (want %s), %d messages", s.Leaf(), m.ID, len(s.Context().Messages))
	}
}

// TestJournalEntriesBadInput: journal entries missing what recovery
// needs are refused with the field named, and nothing is written.
func TestJournalEntriesBadInput(t *testing.T) {
	s, err := Create(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, e := range []Entry{
		{Type: TypeToolStarted},
		{Type: TypeToolSettled, ToolName: "x"},
		{Type: TypeRequestSettled, Status: StatusOK},
		{Type: TypeDequeued, Target: "q"},
		{Type: TypeQueued, Queue: "later", Message: ptr(llm.UserText("x"))},
		{Type: TypeQueued, Queue: QueueSteer},
	} {
		if _, err := s.AppendUnsynced(e); err == nil {
			t.Errorf("%+v was accepted", e)
		}
	}
	if n := len(s.Entries()); n != 0 {
		t.Fatalf("%d entries written", n)
	}
}
