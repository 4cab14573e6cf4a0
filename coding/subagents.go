package coding

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/lane"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool"
)

// childLink is set in the Options of a sub-agent's session: who spawned
// it and what it may do.
type childLink struct {
	parent *Agent
	spec   subagent.Spec
	policy subagent.Policy
	// tools are the child's tools: the parent's active tools its policy
	// allows (delegate says whether the agent tools are among them).
	tools    map[string]bool
	delegate bool
	// start is the SubagentStart hooks' context for the child.
	start string
}

// toolset is the child's registry: the parent's own tool values (built
// for the same workspace, sandbox and environment; bash's background
// jobs stay the parent's) that its policy allows. The agent tools are
// the child's own, added with its runtime; the skill tool comes from
// its own prompt.
func (c *childLink) toolset() (*tool.Registry, error) {
	var keep []*tool.Tool
	for _, t := range c.parent.h.Tools().Tools() {
		switch t.Name {
		case subagent.ToolName, subagent.CancelToolName, prompt.SkillToolName:
			continue
		}
		if c.tools[t.Name] {
			keep = append(keep, t)
		}
	}
	return tool.NewRegistry(keep...)
}

// agentID and agentType name the sub-agent o opens ("" for a user's
// agent); its hooks carry them.
func (o *Options) agentID() string {
	if o.child == nil {
		return ""
	}
	return o.child.spec.ID
}

func (o *Options) agentType() string {
	if o.child == nil {
		return ""
	}
	return o.child.spec.Definition.Name
}

// depth is the depth of the agent o opens: 0 for a user's agent.
func (o *Options) depth() int {
	if o.child == nil {
		return 0
	}
	return o.child.spec.Depth
}

// newRuntime makes the runtime of the agent's children when it may
// delegate: agents are defined, tools are offered, and (for a child) the
// definition lets it. Its tools are added to reg.
//
// The runtime exists whenever the agent does, so that the children its
// log records are known (and orphans marked) even when it cannot spawn.
func (s *setup) newRuntime(reg *tool.Registry, host *agentHost) (*subagent.Runtime, *tool.Registry, error) {
	limits := s.o.SubagentLimits
	defs := s.o.AgentDefinitions
	if c := s.o.child; c != nil {
		limits, defs = c.parent.sub.Limits(), c.parent.defs
	}
	offer := s.agentToolWanted() && len(reg.Names()) > 0
	if c := s.o.child; c != nil {
		offer = c.delegate
	}
	if defs == nil && offer {
		small := ""
		if s.cfg != nil {
			small = s.cfg.Aliases[SmallModelAlias]
		}
		cat, err := subagent.Discover(AgentDiscoverOptions(s.o, s.ws.Root, small, nil))
		if err != nil {
			return nil, nil, err
		}
		for _, n := range cat.Notes() {
			s.o.Warn(n)
		}
		defs = cat
	}
	host.defs = defs
	rt := subagent.New(subagent.Options{Host: host, Definitions: defs, Limits: limits, Depth: s.o.depth(), OnChange: host.changed, MaySpawn: host.maySpawn})
	if !offer || defs == nil {
		return rt, reg, nil
	}
	if s.o.depth() >= rt.Limits().MaxDepth {
		// At the depth limit the tool would only refuse: do not offer it.
		return rt, reg, nil
	}
	out, err := tool.NewRegistry(append(slices.Clone(reg.Tools()), rt.Tools()...)...)
	if err != nil {
		return nil, nil, err
	}
	return rt, out, nil
}

// agentToolWanted reports whether Options.Tools offers the agent tool:
// it does unless it says "none" or "-agent", or lists tools without
// naming agent (or a toolset).
func (s *setup) agentToolWanted() bool {
	spec := strings.TrimSpace(s.o.Tools)
	if spec == "" {
		return true
	}
	if spec == "none" {
		return false
	}
	named, listed := false, false
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if d, ok := strings.CutPrefix(item, "-"); ok {
			if subagent.IsToolName(d) {
				return false
			}
			continue
		}
		if item == "" {
			continue
		}
		listed = true
		if subagent.IsToolName(item) || tool.Toolsets()[item] != nil {
			named = true
		}
	}
	return named || !listed
}

// withoutAgentTools removes the agent tool's names from a tools spec, as
// the built-in registry does not hold it.
func withoutAgentTools(items []string) []string {
	return slices.DeleteFunc(items, func(s string) bool {
		return subagent.IsToolName(s) || s == subagent.CancelToolName
	})
}

// agentHost is the subagent.Host of an Agent; a is set once the agent
// exists (the runtime is made before it).
type agentHost struct {
	a    *Agent
	defs subagent.Definitions
}

