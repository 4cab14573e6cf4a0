package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// Totals are what a session's log says was spent, over every branch of
// it: re-derived from the log when the harness is made, so a resumed
// session (after a crash too) continues from them instead of zero, and
// kept up to date as the harness persists replies.
type Totals struct {
	// Usage sums the usage of every assistant reply in the log.
	Usage llm.Usage
	// Replies counts assistant messages; ToolCalls the calls they made.
	Replies, ToolCalls int
	// Requests counts journaled requests (request_started entries);
	// Dropped those a recovery dropped because they were in flight when
	// the process died.
	Requests, Dropped int
}

// Recovery is what the harness found in flight in its store when it
// was made, and what it did about it.
type Recovery struct {
	// Requeued are the queued messages re-queued, by queue.
	Requeued map[string]int
	// Rerun are the IDs of the idempotent tool calls run again, and
	// NotRun those of calls that never started and were answered with
	// session.NotRunText; Answered the calls session.Open answered as
	// interrupted (session.Repairs).
	Rerun, NotRun []string
}

// recoverState is the harness's part of crash recovery. Under h.mu.
type recoverState struct {
	qids    map[*llm.Content]string // queued message -> its queued entry
	totals  Totals
	report  Recovery
	pending bool // open calls wait for the next prompt
}

// entryLister is implemented by stores that list their entries
// (*session.Session and MemoryStore do).
type entryLister interface {
	Entries() []session.Entry
}

// restoreFromLog re-derives, from the store's log, what a process that
// died would otherwise forget: the totals, the queued messages not yet
// delivered (re-queued in their order), the guard's view of the calls on
// the current path, and whether tool calls wait to be run again (done at
// the start of the next prompt, which has a context and a tool chain).
// Called by New, before the harness is shared.
func (h *Harness) restoreFromLog() {
	h.rec.qids = map[*llm.Content]string{}
	st := h.st()
	if l, ok := st.(entryLister); ok {
		h.rec.totals = totalsOf(l.Entries())
	}
	f, ok := st.(inFlighter)
	if !ok {
		return
	}
	fl := f.InFlight()
	for _, q := range fl.Queued {
		m := q.Message.Clone()
		if len(m.Content) == 0 {
			continue
		}
		switch q.Queue {
		case session.QueueSteer:
			h.steer = append(h.steer, m)
		case session.QueueFollowUp:
			h.follow = append(h.follow, m)
		case session.QueueNextTurn:
			h.next = append(h.next, m)
		default:
			continue
		}
		h.rec.qids[&m.Content[0]] = q.ID
		if h.rec.report.Requeued == nil {
			h.rec.report.Requeued = map[string]int{}
		}
		h.rec.report.Requeued[q.Queue]++
	}
	h.rec.pending = len(fl.Calls) > 0
	if h.guard != nil {
		replayGuard(h.guard, st.Context().Messages)
	}
}

// switchRecoveryLocked follows SwitchStore: the totals become the new
// log's, its open calls wait for the next prompt, and the messages still
// queued, whose queued entries are in the old log, are journaled again
// in the new one so that they survive a crash there too. h.mu is held.
func (h *Harness) switchRecoveryLocked(s Store) {
	h.rec.totals = Totals{}
	if l, ok := s.(entryLister); ok {
		h.rec.totals = totalsOf(l.Entries())
	}
	if f, ok := s.(inFlighter); ok {
		h.rec.pending = len(f.InFlight().Calls) > 0
	}
	clear(h.rec.qids)
	for _, q := range []struct {
		name string
		msgs []llm.Message
	}{{session.QueueSteer, h.steer}, {session.QueueFollowUp, h.follow}, {session.QueueNextTurn, h.next}} {
		for i := range q.msgs {
			_ = h.journalQueuedLocked(q.name, &q.msgs[i])
		}
	}
}

// totalsOf sums a log.
func totalsOf(es []session.Entry) Totals {
	var t Totals
	for i := range es {
		e := &es[i]
		switch e.Type {
		case session.TypeRequestStarted:
			t.Requests++
		case session.TypeRequestSettled:
			if e.Status == session.StatusDropped {
				t.Dropped++
			}
		case session.TypeMessage:
			t.count(e.Message)
		}
	}
	return t
}

func (t *Totals) count(m *llm.Message) {
	if m.Role != llm.RoleAssistant {
		return
	}
	t.Replies++
	t.ToolCalls += len(m.ToolCalls())
	if m.Usage != nil {
		t.Usage.Add(*m.Usage)
	}
}

