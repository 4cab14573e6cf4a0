package harness

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/tool"
)

// requestView is what a test compares of one provider request.
type requestView struct {
	Model    string
	Thinking llm.ThinkingLevel
	System   string
	Tools    []string
	Headers  map[string]string
}

func view(req *llm.Request) requestView {
	v := requestView{Model: req.Model.ID, Thinking: req.Thinking, System: llm.SystemText(req.System), Headers: req.Options.Headers}
	for _, t := range req.Tools {
		v.Tools = append(v.Tools, t.Name)
	}
	return v
}

func TestSettersDuringTurnApplyFromNextTurn(t *testing.T) {
	other := faux.Model()
	other.ID, other.Provider = "faux-large", "faux2"
	var h *Harness
	var inFlight []requestView
	// The first reply changes every setting while its own request is in
	// flight, then checks that the request did not change.
	first := faux.Reply{Func: func(_ context.Context, req *llm.Request) (llm.Message, error) {
		before := view(req)
		if err := h.SetModel(other); err != nil {
			return llm.Message{}, err
		}
		if err := h.SetThinking(llm.ThinkingHigh); err != nil {
			return llm.Message{}, err
		}
		h.SetSystem([]llm.SystemPart{{Text: "new system"}})
		h.SetStreamOptions(llm.Options{Headers: map[string]string{"x-turn": "2"}})
		if err := h.SetActiveTools([]string{"echo"}); err != nil {
			return llm.Message{}, err
		}
		inFlight = append(inFlight, before, view(req))
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("echo", `{"v":"1"}`)}}, nil
	}}
	f := newFixture(t, []faux.Reply{first, faux.Text("done")}, func(o *Options) {
		o.Tools = registry(t, echoTool(), tool.MustNew("other", "x", func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			return tool.Text(""), nil
		}))
		o.StreamOptions = llm.Options{Headers: map[string]string{"x-turn": "1"}}
	})
	h = f.h
	// Getters return the latest configuration even while the turn runs
	// on its snapshot.
	var seenModel string
	f.h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventToolStart {
			seenModel = f.h.Model().ID
		}
		return nil
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if inFlight[0].Model != "faux" || !cmp.Equal(inFlight[0], inFlight[1]) {
		t.Fatalf("the request in flight changed: %+v", inFlight)
	}
	reqs := f.p.Requests()
	got := []requestView{view(&reqs[0]), view(&reqs[1])}
	want := []requestView{
		{Model: "faux", Thinking: "", System: "base system", Tools: []string{"echo", "other"}, Headers: map[string]string{"x-turn": "1"}},
		{Model: "faux-large", Thinking: llm.ThinkingHigh, System: "new system", Tools: []string{"echo"}, Headers: map[string]string{"x-turn": "2"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("requests (-want +got):\n%s", d)
	}
	if seenModel != "faux-large" {
		t.Fatalf("getter during the turn returned %q", seenModel)
	}
	// The log records the changes before the turn that used them.
	wantLog := []string{
		"model:faux/faux", "tools:echo,other",
		"user:hi", `assistant:call echo{"v":"1"}`, "result:echo:echo:1",
		"model:faux2/faux-large", "thinking:high", "tools:echo",
		"assistant:done",
	}
	if d := cmp.Diff(wantLog, transcript(f.store.Entries())); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	// Resuming from the log restores what the last turn used.
	c := f.store.Context()
	if c.Model != "faux-large" || c.Thinking != llm.ThinkingHigh || !cmp.Equal(c.ActiveTools, []string{"echo"}) {
		t.Fatalf("context settings = %s %s %v", c.Model, c.Thinking, c.ActiveTools)
	}
}

func TestSystemFuncOncePerSnapshot(t *testing.T) {
	var turns []int
	var sizes []int
	f := newFixture(t, []faux.Reply{
		faux.Calls("", faux.Call("echo", `{"v":"1"}`)),
		faux.Calls("", faux.Call("echo", `{"v":"2"}`)),
		faux.Text("done"),
	}, func(o *Options) {
		o.SystemFunc = func(_ context.Context, s Snapshot) ([]llm.SystemPart, error) {
			turns = append(turns, s.Turn)
			sizes = append(sizes, len(s.Messages))
			return []llm.SystemPart{{Text: "static " + s.System[0].Text}, {Text: "turn", Volatile: true}}, nil
		}
	})
	if _, err := f.prompt(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{1, 2, 3}, turns); d != "" {
		t.Fatalf("SystemFunc turns (-want +got):\n%s", d)
	}
	// The snapshot's messages grow with the run: the prompt, then each
	// turn's assistant message and tool result.
	if d := cmp.Diff([]int{0, 3, 5}, sizes); d != "" {
		t.Fatalf("snapshot sizes (-want +got):\n%s", d)
	}
	for _, req := range f.p.Requests() {
		if got := llm.SystemText(req.System); got != "static base system\n\nturn" {
			t.Fatalf("system = %q", got)
		}
	}
}

func TestSystemFuncErrorAtSavePoint(t *testing.T) {
	calls := 0
	f := newFixture(t, []faux.Reply{faux.Calls("", faux.Call("echo", `{"v":"1"}`))}, func(o *Options) {
		o.SystemFunc = func(context.Context, Snapshot) ([]llm.SystemPart, error) {
			calls++
			if calls == 2 {
				return nil, errors.New("prompt file vanished")
			}
			return nil, nil
		}
	})
	res, err := f.prompt(t, "hi")
	if !errors.Is(err, ErrConfig) || res.Stop != StopError {
		t.Fatalf("res %+v err %v", res, err)
	}
	if f.h.Phase() != PhaseIdle {
		t.Fatal("phase not restored")
	}
}

func TestSetterValidation(t *testing.T) {
	f := newFixture(t, nil, nil)
	errs := []error{
		f.h.SetModel(llm.Model{}),
		f.h.SetThinking("maximal"),
		f.h.SetActiveTools([]string{"ghost"}),
		f.h.SetProvider(nil),
		f.h.SetSteeringMode("some"),
		f.h.SetFollowUpMode(""),
		f.h.Steer("  "),
		f.h.FollowUp("x", llm.Text("not an image")),
	}
	for i, err := range errs {
		if !errors.Is(err, ErrConfig) {
			t.Fatalf("%d: err = %v", i, err)
		}
	}
	if f.h.Model().ID != "faux" || f.h.Thinking() != "" || !cmp.Equal(f.h.ActiveTools(), []string{"echo"}) {
		t.Fatal("a rejected setter changed the configuration")
	}
	// Getters hand out copies.
	f.h.SetStreamOptions(llm.Options{Headers: map[string]string{"a": "1"}})
	o := f.h.StreamOptions()
	o.Headers["a"] = "changed"
	if f.h.StreamOptions().Headers["a"] != "1" {
		t.Fatal("StreamOptions shares its map")
	}
	if err := f.h.SetActiveTools([]string{}); err != nil || len(f.h.ActiveTools()) != 0 {
		t.Fatalf("no active tools: %v %v", err, f.h.ActiveTools())
	}
}

func TestMaxTokensAndTemperatureReachRequests(t *testing.T) {
	p := faux.New(faux.Calls("", faux.Call("nothing", `{}`)), faux.Text("done"))
	temp := 0.2
	h, err := New(Options{Provider: p, Model: faux.Model(), MaxTokens: 1000, Temperature: &temp})
	if err != nil {
		t.Fatal(err)
	}
	h.Subscribe(func(_ context.Context, e Event) error {
		if e.Type == agent.EventToolStart { // mid-run: applies from the next turn
			h.SetMaxTokens(2000)
			h.SetTemperature(nil)
		}
		return nil
	})
	if _, err := h.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := p.Requests()
	if reqs[0].MaxTokens != 1000 || reqs[0].Temperature == nil || *reqs[0].Temperature != 0.2 {
		t.Fatalf("first request: max %d temperature %v", reqs[0].MaxTokens, reqs[0].Temperature)
	}
	if reqs[1].MaxTokens != 2000 || reqs[1].Temperature != nil || h.MaxTokens() != 2000 {
		t.Fatalf("second request: max %d temperature %v", reqs[1].MaxTokens, reqs[1].Temperature)
	}
}
