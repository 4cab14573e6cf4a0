package interop

import (
	"fmt"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// The import pipeline. A reader hands the entries of a recording, in
// file order, to the stages below; each stage passes on what it keeps,
// so that an import holds only the entries whose fate is still open (a
// message waiting for the results folded into it, or for the one child
// it may be merged with) and maps of ids, never the whole conversation.
//
// Two of the decisions need the whole file: whether a message has one
// child (mergeRoles) and how many results will be folded into it
// (textifyCalls). The first pass over the file (a plan) counts them;
// the second makes the same decisions as the in-memory steps would and
// streams the result.

// plan is what the first pass learns: the tree after textifyCalls, as
// counts per entry id.
type plan struct {
	// raw: the entries are rein's, and only orphans applies.
	raw     bool
	orphans orphanStep
	textify textifyStep
	// children counts the tree entries under each entry; folds the
	// results that textifyCalls folds into each message.
	children map[string]int32
	folds    map[string]int32
}

func newPlan(linked, raw bool) *plan {
	return &plan{raw: raw, orphans: newOrphanStep(linked), textify: newTextifyStep(), children: map[string]int32{}, folds: map[string]int32{}}
}

// add counts e (the first pass; r is a throwaway report).
func (p *plan) add(e session.Entry, r *Report, name string) {
	if !p.orphans.step(&e, r, name) || p.raw {
		return
	}
	if into := p.textify.step(&e, r, false); into != "" {
		p.folds[into]++
		return
	}
	if e.IsTree() {
		p.children[e.Parent]++
	}
}

// orphanStep is orphans one entry at a time: it drops an entry whose id
// repeats, and re-attaches one whose parent is not among the entries
// before it to the tree entry before it. With linked unset (readers
// that link each entry to the one before) it passes everything.
type orphanStep struct {
	linked bool
	seen   map[string]bool
	prev   string
}

func newOrphanStep(linked bool) orphanStep {
	return orphanStep{linked: linked, seen: map[string]bool{}}
}

func (o *orphanStep) step(e *session.Entry, r *Report, name string) bool {
	if !o.linked {
		o.seen[e.ID] = true
		return true
	}
	if o.seen[e.ID] {
		r.drop(name, "entry "+e.ID, "its id repeats an earlier entry's")
		return false
	}
	if e.Parent != "" && !o.seen[e.Parent] {
		r.drop(name, "the parent link of entry "+e.ID, "its parent "+e.Parent+" is not in the file; attached to the entry before it")
		e.Parent = o.prev
	}
	o.seen[e.ID] = true
	if e.IsTree() {
		o.prev = e.ID
	}
	return true
}

// textifyStep is textifyCalls one entry at a time: calls to tools rein
// does not have become text in their assistant message, and their
// results are folded into that message.
type textifyStep struct {
	owner map[string]string // call id -> the id of the message holding its text
	names map[string]string // call id -> tool name
	gone  alias
}

func newTextifyStep() textifyStep {
	return textifyStep{owner: map[string]string{}, names: map[string]string{}, gone: alias{}}
}

// step rewrites e; when e is a result to fold, it returns the id of the
// message to fold it into (fold gives the text), and e goes no further.
// With rewrite unset (the first pass) only the decisions are made.
func (t *textifyStep) step(e *session.Entry, r *Report, rewrite bool) (into string) {
	e.Parent = t.gone.resolve(e.Parent)
	m := e.Message
	if m == nil {
		return ""
	}
	switch m.Role {
	case llm.RoleToolResult:
		if m.ToolName == "" {
			m.ToolName = t.names[m.ToolCallID]
		}
		if at, ok := t.owner[m.ToolCallID]; ok {
			delete(t.owner, m.ToolCallID)
			t.gone[e.ID] = e.Parent
			return at
		}
	case llm.RoleAssistant:
		changed := false
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall {
				t.names[c.ID] = c.Name
				if !isReinTool(c.Name) {
					changed = true
				}
			}
		}
		if !changed {
			return ""
		}
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall && !isReinTool(c.Name) {
				t.owner[c.ID] = e.ID
				r.TextCalls++
			}
		}
		if !rewrite {
			return ""
		}
		nm := m.Clone()
		for i, c := range nm.Content {
			if c.Type == llm.ContentToolCall && !isReinTool(c.Name) {
				nm.Content[i] = llm.Text("[tool call " + c.Name + ", id " + c.ID + "]\n" + c.RawArguments())
			}
		}
		e.Message = &nm
	}
	return ""
}