// replayGuard tells the guard about the calls of the conversation and
// their results, as if it had watched them, so that its loop and repeat
// detectors continue where they were. Reads replayed this way carry no
// file stamp, so they never answer a later read from the cache.
func replayGuard(g *guard.Guard, msgs []llm.Message) {
	results := map[string]*llm.Message{}
	for i := range msgs {
		if msgs[i].Role == llm.RoleToolResult {
			results[msgs[i].ToolCallID] = &msgs[i]
		}
	}
	turn := 0
	for i := range msgs {
		if msgs[i].Role != llm.RoleAssistant {
			continue
		}
		turn++
		for _, c := range msgs[i].ToolCalls() {
			r := results[c.ID]
			if r == nil {
				continue
			}
			gc := guard.Call{Tool: c.Name, Args: c.Arguments, Turn: turn}
			d := g.Decide(gc)
			if !guarded(r.Notes) {
				d.Action = guard.Allow
			}
			g.Record(gc, d, tool.Result{Content: r.Content, IsError: r.IsError, Notes: r.Notes})
		}
	}
}

// guarded reports whether the guard answered a call instead of running
// it, by the notes it left on the result.
func guarded(notes []string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, "guard:block") || strings.HasPrefix(n, "guard:stop") || strings.HasPrefix(n, "guard:cached") {
			return true
		}
	}
	return false
}

// Totals returns what the session's log says was spent (see Totals).
func (h *Harness) Totals() Totals {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rec.totals
}

// Recovered returns what the harness re-queued and re-ran from the work
// its store had in flight (see Recovery).
func (h *Harness) Recovered() Recovery {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rec.report
	r.Rerun = append([]string(nil), r.Rerun...)
	r.NotRun = append([]string(nil), r.NotRun...)
	return r
}

// journalQueuedLocked writes the queued entry of m, a message about to
// be added to queue. h.mu must be held, so that entries are written in
// queue order.
func (h *Harness) journalQueuedLocked(queue string, m *llm.Message) error {
	e, err := h.st().Append(session.Entry{Type: session.TypeQueued, Queue: queue, Message: m})
	if err != nil {
		return &Error{Code: CodeStore, Op: queue, Err: fmt.Errorf("recording the queued message: %w", err)}
	}
	if len(m.Content) > 0 {
		h.rec.qids[&m.Content[0]] = e.ID
	}
	return nil
}

// takeQueued returns the queued entry m delivers, if it is a queued
// message, and forgets it.
func (h *Harness) takeQueued(m *llm.Message) string {
	if len(m.Content) == 0 {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	k := &m.Content[0]
	id := h.rec.qids[k]
	if id != "" {
		delete(h.rec.qids, k)
	}
	return id
}

// dequeueLocked writes a dequeued entry for each of msgs that was
// queued, as Abort clears them. h.mu must be held. A failure is not
// reported: at worst the message is re-queued after a crash.
func (h *Harness) dequeueLocked(msgs []llm.Message) {
	for i := range msgs {
		if len(msgs[i].Content) == 0 {
			continue
		}
		k := &msgs[i].Content[0]
		if id := h.rec.qids[k]; id != "" {
			delete(h.rec.qids, k)
			_, _ = h.st().Append(session.Entry{Type: session.TypeDequeued, Target: id, Status: session.StatusCleared})
		}
	}
}

// recoverCalls settles the tool calls the store left open at the start
// of a prompt, in the order the model made them: an idempotent tool is
// run again through the turn's tool chain; a call known never to have
// started is answered with session.NotRunText; anything else (a tool
// that is gone) with session.PartialText. The results are persisted and
// returned, to join the conversation before the prompt.
func (r *run) recoverCalls(ctx context.Context) ([]llm.Message, error) {
	h := r.h
	h.mu.Lock()
	pending := h.rec.pending
	h.rec.pending = false
	h.mu.Unlock()
	f, ok := h.st().(inFlighter)
	if !pending || !ok {
		return nil, nil
	}
	calls := f.InFlight().Calls
	if len(calls) == 0 {
		return nil, nil
	}
	reg := r.snap.Tools
	if reg == nil {
		reg, _ = tool.NewRegistry()
	}
	handler := tool.Chain(reg.Execute, r.middleware(r.snap.Model)...)
	var out []llm.Message
	for _, c := range calls {
		call := &tool.Call{ID: c.Call.ID, Name: c.Call.Name, Args: c.Call.Arguments, Turn: 1, Tool: reg.Get(c.Call.Name)}
		var m llm.Message
		switch {
		case call.Tool != nil && call.Tool.Idempotent && (c.Idempotent || !c.Started):
			res := handler(ctx, call)
			m = res.Message(call)
			h.mu.Lock()
			h.rec.report.Rerun = append(h.rec.report.Rerun, c.Call.ID)
			h.mu.Unlock()
		case c.Journaled && !c.Started:
			m = llm.ToolResult(c.Call.ID, c.Call.Name, true, llm.Text(session.NotRunText))
			h.mu.Lock()
			h.rec.report.NotRun = append(h.rec.report.NotRun, c.Call.ID)
			h.mu.Unlock()
		default:
			m = llm.ToolResult(c.Call.ID, c.Call.Name, true, llm.Text(session.PartialText))
		}
		m.Timestamp = h.clock()
		if err := h.persist(m); err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}
