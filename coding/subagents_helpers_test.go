package coding

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
)

// defs is a fixed set of definitions.
type defs []subagent.Definition

func (d defs) Lookup(name string) (subagent.Definition, bool) {
	for _, x := range d {
		if x.Name == name {
			return x, true
		}
	}
	return subagent.Definition{}, false
}

func (d defs) All() []subagent.Definition { return append([]subagent.Definition(nil), d...) }

// childMarker starts every test definition's prompt, so the router can
// tell a child's requests from the parent's.
const childMarker = "SUBAGENT-UNDER-TEST"

func worker(name string) subagent.Definition {
	return subagent.Definition{Name: name, Description: "does " + name + " work", Prompt: childMarker + " " + name, Source: "test"}
}

// router sends the requests of children (their system prompt holds
// childMarker) to child and the others to parent.
type router struct {
	parent *faux.Provider
	child  func(ctx context.Context, req *llm.Request) (llm.Message, error)
	// childP serves every child request with child.
	childP *faux.Provider
	mu     sync.Mutex
}

func newRouter(parent *faux.Provider, child func(ctx context.Context, req *llm.Request) (llm.Message, error)) *router {
	return &router{parent: parent, child: child, childP: faux.New()}
}

func (r *router) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	if strings.Contains(llm.SystemText(req.System), childMarker) {
		r.childP.Push(faux.Reply{Func: r.child})
		return r.childP.Stream(ctx, req)
	}
	return r.parent.Stream(ctx, req)
}

// text is an assistant reply of text.
func text(s string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(s)}}
}

// firstUser is the text of the first user message of req.
func firstUser(req *llm.Request) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			return m.Text()
		}
	}
	return ""
}

// lastResult is the text of the last tool result of req ("" without).
func lastResult(req *llm.Request) string {
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleToolResult {
		return req.Messages[n-1].Text()
	}
	return ""
}

func hasTool(req *llm.Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// agentCall is a call of the agent tool.
func agentCall(typ, prompt string, background bool) llm.Content {
	b, _ := json.Marshal(map[string]any{"subagent_type": typ, "description": "task " + prompt, "prompt": prompt, "run_in_background": background})
	return faux.Call("agent", string(b))
}

// entriesOf reads the subagent entries of a log: event → ids.
func entriesOf(t *testing.T, path string) map[string][]string {
	t.Helper()
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range entries {
		if e.Type == session.TypeCustom && e.Kind == subagent.EntryKind {
			var d struct {
				Event string `json:"event"`
				ID    string `json:"id"`
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			out[d.Event] = append(out[d.Event], d.ID)
		}
	}
	return out
}

// toolResults maps the tool call ids of a log to their results' text.
func toolResults(t *testing.T, path string) (calls []string, results map[string]string) {
	t.Helper()
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	results = map[string]string{}
	for _, e := range entries {
		if e.Type != session.TypeMessage {
			continue
		}
		m := e.Message
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall {
				calls = append(calls, c.ID)
			}
		}
		if m.Role == llm.RoleToolResult {
			results[m.ToolCallID] = m.Text()
		}
	}
	return calls, results
}

// events collects an agent's events of one type on a channel.
func events(a *Agent, typ string) (<-chan Event, func()) {
	ch := make(chan Event, 256)
	unsub := a.Subscribe(func(_ context.Context, ev Event) error {
		if string(ev.Type) == typ {
			ch <- ev
		}
		return nil
	})
	return ch, unsub
}

// gate lets tests hold children until they release them, and see how
// many wait at once.
type gate struct {
	mu      sync.Mutex
	in, max int
	entered chan struct{}
	open    chan struct{}
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 64), open: make(chan struct{})} }

// wait blocks until the gate opens or ctx ends.
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	g.in++
	g.max = max(g.max, g.in)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.in--
		g.mu.Unlock()
	}()
	g.entered <- struct{}{}
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}
