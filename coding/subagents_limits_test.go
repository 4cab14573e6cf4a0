package coding

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
)

// A child of a child nests up to the depth limit; at the limit the agent
// tool is not offered, so a cycle of agents delegating to each other ends
// there.
func TestSubagentNestedToDepthLimit(t *testing.T) {
	e := newTestEnv(t)
	var mu sync.Mutex
	offered := map[int]bool{} // depth → agent tool offered
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		depth := strings.Count(firstUser(req), ">") + 1
		mu.Lock()
		offered[depth] = hasTool(req, "agent")
		mu.Unlock()
		if r := lastResult(req); r != "" {
			return text("relayed: " + strings.SplitN(r, "\n", 2)[0]), nil
		}
		if hasTool(req, "agent") {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{agentCall("looper", firstUser(req)+">", false)}}, nil
		}
		return text("bottom at depth " + string(rune('0'+depth))), nil
	}
	parent := faux.New(faux.Calls("", agentCall("looper", "x", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{worker("looper")}, func(o *Options) { o.SubagentLimits.MaxDepth = 3 })
	res, err := a.Submit(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	calls, results := toolResults(t, a.Session().Path())
	if len(calls) != 1 {
		t.Fatalf("calls %v", calls)
	}
	if got := results[calls[0]]; !strings.HasPrefix(got, "relayed: relayed: bottom at depth 3") {
		t.Fatalf("result %q (final %q)", got, finalText(res.Messages))
	}
	mu.Lock()
	defer mu.Unlock()
	if !offered[1] || !offered[2] || offered[3] {
		t.Fatalf("agent tool offered by depth: %v", offered)
	}
	// Each level's log records its one child, linked by depth.
	rec := a.Subagents().Children()[0]
	for depth := 1; depth <= 3; depth++ {
		h, _, _, err := session.ReadFile(rec.Path)
		if err != nil {
			t.Fatal(err)
		}
		if h.Agent == nil || h.Agent.Depth != depth || h.Agent.Type != "looper" {
			t.Fatalf("depth %d header %+v", depth, h.Agent)
		}
		recs := subagent.ReadEntries(entriesAt(t, rec.Path))
		if depth == 3 {
			if len(recs) != 0 {
				t.Fatalf("the deepest child spawned %v", recs)
			}
			break
		}
		if len(recs) != 1 || recs[0].State != subagent.Completed || recs[0].Depth != depth+1 {
			t.Fatalf("depth %d children %+v", depth, recs)
		}
		rec = recs[0]
	}
}

func entriesAt(t *testing.T, path string) []session.Entry {
	t.Helper()
	_, entries, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// A definition that asks for a tool the parent lacks does not get it.
func TestSubagentNeverEscalates(t *testing.T) {
	e := newTestEnv(t)
	var mu sync.Mutex
	var childTools []string
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		if r := lastResult(req); r != "" {
			return text("bash said: " + r), nil
		}
		mu.Lock()
		for _, tl := range req.Tools {
			childTools = append(childTools, tl.Name)
		}
		mu.Unlock()
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("bash", `{"command":"touch escalated"}`)}}, nil
	}
	def := worker("shell")
	def.Tools = []string{"Bash", "Read"}
	def.PermissionMode = permission.ModeAutoAll
	parent := faux.New(faux.Calls("", agentCall("shell", "run it", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{def}, func(o *Options) { o.Tools = "read,grep,agent"; o.PermissionMode = "auto_edit" })
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := strings.Join(childTools, ",")
	mu.Unlock()
	if got != "read,grep" {
		t.Fatalf("child tools %q, want read,grep", got)
	}
	calls, results := toolResults(t, a.Session().Path())
	if r := results[calls[0]]; !strings.Contains(r, `bash said: Unknown tool "bash"`) {
		t.Fatalf("result %q", r)
	}
	if _, err := os.Stat(filepath.Join(a.Workspace(), "escalated")); err == nil {
		t.Fatal("the child ran bash")
	}
}

// Over every parent mode × definition mode, the child opened runs in the
// stricter of the two, and plan always propagates.
func TestSubagentModeIsTheStricter(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	modes := permission.Modes()
	for _, pm := range modes {
		o := e.options(dir)
		o.NoSession = true
		o.PermissionMode = string(pm)
		o.AgentDefinitions = defs{worker("w")}
		a, err := Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, dm := range append([]permission.Mode{""}, modes...) {
			def := worker("w")
			def.PermissionMode = dm
			c, err := a.openChild(context.Background(), subagent.Spec{ID: "c", Definition: def, Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := c.(*childRun).a.PermissionMode()
			c.Close()
			want := pm
			if dm != "" && indexMode(dm) < indexMode(pm) {
				want = dm
			}
			if got != want {
				t.Errorf("parent %s, definition %q: %s, want %s", pm, dm, got, want)
			}
			if (pm == permission.ModePlan || dm == permission.ModePlan) && got != permission.ModePlan {
				t.Errorf("plan did not propagate: %s", got)
			}
		}
		a.Close()
	}
}

func indexMode(m permission.Mode) int {
	for i, x := range permission.Modes() {
		if x == m {
			return i
		}
	}
	return -1
}

// A child's approval request reaches the root's subscribers, labelled
// with the agent, and its answer goes back to the child.
func TestSubagentApprovalForwarded(t *testing.T) {
	e := newTestEnv(t)
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		if r := lastResult(req); r != "" {
			return text("bash said: " + r), nil
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("bash", `{"command":"echo approved-run"}`)}}, nil
	}
	parent := faux.New(faux.Calls("", agentCall("shell", "run it", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{worker("shell")}, func(o *Options) { o.Interactive = true; o.PermissionMode = "ask" })
	asked := make(chan *Approval, 4)
	unsub := a.Subscribe(func(_ context.Context, ev Event) error {
		if ev.Approval != nil {
			asked <- ev.Approval
		}
		return nil
	})
	defer unsub()
	done := make(chan error, 1)
	go func() { _, err := a.Submit(context.Background(), "go"); done <- err }()
	// The parent's own agent call asks first (mode ask), then the child's bash.
	for {
		ap := <-asked
		if ap.Tool == "agent" {
			if ap.Agent != "" {
				t.Fatalf("the parent's own request is labelled %q", ap.Agent)
			}
		} else {
			if ap.Tool != "bash" || !strings.HasPrefix(ap.Agent, "shell ") {
				t.Fatalf("request %+v labelled %q", ap.Request, ap.Agent)
			}
		}
		if err := ap.Answer(permission.Answer{Kind: permission.AllowOnce}); err != nil {
			t.Fatal(err)
		}
		if ap.Tool == "bash" {
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls, results := toolResults(t, a.Session().Path())
	if r := results[calls[0]]; !strings.HasPrefix(r, "bash said: approved-run") {
		t.Fatalf("result %q", r)
	}
}

// With no one to answer, a child's request is denied and the child reads
// why.
func TestSubagentApprovalHeadlessDenied(t *testing.T) {
	e := newTestEnv(t)
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		if r := lastResult(req); r != "" {
			return text("bash said: " + r), nil
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("bash", `{"command":"echo nope"}`)}}, nil
	}
	parent := faux.New(faux.Calls("", agentCall("shell", "run it", false)), faux.Text("done"))
	def := worker("shell")
	def.PermissionMode = permission.ModeAsk
	a := openParent(t, e, parent, child, defs{def}, func(o *Options) { o.PermissionMode = "auto_all" })
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	calls, results := toolResults(t, a.Session().Path())
	if r := results[calls[0]]; !strings.Contains(r, "no one can approve it in this non-interactive run") || strings.Contains(r, "bash said: nope") {
		t.Fatalf("result %q", r)
	}
}

// A crash leaves a spawned child without an end: opening the parent
// again marks it orphaned, once, and answers its tool call.
func TestSubagentOrphanRebuild(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	sdir := session.DefaultDir(dir)
	parent, err := session.Create(session.Options{Cwd: dir, Dir: sdir})
	if err != nil {
		t.Fatal(err)
	}
	childS, err := session.Create(session.Options{Cwd: dir, Dir: sdir, SessionID: "c0ffee00c0ffee00c0ffee00c0ffee00",
		Agent: &session.AgentLink{ParentSession: parent.ID(), ParentCall: "call_1", Type: "worker", Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// The child was running a tool when the process died.
	for _, m := range []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("work")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.ToolCall("cc1", "read", []byte(`{"path":"x"}`))}, StopReason: llm.StopToolUse}} {
		if _, err := childS.Append(session.Entry{Type: session.TypeMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
	childPath := childS.Path()
	childS.Close()
	// A second child whose spawned entry the crash lost (it was queued
	// while the parent ran): only its header links it.
	lost, err := session.Create(session.Options{Cwd: dir, Dir: sdir, SessionID: "10571057105710571057105710571057",
		Agent: &session.AgentLink{ParentSession: parent.ID(), ParentCall: "call_2", Type: "worker", Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	lost.Close()
	rec := subagent.Record{ID: childS.ID(), Agent: "worker", CallID: "call_1", Path: childPath, Depth: 1, State: subagent.Running}
	for _, en := range []session.Entry{
		{Type: session.TypeMessage, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("go")}}},
		{Type: session.TypeMessage, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{agentCall("worker", "work", false)}, StopReason: llm.StopToolUse}},
		rec.Entry(),
	} {
		if en.Message != nil && en.Message.Role == llm.RoleAssistant {
			en.Message.Content[0].ID = "call_1"
		}
		if _, err := parent.Append(en); err != nil {
			t.Fatal(err)
		}
	}
	ppath := parent.Path()
	parent.Close()

	for round := range 2 {
		o := e.options(dir)
		o.Session = ppath
		o.AgentDefinitions = defs{worker("worker")}
		a, err := Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		recs := a.Subagents().Children()
		if len(recs) != 2 || recs[0].State != subagent.Orphaned || recs[1].State != subagent.Orphaned || recs[1].ID != lost.ID() {
			t.Fatalf("round %d: records %+v", round, recs)
		}
		a.Close()
	}
	ents := entriesOf(t, ppath)
	if len(ents["spawned"]) != 2 || len(ents["orphaned"]) != 2 {
		t.Fatalf("entries %v", ents)
	}
	for _, p := range []string{ppath, childPath} {
		calls, results := toolResults(t, p)
		for _, c := range calls {
			if !strings.Contains(results[c], "interrupted") {
				t.Errorf("%s: call %s answered %q", filepath.Base(p), c, results[c])
			}
		}
	}
	if w := strings.Join(e.warnings(), "\n"); strings.Count(w, "is marked orphaned") != 2 {
		t.Fatalf("warnings:\n%s", w)
	}
}

// Claude Code's names of the agent tool reach it.
func TestSubagentToolAliases(t *testing.T) {
	e := newTestEnv(t)
	parent := faux.New(faux.Calls("", faux.Call("Task", `{"subagent_type":"worker","description":"d","prompt":"via Task"}`)), faux.Text("done"))
	a := openParent(t, e, parent, echo, defs{worker("worker")}, nil)
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	calls, results := toolResults(t, a.Session().Path())
	if r := results[calls[0]]; !strings.HasPrefix(r, "child says: via Task") {
		t.Fatalf("result %q", r)
	}
}

// A compaction while a child runs keeps the active sub-agents block
// verbatim at the end of the summary.
func TestSubagentCompactionKeepsActiveBlock(t *testing.T) {
	e := newTestEnv(t)
	g := newGate()
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		if err := g.wait(ctx); err != nil {
			return llm.Message{}, err
		}
		return echo(ctx, req)
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "long job", true)), faux.Text("started"), faux.Text("noted"))
	a := openParent(t, e, parent, child, defs{worker("worker")}, nil)
	ends, unsub := events(a, "agent_end")
	defer unsub()
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	<-ends
	<-g.entered
	id := a.Subagents().Active()[0].ID
	entry, err := a.h.Compact(context.Background(), harness.CompactOptions{Summary: "The user asked for a long job."})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n## Active sub-agents\n- " + id + " (worker, background, running): task long job\n"
	if !strings.HasPrefix(entry.Summary, "The user asked for a long job.") || !strings.Contains(entry.Summary, want) {
		t.Fatalf("summary %q, want it to hold %q", entry.Summary, want)
	}
	close(g.open)
	<-ends // the completion's wake-up
}

// A child spends from its parent's budget: once the parent's prompt has
// spent it, the child's first request is refused and the child fails.
func TestSubagentBudgetIsTheParents(t *testing.T) {
	e := newTestEnv(t)
	var mu sync.Mutex
	asked := 0
	child := func(ctx context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return echo(ctx, req)
	}
	parent := faux.New(faux.Calls("", agentCall("worker", "spend", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{worker("worker")}, func(o *Options) { o.Budget = telemetry.Limits{OutputTokens: 5} })
	_, _ = a.Submit(context.Background(), "go")
	mu.Lock()
	defer mu.Unlock()
	if asked != 0 {
		t.Fatalf("the child's model was asked %d times over the parent's budget", asked)
	}
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].State != subagent.Failed || !strings.Contains(recs[0].Error, "budget") {
		t.Fatalf("records %+v", recs)
	}
}

// A child that would never end is stopped by its definition's maxTurns
// and fails with the reason.
func TestSubagentNeverEndingChildStops(t *testing.T) {
	e := newTestEnv(t)
	var mu sync.Mutex
	n := 0
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("ls", `{"path":"."}`), llm.Text(fmt.Sprint("again ", k))}}, nil
	}
	def := worker("looper")
	def.MaxTurns = 3
	parent := faux.New(faux.Calls("", agentCall("looper", "loop", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{def}, nil)
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	recs := a.Subagents().Children()
	if len(recs) != 1 || recs[0].State != subagent.Failed || !strings.Contains(recs[0].Error, "max_turns") || recs[0].Turns != 3 {
		t.Fatalf("records %+v", recs)
	}
	calls, results := toolResults(t, a.Session().Path())
	if r := results[calls[0]]; !strings.HasPrefix(r, "The sub-agent failed (max_turns): the sub-agent stopped without finishing (max_turns)") {
		t.Fatalf("result %q", r)
	}
}
