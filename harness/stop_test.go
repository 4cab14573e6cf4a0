package harness

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

func strict(mod func(*Options)) func(*Options) {
	return func(o *Options) {
		o.Stop.Mode = Strict
		if mod != nil {
			mod(o)
		}
	}
}

func TestStrictEndsOnlyOnWorkComplete(t *testing.T) {
	f := newFixture(t, []faux.Reply{
		faux.Text("I think I'm done"),
		faux.Calls("", faux.Call("echo", `{"v":"check"}`)),
		faux.Calls("", faux.Call(WorkCompleteTool, `{"summary":"echoed and checked"}`)),
		faux.Text("never asked"),
	}, strict(nil))
	res, err := f.prompt(t, "task")
	if err != nil || res.Stop != StopCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	want := []string{
		"user:task", "assistant:I think I'm done", "user:" + DefaultReminder,
		`assistant:call echo{"v":"check"}`, "result:echo:echo:check",
		`assistant:call work_complete{"summary":"echoed and checked"}`, "result:work_complete:Work marked complete.",
	}
	if d := cmp.Diff(want, messagesOnly(transcript(f.store.Entries()))); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	if f.p.Pending() != 1 {
		t.Fatal("the run went on after work_complete")
	}
	for _, r := range f.p.Requests() {
		if !slices.ContainsFunc(r.Tools, func(s llm.ToolSpec) bool { return s.Name == WorkCompleteTool }) {
			t.Fatal("work_complete was not offered")
		}
	}
	// It is a harness tool, not an active tool of the application.
	if d := cmp.Diff([]string{"echo"}, f.h.ActiveTools()); d != "" {
		t.Fatalf("active tools (-want +got):\n%s", d)
	}
}

func TestStrictRemindersAreBounded(t *testing.T) {
	for _, limit := range []int{-1, 1, 3} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			var replies []faux.Reply
			for i := range 6 {
				replies = append(replies, faux.Text(fmt.Sprintf("answer %d", i)))
			}
			f := newFixture(t, replies, strict(func(o *Options) {
				o.Stop.MaxReminders = limit
				o.Stop.StallTurns = -1
			}))
			res, err := f.prompt(t, "task")
			if err != nil || res.Stop != StopWorkIncomplete {
				t.Fatalf("%+v %v", res, err)
			}
			reminders := max(0, limit)
			if got := len(f.p.Requests()); got != reminders+1 {
				t.Fatalf("%d requests, want %d", got, reminders+1)
			}
			if res.Detail == "" {
				t.Fatal("no detail")
			}
		})
	}
}

func TestStrictWorkCompleteBlockedByStopHook(t *testing.T) {
	f := newFixture(t, []faux.Reply{
		faux.Calls("", faux.Call(WorkCompleteTool, `{"summary":"done"}`)),
		faux.Calls("", faux.Call(WorkCompleteTool, `{"summary":"tests pass"}`)),
	}, strict(withHooks))
	f.h.Hooks().OnAgentStop(func(_ context.Context, e *hook.AgentStopEvent) (hook.AgentStopResult, error) {
		if e.Turn == 1 {
			return hook.AgentStopResult{Block: true, Message: "Run the tests before finishing."}, nil
		}
		return hook.AgentStopResult{}, nil
	})
	res, err := f.prompt(t, "task")
	if err != nil || res.Stop != StopCompleted || res.Turns != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	got := requestTexts(f.p.Requests()[1])
	if got[len(got)-1] != "user:Run the tests before finishing." {
		t.Fatalf("second request = %v", got)
	}
}

func TestStallDetection(t *testing.T) {
	same := func() faux.Reply { return faux.Calls("checking", faux.Call("echo", `{"v":"x"}`)) }
	sameReordered := func() faux.Reply { return faux.Calls("checking", faux.Call("echo", `{ "v" : "x" }`)) }
	call := func(v string) faux.Reply { return faux.Calls("", faux.Call("echo", `{"v":"`+v+`"}`)) }
	tests := []struct {
		name      string
		replies   []faux.Reply
		steerAt   int // steer before this turn starts (0 = never)
		wantStop  StopReason
		wantTurns int
	}{
		{"same call and result every turn", []faux.Reply{same(), same(), sameReordered(), same(), same()}, 0, StopStalled, 4},
		{"a cycle of two turns", []faux.Reply{call("a"), call("b"), call("a"), call("b"), call("a"), faux.Text("never")}, 0, StopStalled, 5},
		{"new results are progress", []faux.Reply{call("a"), call("b"), call("c"), call("d"), call("e"), faux.Text("done")}, 0, StopCompleted, 6},
		{"steering resets the count", []faux.Reply{same(), same(), same(), same(), same(), faux.Text("done")}, 3, StopCompleted, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.replies, withHooks)
			if tt.steerAt > 0 {
				f.h.Hooks().OnBeforeProviderRequest(func(_ context.Context, e *hook.ProviderRequestEvent) (hook.RequestPatch, error) {
					if n := len(f.p.Requests()); n+1 == tt.steerAt {
						return hook.RequestPatch{}, f.h.Steer("try something else")
					}
					return hook.RequestPatch{}, nil
				})
			}
			res, err := f.prompt(t, "task")
			if err != nil || res.Stop != tt.wantStop || res.Turns != tt.wantTurns {
				t.Fatalf("stop %s (%s) turns %d err %v; want %s after %d turns", res.Stop, res.Detail, res.Turns, err, tt.wantStop, tt.wantTurns)
			}
		})
	}
}

func TestTurnCap(t *testing.T) {
	var replies []faux.Reply
	for i := range 5 {
		replies = append(replies, faux.Calls("", faux.Call("echo", fmt.Sprintf(`{"v":"%d"}`, i))))
	}
	f := newFixture(t, replies, func(o *Options) { o.Stop.MaxTurns = 3 })
	res, err := f.prompt(t, "task")
	if err != nil || res.Stop != StopMaxTurns || res.Turns != 3 {
		t.Fatalf("%+v %v", res, err)
	}
}