// fold is the text a folded result leaves in its call's message.
func fold(m *llm.Message) llm.Content {
	word := "result"
	if m.IsError {
		word = "error"
	}
	return llm.Text("[" + word + " of " + m.ToolName + ", id " + m.ToolCallID + "]\n" + m.Text())
}

// held is an entry a stage keeps until its fate is known.
type held struct {
	e     session.Entry
	folds int32 // results still to fold into it
	wait  bool  // (merge) it may still take in its one child
}

// pipeline runs the second pass: orphans, textify, merge, answer, then
// out. Entries come in through add; finish flushes what is held.
type pipeline struct {
	plan    *plan
	r       *Report
	name    string
	orphans orphanStep
	textify textifyStep
	// textify's queue: entries waiting for results to fold, and those
	// after them.
	tq    []*held
	tByID map[string]*held
	// merge's queue: messages that may take in their one child, and the
	// entries after them.
	mq    []*held
	mByID map[string]*held
	mgone alias
	ans   answerStep
	out   func(*session.Entry) error
}

func newPipeline(p *plan, r *Report, name string, linked bool, out func(*session.Entry) error) *pipeline {
	return &pipeline{plan: p, r: r, name: name, orphans: newOrphanStep(linked), textify: newTextifyStep(),
		tByID: map[string]*held{}, mByID: map[string]*held{}, mgone: alias{}, ans: newAnswerStep(p), out: out}
}

func (q *pipeline) add(e session.Entry) error {
	if !q.orphans.step(&e, q.r, q.name) {
		return nil
	}
	if q.plan.raw {
		return q.emit(&e)
	}
	if into := q.textify.step(&e, q.r, true); into != "" {
		h := q.tByID[into]
		if h == nil {
			return fmt.Errorf("import: the result %s folds into %s, which is not held", e.ID, into)
		}
		h.e.Message.Content = append(h.e.Message.Content, fold(e.Message))
		h.folds--
	} else {
		h := &held{e: e, folds: q.plan.folds[e.ID]}
		q.tq = append(q.tq, h)
		if h.folds > 0 {
			q.tByID[e.ID] = h
		}
	}
	for len(q.tq) > 0 && q.tq[0].folds <= 0 {
		h := q.tq[0]
		q.tq[0] = nil
		q.tq = q.tq[1:]
		delete(q.tByID, h.e.ID)
		if err := q.merge(h.e); err != nil {
			return err
		}
	}
	return nil
}

// mergeable reports whether a message may take in the message under it.
func mergeable(m *llm.Message) bool {
	return m != nil && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && !m.Failed()
}

// merge is mergeRoles for one entry: a user or assistant message goes
// into its parent when that is a message of the same role with no other
// child.
func (q *pipeline) merge(e session.Entry) error {
	e.Parent = q.mgone.resolve(e.Parent)
	children := q.plan.children
	if p := q.mByID[e.Parent]; p != nil && e.IsTree() {
		p.wait = false // its one child has come
		if m, pm := e.Message, p.e.Message; mergeable(m) && pm.Role == m.Role {
			merged := *pm
			merged.Content = append(append([]llm.Content(nil), pm.Content...), m.Content...)
			if m.Usage != nil {
				merged.Usage = m.Usage
			}
			if m.StopReason != "" {
				merged.StopReason = m.StopReason
			}
			p.e.Message = &merged
			q.mgone[e.ID] = e.Parent
			children[e.Parent] = children[e.ID]
			q.r.Merged++
			p.wait = mergeable(&merged) && children[e.Parent] == 1
		}
		if !p.wait {
			delete(q.mByID, e.Parent)
		}
		if q.mgone[e.ID] != "" {
			return q.release()
		}
	}
	h := &held{e: e, wait: mergeable(e.Message) && children[e.ID] == 1}
	if h.wait {
		q.mByID[e.ID] = h
	}
	q.mq = append(q.mq, h)
	return q.release()
}

func (q *pipeline) release() error {
	for len(q.mq) > 0 && !q.mq[0].wait {
		h := q.mq[0]
		q.mq[0] = nil
		q.mq = q.mq[1:]
		if err := q.ans.step(&h.e, q.r, q.emit); err != nil {
			return err
		}
	}
	return nil
}

