package harness

import (
	"context"
	"iter"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// The journal: entries written before a provider request or a tool call
// starts and after it settles, and for every queued message, so that a
// session reopened after the process died knows what was in flight (see
// session.InFlight and recover.go).
//
// Fsync policy, per step of a turn:
//
//   - request_started and request_settled are written unsynced: the
//     assistant message persisted right after the request is synced and
//     covers them (an fsync makes every earlier line of the file
//     durable). If a power loss takes a request_started entry, recovery
//     merely does not know that a request was dropped.
//   - tool_started of a tool that is not idempotent is synced before the
//     tool runs: it is the fact that forbids running the call again. Of
//     an idempotent tool it is unsynced, since losing it only makes
//     recovery run the call again, which is harmless.
//   - tool_settled is unsynced: the result message follows and is synced.
//   - queued entries are synced, as user input is.
//
// So a turn with n calls of tools that are not idempotent costs n extra
// fsyncs and a few unsynced writes over a log without a journal; against
// the process dying (kill -9) every entry is safe as soon as it is
// written. Stores without AppendUnsynced (MemoryStore) use Append.

// unsyncedAppender is implemented by stores that can write an entry
// without an fsync (*session.Session does).
type unsyncedAppender interface {
	AppendUnsynced(e session.Entry) (session.Entry, error)
}

// inFlighter is implemented by stores that reduce their log to the work
// in flight (*session.Session does).
type inFlighter interface {
	InFlight() session.InFlight
}

// appendJournal writes a journal entry, synced when sync is set.
func (h *Harness) appendJournal(e session.Entry, sync bool) (session.Entry, error) {
	st := h.st()
	if u, ok := st.(unsyncedAppender); ok && !sync {
		return u.AppendUnsynced(e)
	}
	return st.Append(e)
}

// journalTools is the innermost tool middleware: it writes tool_started
// just before the tool runs and tool_settled when it returns. A call
// whose start cannot be written does not run; the model gets an error
// result saying why. Calls to unknown tools run nothing and are not
// journaled.
func (h *Harness) journalTools() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c *tool.Call) tool.Result {
			if c.Tool == nil {
				return next(ctx, c)
			}
			idem := c.Tool.Idempotent
			start := session.Entry{Type: session.TypeToolStarted, CallID: c.ID, ToolName: c.Name, Idempotent: idem, Turn: c.Turn}
			if _, err := h.appendJournal(start, !idem); err != nil {
				return tool.Errorf("not run: the session log could not record the start of this call (%v); nothing was done", err)
			}
			res := next(ctx, c)
			status := session.StatusOK
			if res.IsError {
				status = session.StatusError
			}
			// A failure here shows again when the result is persisted.
			_, _ = h.appendJournal(session.Entry{Type: session.TypeToolSettled, CallID: c.ID, ToolName: c.Name, Status: status}, false)
			return res
		}
	}
}

// journalProvider wraps the turn's provider so that each request is
// journaled: request_started before it is sent, request_settled once its
// stream ended (however it ended, a break included). A request whose
// start cannot be written is not sent.
func (r *run) journalProvider(p llm.Provider) llm.Provider {
	h := r.h
	return llm.ProviderFunc(func(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
		return func(yield func(llm.Event, error) bool) {
			started, err := h.appendJournal(session.Entry{Type: session.TypeRequestStarted, Turn: r.snap.Turn}, false)
			if err != nil {
				yield(llm.Event{}, &Error{Code: CodeStore, Op: "journal", Err: err})
				return
			}
			h.mu.Lock()
			h.rec.totals.Requests++
			h.mu.Unlock()
			status := session.StatusOK
			defer func() {
				_, _ = h.appendJournal(session.Entry{Type: session.TypeRequestSettled, Target: started.ID, Status: status}, false)
			}()
			for ev, err := range p.Stream(ctx, req) {
				if err != nil || ev.Type == llm.EventError {
					status = session.StatusError
				}
				if !yield(ev, err) {
					return
				}
			}
		}
	})
}
