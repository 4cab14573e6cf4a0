package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
)

func custom(kind string) session.Entry {
	return session.Entry{Type: session.TypeCustom, Kind: kind, Data: json.RawMessage(`1`)}
}

func TestMessagePersistedBeforeListeners(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, nil)
	checked := 0
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type != agent.EventMessageEnd {
			return nil
		}
		entries := f.store.Entries()
		last := entries[len(entries)-1]
		if last.Type != session.TypeMessage || !cmp.Equal(*last.Message, *e.Message) {
			return fmt.Errorf("message_end of %q before it was persisted (last entry %s)", e.Message.Text(), describe(last))
		}
		checked++
		return nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if checked != 4 {
		t.Fatalf("checked %d message_end events", checked)
	}
}

func TestPendingWritesFlushAtSavePoints(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, nil)
	var pendingSeen []int
	var storeHadIt []bool
	f.h.Subscribe(func(_ context.Context, e Event) error {
		var kind string
		switch {
		case e.Type == agent.EventMessageEnd && e.Message.Role == llm.RoleAssistant && e.Turn == 1:
			kind = "after-assistant-1"
		case e.Type == agent.EventToolEnd:
			kind = "after-tool"
		case e.Type == agent.EventTurnStart && e.Turn == 2:
			kind = "turn-2-start"
		case e.Type == agent.EventAgentEnd:
			kind = "agent-end"
		default:
			return nil
		}
		if err := f.h.AppendEntry(custom(kind)); err != nil {
			return err
		}
		pendingSeen = append(pendingSeen, len(f.h.Pending()))
		found := false
		for _, en := range f.store.Entries() {
			if en.Kind == kind {
				found = true
			}
		}
		storeHadIt = append(storeHadIt, found)
		return nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"model:faux/faux", "tools:echo",
		"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1",
		"custom:after-assistant-1:1", "custom:after-tool:1",
		"assistant:done",
		"custom:turn-2-start:1", "custom:agent-end:1",
	}
	if d := cmp.Diff(want, transcript(f.store.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	// While busy, writes wait (reads show persisted state only).
	if d := cmp.Diff([]int{1, 2, 1, 1}, pendingSeen); d != "" {
		t.Fatalf("pending counts (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]bool{false, false, false, false}, storeHadIt); d != "" {
		t.Fatalf("store had the write early (-want +got):\n%s", d)
	}
	if n := len(f.h.Pending()); n != 0 {
		t.Fatalf("pending after the run = %d", n)
	}
}

// flakyStore wraps a memory store and fails appends while fail says so.
type flakyStore struct {
	*MemoryStore
	mu   sync.Mutex
	fail func(e session.Entry) bool
}

var errDiskFull = errors.New("no space left on device")

func (s *flakyStore) Append(e session.Entry) (session.Entry, error) {
	s.mu.Lock()
	fail := s.fail != nil && s.fail(e)
	s.mu.Unlock()
	if fail {
		return session.Entry{}, errDiskFull
	}
	return s.MemoryStore.Append(e)
}

func (s *flakyStore) set(fail func(e session.Entry) bool) {
	s.mu.Lock()
	s.fail = fail
	s.mu.Unlock()
}

func TestStoreFailurePersistingAMessage(t *testing.T) {
	fs := &flakyStore{MemoryStore: NewMemoryStore(fixedClock)}
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, func(o *Options) { o.Store = fs })
	var told []string
	f.h.Subscribe(func(_ context.Context, e Event) error {
		switch e.Type {
		case agent.EventMessageEnd:
			told = append(told, describeMessage(e.Message))
			if e.Message.Role == llm.RoleAssistant {
				// Written at the next save point, which never comes.
				return f.h.AppendEntry(custom("pending"))
			}
		case agent.EventAgentEnd:
			told = append(told, "agent_end "+string(e.Stop))
		}
		return nil
	})
	fs.set(func(e session.Entry) bool {
		return e.Type == session.TypeMessage && e.Message.Role == llm.RoleToolResult
	})
	res, err := f.prompt(t, "hi")
	if !errors.Is(err, ErrStore) || !errors.Is(err, errDiskFull) || res.Stop != StopError {
		t.Fatalf("res %+v err %v", res, err)
	}
	// Listeners were never told of the message that was not persisted.
	want := []string{"user:hi", `assistant:call echo{"v":"1"}`, "agent_end error"}
	if d := cmp.Diff(want, told); d != "" {
		t.Fatalf("told (-want +got):\n%s", d)
	}
	if f.h.Phase() != PhaseIdle {
		t.Fatal("phase not restored")
	}
	// The pending write was not lost: it is still queued (the store is
	// still failing only for tool results, so the end-of-run flush wrote
	// it).
	wantLog := []string{"model:faux/faux", "tools:echo", "user:hi", `assistant:call echo{"v":"1"}`, "custom:pending:1"}
	if d := cmp.Diff(wantLog, transcript(fs.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

func TestStoreFailureKeepsPendingWrites(t *testing.T) {
	fs := &flakyStore{MemoryStore: NewMemoryStore(fixedClock)}
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("unused")}, func(o *Options) { o.Store = fs })
	unsubscribe := f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventToolEnd {
			if err := f.h.AppendEntry(custom("a")); err != nil {
				return err
			}
			fs.set(func(e session.Entry) bool { return e.Type == session.TypeCustom })
			return f.h.AppendEntry(custom("b"))
		}
		return nil
	})
	res, err := f.prompt(t, "hi")
	if !errors.Is(err, ErrStore) || res.Stop != StopError {
		t.Fatalf("res %+v err %v", res, err)
	}
	if d := cmp.Diff([]string{"custom:a:1", "custom:b:1"}, transcript(f.h.Pending())); d != "" {
		t.Fatalf("pending (-want +got):\n%s", d)
	}
	// While the store fails, an idle write is refused with a store error
	// and kept behind the others.
	if err := f.h.AppendEntry(custom("c")); !errors.Is(err, ErrStore) {
		t.Fatalf("idle append: %v", err)
	}
	fs.set(nil)
	unsubscribe()
	f.p = faux.New(faux.Text("recovered"))
	if err := f.h.SetProvider(f.p); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "again"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"model:faux/faux", "tools:echo",
		"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1",
		"custom:a:1", "custom:b:1", "custom:c:1",
		"user:again", "assistant:recovered",
	}
	if d := cmp.Diff(want, transcript(fs.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

func TestSessionFileStore(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`)), faux.Text("done")}, func(o *Options) { o.Store = s })
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventToolEnd {
			return f.h.Label(f.h.Store().Leaf(), "tool ran")
		}
		return nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	path, written := s.Path(), len(s.Entries())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Resume: a new harness over the reopened file continues the
	// conversation and knows the recorded settings.
	s2, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	c := s2.Context()
	want := []string{"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1", "assistant:done"}
	var got []string
	for i := range c.Messages {
		got = append(got, describeMessage(&c.Messages[i]))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("reopened context (-want +got):\n%s", d)
	}
	if c.Model != "faux" || c.Provider != "faux" {
		t.Fatalf("model %s/%s", c.Provider, c.Model)
	}
	labels := s2.Labels()
	if len(labels) != 1 {
		t.Fatalf("labels = %v", labels)
	}
	f2 := newFixture(t, []faux.Reply{faux.Text("resumed")}, func(o *Options) { o.Store = s2 })
	if _, err := f2.prompt(t, "continue"); err != nil {
		t.Fatal(err)
	}
	if got := requestTexts(f2.p.Requests()[0]); len(got) != 5 || got[4] != "user:continue" {
		t.Fatalf("resumed request = %v", got)
	}
	// Nothing was recorded again: the settings matched the log.
	for _, e := range s2.Entries()[written:] {
		if e.Type == session.TypeModelChange || e.Type == session.TypeThinkingChange || e.Type == session.TypeToolsChange {
			t.Fatalf("re-recorded %s", e.Type)
		}
	}
}

// The harness keeps the conversation between prompts, but the log stays
// the source of truth: writes it did not make are seen.
func TestConversationFollowsTheLog(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b"), faux.Text("c"), faux.Text("d"), faux.Text("e")}, nil)
	last := func() []string {
		reqs := f.p.Requests()
		return requestTexts(reqs[len(reqs)-1])
	}
	if _, err := f.prompt(t, "one"); err != nil {
		t.Fatal(err)
	}
	// Another writer of the store.
	m := llm.UserText("written directly")
	if _, err := f.store.Append(session.Entry{Type: session.TypeMessage, Message: &m}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "two"); err != nil {
		t.Fatal(err)
	}
	want := []string{"user:one", "assistant:a", "user:written directly", "user:two"}
	if d := cmp.Diff(want, last()); d != "" {
		t.Fatalf("after a direct write (-want +got):\n%s", d)
	}
	// A message appended through the harness.
	m2 := llm.UserText("appended")
	if err := f.h.AppendEntry(session.Entry{Type: session.TypeMessage, Message: &m2}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "three"); err != nil {
		t.Fatal(err)
	}
	want = append(want, "assistant:b", "user:appended", "user:three")
	if d := cmp.Diff(want, last()); d != "" {
		t.Fatalf("after AppendEntry (-want +got):\n%s", d)
	}
	// Custom entries and labels leave the conversation as it is.
	if err := f.h.AppendEntry(custom("note")); err != nil {
		t.Fatal(err)
	}
	if err := f.h.Label(f.store.Leaf(), "here"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "four"); err != nil {
		t.Fatal(err)
	}
	want = append(want, "assistant:c", "user:four")
	if d := cmp.Diff(want, last()); d != "" {
		t.Fatalf("after a custom entry (-want +got):\n%s", d)
	}
	// A branch made directly: back to the first answer.
	if _, err := f.store.Append(session.Entry{Type: session.TypeLeaf, Target: entryID(t, f.store, "a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.prompt(t, "five"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"user:one", "assistant:a", "user:five"}, last()); d != "" {
		t.Fatalf("after a direct navigation (-want +got):\n%s", d)
	}
}