// policy is the agent's own policy, from which its children's are
// restricted.
func (a *Agent) policy() subagent.Policy {
	if c := a.s.o.child; c != nil {
		p := c.policy
		return p
	}
	return subagent.Policy{Tools: a.h.ActiveTools(), Mode: a.PermissionMode(), MaxDepth: a.sub.Limits().MaxDepth}
}

// maySpawn refuses agent types the agent's policy excludes.
func (h *agentHost) maySpawn(d subagent.Definition) error {
	if p := h.a.policy(); !p.AllowsAgent(d.Name) {
		return fmt.Errorf("this agent may not delegate to %q; it may delegate to: %s", d.Name, strings.Join(p.Agents, ", "))
	}
	return nil
}

// Open opens a child as an ordinary session: the parent's workspace,
// model (unless the definition names one), settings and hooks; its tools
// are the parent's active ones narrowed by the definition, its mode the
// stricter of the two, its system prompt the definition's.
func (h *agentHost) Open(ctx context.Context, spec subagent.Spec) (subagent.Child, error) {
	return h.a.openChild(ctx, spec)
}

// Append writes e to the parent's log (queued while it runs).
func (h *agentHost) Append(e session.Entry) error { return h.a.h.AppendEntry(e) }

// Announce delivers a background child's end: steering while the
// parent runs, else a new prompt.
func (h *agentHost) Announce(text string) {
	a := h.a
	if a.h.Phase() == harness.PhaseTurn && a.h.Steer(text) == nil {
		return
	}
	// Idle (or busy with something other than a turn): a new prompt, in
	// the session's FIFO behind whatever runs.
	a.background(func(ctx context.Context) {
		_, _ = a.SubmitWait(ctx, text)
	})
}

func (h *agentHost) changed(rec subagent.Record) {
	if h.a == nil {
		return
	}
	root := h.a.root()
	root.smu.Lock()
	ws := slices.Clone(root.watchers)
	root.smu.Unlock()
	for _, w := range ws {
		w.fn(rec)
	}
}

// watcher is one WatchSubagents call.
type watcher struct{ fn func(subagent.Record) }

// WatchSubagents calls fn with a sub-agent's record whenever it changes
// (queued, running, ended), for every sub-agent under the agent at any
// depth, until the returned function is called. fn is called from the
// goroutines that run the children, possibly at once: it must be safe
// for that and must not block.
func (a *Agent) WatchSubagents(fn func(subagent.Record)) (stop func()) {
	w := &watcher{fn: fn}
	a.smu.Lock()
	a.watchers = append(a.watchers, w)
	a.smu.Unlock()
	return func() {
		a.smu.Lock()
		a.watchers = slices.DeleteFunc(a.watchers, func(x *watcher) bool { return x == w })
		a.smu.Unlock()
	}
}

// root is the user's agent above a (a itself when it is one).
func (a *Agent) root() *Agent {
	for a.s.o.child != nil {
		a = a.s.o.child.parent
	}
	return a
}

// Subagents is the runtime of the agent's children, nil when it cannot
// delegate.
func (a *Agent) Subagents() *subagent.Runtime { return a.sub }

