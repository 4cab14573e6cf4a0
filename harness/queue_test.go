package harness

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func TestSteerDuringToolCall(t *testing.T) {
	g := newGate()
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("wait", `{}`)), faux.Text("ok")}, func(o *Options) {
		o.Tools = registry(t, g.tool())
	})
	done := make(chan error, 1)
	go func() {
		_, err := f.h.Prompt(context.Background(), "go")
		done <- err
	}()
	<-g.entered
	if err := f.h.Steer("change of plan"); err != nil {
		t.Fatal(err)
	}
	close(g.open)
	within(t, func() {
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	reqs := f.p.Requests()
	want := []string{"user:go", "assistant:call wait{}", "result:wait:waited", "user:change of plan"}
	if d := cmp.Diff(want, requestTexts(reqs[1])); d != "" {
		t.Fatalf("second request (-want +got):\n%s", d)
	}
}

func TestFollowUpWhenItWouldStop(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("first answer"), faux.Text("second answer")}, nil)
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventTurnStart && e.Turn == 1 {
			return f.h.FollowUp("and also this")
		}
		return nil
	})
	res, err := f.prompt(t, "hi")
	if err != nil || res.Stop != StopCompleted || res.Text() != "second answer" {
		t.Fatalf("%+v %v", res, err)
	}
	want := []string{"user:hi", "assistant:first answer", "user:and also this", "assistant:second answer"}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

func TestNextTurnBeforeNextPrompt(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("a"), faux.Text("b")}, nil)
	// Queued during a run, a next-turn message waits for the next prompt.
	unsubscribe := f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventTurnStart {
			return f.h.NextTurn("context for later")
		}
		return nil
	})
	if _, err := f.prompt(t, "one"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"user:one"}, requestTexts(f.p.Requests()[0])); d != "" {
		t.Fatalf("first request (-want +got):\n%s", d)
	}
	if _, _, n := f.h.Queued(); n != 1 {
		t.Fatalf("next-turn queue = %d", n)
	}
	unsubscribe()
	if _, err := f.prompt(t, "two"); err != nil {
		t.Fatal(err)
	}
	want := []string{"user:one", "assistant:a", "user:context for later", "user:two"}
	if d := cmp.Diff(want, requestTexts(f.p.Requests()[1])); d != "" {
		t.Fatalf("second request (-want +got):\n%s", d)
	}
	if _, _, n := f.h.Queued(); n != 0 {
		t.Fatalf("next-turn queue = %d after delivery", n)
	}
}

func TestQueueModes(t *testing.T) {
	tests := []struct {
		name     string
		mode     QueueMode
		follow   bool
		wantReqs [][]string
	}{
		{"steer one at a time", QueueOneAtATime, false, [][]string{
			{"user:go"},
			{"user:go", "assistant:r1", "user:s1"},
			{"user:go", "assistant:r1", "user:s1", "assistant:r2", "user:s2"},
		}},
		{"steer all", QueueAll, false, [][]string{
			{"user:go"},
			{"user:go", "assistant:r1", "user:s1", "user:s2"},
		}},
		{"follow-up one at a time", QueueOneAtATime, true, [][]string{
			{"user:go"},
			{"user:go", "assistant:r1", "user:s1"},
			{"user:go", "assistant:r1", "user:s1", "assistant:r2", "user:s2"},
		}},
		{"follow-up all", QueueAll, true, [][]string{
			{"user:go"},
			{"user:go", "assistant:r1", "user:s1", "user:s2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, []faux.Reply{faux.Text("r1"), faux.Text("r2"), faux.Text("r3")}, nil)
			enqueue, setMode := f.h.Steer, f.h.SetSteeringMode
			if tt.follow {
				enqueue, setMode = f.h.FollowUp, f.h.SetFollowUpMode
			}
			if err := setMode(tt.mode); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"s1", "s2"} {
				if err := enqueue(s); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.prompt(t, "go"); err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, r := range f.p.Requests() {
				got = append(got, requestTexts(r))
			}
			if d := cmp.Diff(tt.wantReqs, got); d != "" {
				t.Fatalf("requests (-want +got):\n%s", d)
			}
		})
	}
}

func TestModeChangeAppliesToNextDrain(t *testing.T) {
	f := newFixture(t, []faux.Reply{faux.Text("r1"), faux.Text("r2"), faux.Text("r3")}, nil)
	for _, s := range []string{"s1", "s2", "s3"} {
		if err := f.h.Steer(s); err != nil {
			t.Fatal(err)
		}
	}
	// After the first drain (one message), switch to all.
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventMessageEnd && e.Message.Text() == "s1" {
			return f.h.SetSteeringMode(QueueAll)
		}
		return nil
	})
	if _, err := f.prompt(t, "go"); err != nil {
		t.Fatal(err)
	}
	want := []string{"user:go", "assistant:r1", "user:s1", "assistant:r2", "user:s2", "user:s3", "assistant:r3"}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
}

func TestAbortClearsSteerAndFollowUpKeepsNextTurn(t *testing.T) {
	g := newGate()
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("wait", `{}`))}, func(o *Options) {
		o.Tools = registry(t, g.tool())
	})
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := f.h.Prompt(context.Background(), "go")
		done <- outcome{res, err}
	}()
	<-g.entered
	for _, q := range []func(string, ...llm.Content) error{f.h.Steer, f.h.FollowUp, f.h.NextTurn} {
		if err := q("queued"); err != nil {
			t.Fatal(err)
		}
	}
	f.h.Abort()
	var o outcome
	within(t, func() { o = <-done })
	if o.err != nil || o.res.Stop != StopAborted {
		t.Fatalf("%+v %v", o.res, o.err)
	}
	if s, fu, n := f.h.Queued(); s != 0 || fu != 0 || n != 1 {
		t.Fatalf("queues after abort: steer %d follow-up %d next %d", s, fu, n)
	}
	// The started tool call got its result, persisted.
	want := []string{"user:go", "assistant:call wait{}", "result:wait:cancelled"}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	f.p.Push(faux.Text("resumed"))
	if _, err := f.prompt(t, "again"); err != nil {
		t.Fatal(err)
	}
	reqs := f.p.Requests()
	got := requestTexts(reqs[len(reqs)-1])
	if d := cmp.Diff([]string{"user:queued", "user:again"}, got[len(got)-2:]); d != "" {
		t.Fatalf("next prompt (-want +got):\n%s", d)
	}
}