func (q *pipeline) emit(e *session.Entry) error {
	if m := e.Message; m != nil {
		q.r.Messages++
		q.r.Calls += len(m.ToolCalls())
	}
	return q.out(e)
}

// finish passes on what is still held and answers the calls left open
// at the ends of branches.
func (q *pipeline) finish() error {
	for _, h := range q.tq {
		if err := q.merge(h.e); err != nil {
			return err
		}
	}
	q.tq = nil
	for _, h := range q.mq {
		h.wait = false
	}
	if err := q.release(); err != nil {
		return err
	}
	return q.ans.finish(q.r, q.emit)
}

// answerStep is answerCalls one entry at a time: where a branch goes on
// (or ends) after an assistant message without results for all its
// calls, error results saying they were not recorded are put in
// between; a result that answers no open call is dropped and reported.
type answerStep struct {
	used     map[string]bool // every id of the recording
	open     map[string]openCalls
	order    []string // ids with open calls, in order
	hasChild map[string]bool
	synth    map[string]string // entry id -> end of the synthetic results after it
	gone     alias
}

type openCalls struct {
	calls []call
	ts    time.Time
}

type call struct{ id, name string }

func newAnswerStep(p *plan) answerStep {
	return answerStep{used: p.orphans.seen, open: map[string]openCalls{}, hasChild: map[string]bool{}, synth: map[string]string{}, gone: alias{}}
}

func (a *answerStep) fill(parent string, r *Report, emit func(*session.Entry) error) (string, error) {
	if end, ok := a.synth[parent]; ok {
		return end, nil
	}
	at := parent
	oc := a.open[parent]
	for i, c := range oc.calls {
		id := fmt.Sprintf("%s.r%d", parent, i)
		for a.used[id] {
			id += "x"
		}
		a.used[id] = true
		m := llm.ToolResult(c.id, c.name, true, llm.Text(NotRecorded))
		m.Timestamp = oc.ts
		if err := emit(&session.Entry{Type: session.TypeMessage, ID: id, Parent: at, Timestamp: oc.ts, Message: &m}); err != nil {
			return "", err
		}
		r.Synthetic++
		at = id
	}
	a.synth[parent] = at
	return at, nil
}

func (a *answerStep) step(e *session.Entry, r *Report, emit func(*session.Entry) error) error {
	e.Parent = a.gone.resolve(e.Parent)
	pending := a.open[e.Parent].calls
	if m := e.Message; m != nil && m.Role == llm.RoleToolResult {
		k := -1
		for i, c := range pending {
			if c.id == m.ToolCallID {
				k = i
			}
		}
		if k < 0 {
			r.drop("", "tool result "+m.ToolCallID, "it answers no call of the assistant message before it")
			a.gone[e.ID] = e.Parent
			return nil
		}
		if len(pending) > 1 {
			rest := append(append([]call(nil), pending[:k]...), pending[k+1:]...)
			a.setOpen(e.ID, rest, e.Timestamp)
		}
	} else if e.IsTree() {
		if len(pending) > 0 {
			var err error
			if e.Parent, err = a.fill(e.Parent, r, emit); err != nil {
				return err
			}
		}
		if m := e.Message; m != nil && m.Role == llm.RoleAssistant {
			var calls []call
			for _, c := range m.Content {
				if c.Type == llm.ContentToolCall {
					calls = append(calls, call{c.ID, c.Name})
				}
			}
			if len(calls) > 0 {
				a.setOpen(e.ID, calls, e.Timestamp)
			}
		}
	}
	if e.IsTree() {
		if _, ok := a.open[e.Parent]; ok {
			a.hasChild[e.Parent] = true
		}
	}
	return emit(e)
}

func (a *answerStep) setOpen(id string, calls []call, ts time.Time) {
	a.open[id] = openCalls{calls: calls, ts: ts}
	a.order = append(a.order, id)
}

// finish answers the calls still open at the ends of branches.
func (a *answerStep) finish(r *Report, emit func(*session.Entry) error) error {
	for _, id := range a.order {
		if !a.hasChild[id] {
			if _, err := a.fill(id, r, emit); err != nil {
				return err
			}
		}
	}
	return nil
}