// openChild opens the child spec describes.
func (a *Agent) openChild(ctx context.Context, spec subagent.Spec) (subagent.Child, error) {
	def := spec.Definition
	pol, err := subagent.Restrict(a.policy(), def)
	if err != nil {
		return nil, err
	}
	link := &childLink{parent: a, spec: spec, policy: pol, tools: map[string]bool{}}
	// Its tools: the parent's active tools the restricted policy allows
	// (agent_cancel goes with agent).
	for _, t := range a.h.ActiveTools() {
		name := t
		if t == subagent.CancelToolName {
			name = subagent.ToolName
		}
		if pol.Allows(name) {
			link.tools[t] = true
		}
	}
	link.delegate = link.tools[subagent.ToolName]
	if a.perm.cmds.Has(command.SubagentStart) {
		link.start = a.perm.cmds.SubagentStart(ctx, spec.ID, def.Name).Context
	}
	co := a.s.o
	co.child = link
	co.Session, co.NoSession = "", a.Session() == nil
	co.restoreTools = false
	co.Tools = ""
	co.PermissionMode = string(pol.Mode)
	co.Interactive = a.root().perm.broker != nil
	co.ConfirmTrust = nil
	// Only the MCP servers its definition asks for (and may have) start.
	co.DisableMCP = []string{"all"}
	var notes []string
	co.MCPServers, notes = a.childMCP(def, pol)
	co.Strict = false
	co.Frontend = "subagent"
	co.Tracing = nil
	// Children share the parent's lanes, as workers.
	co.Priority = lane.Worker
	if def.Prompt != "" {
		co.SystemPrompt, co.AppendSystem = def.Prompt, ""
	}
	if def.MaxTurns > 0 {
		co.MaxTurns = def.MaxTurns
	}
	if m := strings.TrimSpace(def.Model); m != "" && m != "inherit" {
		co.Provider, co.ModelInfo, co.Model = nil, llm.Model{}, m
	} else if co.Provider == nil {
		co.Model = ModelName(a.h.Model())
	}
	label := fmt.Sprintf("agent %s %s: ", def.Name, ShortID(spec.ID))
	warn := a.s.o.Warn
	for _, n := range notes {
		a.noteOnce("warning: " + n)
	}
	co.Warn = func(msg string) { warn(label + msg) }
	c, err := open(ctx, co, nil)
	if err != nil {
		return nil, err
	}
	if link.start != "" {
		_ = c.h.NextTurn(link.start)
	}
	// The child's approval requests go to whoever answers the root's.
	c.h.Subscribe(func(ctx context.Context, ev harness.Event) error {
		if ev.Type == harness.EventPermissionRequest && ev.Permission != nil {
			c.root().forward(ctx, Event{Event: ev, Approval: &Approval{Request: *ev.Permission, a: c, Agent: def.Name + " " + ShortID(spec.ID)}})
		}
		return nil
	})
	return &childRun{a: c, agent: def.Name, budget: def.Budget}, nil
}

// childRun is a child agent as the runtime drives it.
type childRun struct {
	a      *Agent
	agent  string
	budget subagent.Budget
}

func (c *childRun) Path() string {
	if s := c.a.Session(); s != nil {
		return s.Path()
	}
	return ""
}

// Run submits prompt; the outcome's usage is the child's run record's,
// its own children included.
//
// Its budget is the smaller of its definition's and what the parent's
// run (ctx's) has left; its spending is charged to the parent's run and
// every ancestor's. A child stopped by a budget ends with Stop
// "budget_exhausted" and an error saying which limit.
func (c *childRun) Run(ctx context.Context, prompt string) (subagent.Outcome, error) {
	info := telemetry.Info{Agent: c.agent}
	if l := c.limits(ctx); !l.IsZero() {
		info.Limits = &l
		info.LimitsFrom = "agent " + c.agent + "'s budget: its definition's, within what its parent's run had left"
	}
	res, err := c.a.submit(ctx, true, prompt, nil, info)
	rec := c.a.LastRun()
	out := subagent.Outcome{Stop: string(res.Stop), Turns: res.Turns, Final: finalText(res.Messages)}
	out.Usage = subagent.Usage{Input: rec.Usage.Prompt() + rec.ChildUsage.Prompt(), Output: rec.Usage.Output + rec.ChildUsage.Output, Cost: rec.TotalCost()}
	if rec.Outcome == telemetry.OutcomeBudgetExhausted && llm.CodeOf(err) == llm.CodeBudget {
		out.Stop = string(telemetry.OutcomeBudgetExhausted)
		var be *telemetry.BudgetError
		if errors.As(err, &be) {
			err = fmt.Errorf("%s; what it did so far is in its session", be.Error())
		}
	}
	return out, err
}

// limits is the child's budget: its definition's within what the
// parent's run has left (zero: none of its own; its ancestors' limits
// still hold).
func (c *childRun) limits(ctx context.Context) telemetry.Limits {
	l := telemetry.Limits{Cost: c.budget.CostUSD, InputTokens: c.budget.InputTokens, OutputTokens: c.budget.OutputTokens}
	if l.IsZero() {
		return l
	}
	if p := telemetry.RunFrom(ctx); p != nil {
		l = l.Within(p.Meter().Remaining())
	}
	return l
}

func (c *childRun) Close() error { return c.a.Close() }

// finalText is the text of the last assistant message of msgs.
func finalText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			if t := strings.TrimSpace(msgs[i].Text()); t != "" {
				return t
			}
		}
	}
	return ""
}

// forward hands ev to the agent's subscribers: events of its
// sub-agents (approval requests, changes) that its own harness does not
// emit.
func (a *Agent) forward(ctx context.Context, ev Event) {
	a.smu.Lock()
	subs := slices.Clone(a.subs)
	a.smu.Unlock()
	for _, s := range subs {
		_ = s.fn(ctx, ev)
	}
}

// rebuildChildren reads the children the log records and marks those a
// crash left without an end as orphaned.
func (a *Agent) rebuildChildren(sess *session.Session) {
	if sess == nil {
		return
	}
	// A crash can end the process after a child's session was created
	// but before its spawned entry (queued while the parent ran) was
	// written: such children are found by their header and recorded now,
	// to be marked orphaned below.
	links := linkedChildren(filepath.Dir(sess.Path()), sess.ID())
	for _, rec := range unrecorded(sess, links) {
		if err := a.h.AppendEntry(rec.Entry()); err != nil {
			a.s.o.warnf("warning: cannot record sub-agent %s: %v", ShortID(rec.ID), err)
		}
	}
	orphaned, err := a.sub.Rebuild(sess.Entries())
	for _, r := range orphaned {
		r.Path = childPath(r, links)
		a.s.o.warnf("note: sub-agent %s (%s) was left running when the session last ended; it is marked orphaned (its session: %s)", ShortID(r.ID), r.Agent, r.Path)
		if r.Path != "" {
			if err := orphanTree(r.Path, a.s.o.Redactor.Bytes); err != nil {
				a.s.o.warnf("warning: sub-agent %s: %v", ShortID(r.ID), err)
			}
		}
	}
	if err != nil {
		a.s.o.warnf("warning: cannot record orphaned sub-agents: %v", err)
	}
}

// orphanTree marks the children a crashed child's own log left running
// as orphaned, down the tree, and answers each log's interrupted tool
// calls.
func orphanTree(path string, redact func([]byte) []byte) error {
	sess, err := session.Open(path, session.Options{Redact: redact})
	if err != nil {
		return err
	}
	var errs []error
	// No one will run this child again: the calls Open left for the
	// next prompt are answered now.
	for _, c := range sess.InFlight().Calls {
		text := session.PartialText
		if c.Journaled && !c.Started {
			text = session.NotRunText
		}
		m := llm.ToolResult(c.Call.ID, c.Call.Name, true, llm.Text(text))
		_, err := sess.Append(session.Entry{Type: session.TypeMessage, Message: &m})
		errs = append(errs, err)
	}
	links := linkedChildren(filepath.Dir(sess.Path()), sess.ID())
	for _, rec := range unrecorded(sess, links) {
		_, err := sess.Append(rec.Entry())
		errs = append(errs, err)
	}
	rt := subagent.New(subagent.Options{Host: logHost{sess}})
	orphaned, err := rt.Rebuild(sess.Entries())
	rt.Close()
	errs = append(errs, err)
	for _, r := range orphaned {
		if p := childPath(r, links); p != "" {
			errs = append(errs, orphanTree(p, redact))
		}
	}
	errs = append(errs, sess.Close())
	return errors.Join(errs...)
}

// logHost records entries straight into a session no agent runs.
type logHost struct{ s *session.Session }

func (logHost) Open(context.Context, subagent.Spec) (subagent.Child, error) {
	return nil, errors.New("no agent runs this session")
}
func (h logHost) Append(e session.Entry) error { _, err := h.s.Append(e); return err }
func (logHost) Announce(string)                {}

// unrecorded returns, as spawned records, the children whose sessions
// name sess as their parent but which its log does not record.
func unrecorded(sess *session.Session, links []linked) []subagent.Record {
	known := map[string]bool{}
	for _, r := range subagent.ReadEntries(sess.Entries()) {
		known[r.ID] = true
	}
	var out []subagent.Record
	for _, l := range links {
		if !known[l.h.ID] {
			out = append(out, subagent.Record{ID: l.h.ID, Agent: l.h.Agent.Type, CallID: l.h.Agent.ParentCall, Path: l.path,
				Depth: l.h.Agent.Depth, State: subagent.Running, Started: l.h.Created})
		}
	}
	return out
}

// childPath is r's session file: as recorded, else found by its header
// (a child recorded while queued has no path in its spawned entry).
func childPath(r subagent.Record, links []linked) string {
	if r.Path != "" {
		return r.Path
	}
	for _, l := range links {
		if l.h.ID == r.ID {
			return l.path
		}
	}
	return ""
}

// linked is a session file whose header names its parent.
type linked struct {
	path string
	h    session.Header
}

// linkedChildren lists the sessions in dir whose header says parent
// spawned them; only each file's first line is read.
func linkedChildren(dir, parent string) []linked {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []linked
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		line, _ := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
		f.Close()
		var h session.Header
		if json.Unmarshal(line, &h) != nil || h.Agent == nil || h.Agent.ParentSession != parent || h.ID == "" {
			continue
		}
		out = append(out, linked{path: p, h: h})
	}
	return out
}
