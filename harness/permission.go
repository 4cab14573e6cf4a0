package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/tool"
)

// EventPermissionRequest: a tool call waits for approval; Permission is
// the request. Answer it with AnswerPermission. Unlike the loop's events
// it is sent from the goroutine of the waiting call, so it may arrive
// while other events of a parallel batch are delivered; listeners must
// not wait for the answer inside the listener.
const EventPermissionRequest agent.EventType = "permission_request"

// PermissionEntryKind is the Kind of the custom entries that record
// permission decisions in the session log; Data is a permission.Decision.
const PermissionEntryKind = "permission"

// ErrNoApprovals is returned by AnswerPermission when the harness has no
// approval broker (Options.Approvals).
var ErrNoApprovals = errors.New("harness: permission requests are not answered through this harness (Options.Approvals is nil)")

// newGate builds the permission gate of New: Approvals become the asker
// and emit events, and every decision is logged.
func (h *Harness) newGate(o Options) {
	if o.Permissions == nil {
		return
	}
	po := *o.Permissions
	if b := o.Approvals; b != nil {
		h.approvals = b
		if b.Notify == nil {
			b.Notify = func(ctx context.Context, req permission.Request) {
				r := req
				_ = h.notify(ctx, Event{Event: agent.Event{Type: EventPermissionRequest}, Permission: &r})
			}
		}
		po.Asker = b
	}
	prev := po.OnDecision
	po.OnDecision = func(d permission.Decision) {
		if prev != nil {
			prev(d)
		}
		data, err := json.Marshal(d)
		if err == nil {
			h.logDecision(session.Entry{Type: session.TypeCustom, Kind: PermissionEntryKind, Data: data})
		}
	}
	h.gate = permission.New(po)
}

// gateMiddleware is the gate as the outermost tool middleware, or nil.
func (h *Harness) gateMiddleware() []tool.Middleware {
	if h.gate == nil {
		return nil
	}
	return []tool.Middleware{h.gate.Middleware()}
}

// Permission returns the permission gate (nil without
// Options.Permissions). Its mode and rules may be changed at any time.
func (h *Harness) Permission() *permission.Gate { return h.gate }

// AnswerPermission answers the permission request id (see
// permission.Broker.Answer for the errors). Safe to call from any
// goroutine, listeners included.
func (h *Harness) AnswerPermission(id string, a permission.Answer) error {
	if h.approvals == nil {
		return ErrNoApprovals
	}
	return h.approvals.Answer(id, a)
}

// PendingPermissions returns the requests waiting for an answer.
func (h *Harness) PendingPermissions() []permission.Request {
	if h.approvals == nil {
		return nil
	}
	return h.approvals.Pending()
}

// logDecision writes a permission decision to the log in causal order:
// while idle at once; during a run it waits (decisions come from tool
// goroutines) until the run writes the next tool result, and is written
// just before it, so that every decision follows the message holding its
// call and precedes the call's result.
func (h *Harness) logDecision(e session.Entry) {
	h.mu.Lock()
	if h.phase != PhaseIdle {
		h.decisions = append(h.decisions, e)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	_ = h.AppendEntry(e)
}

// writeDecisions writes the decisions waiting for their results (see
// logDecision); called by the run before it writes a tool result.
func (h *Harness) writeDecisions() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.writeDecisionsLocked()
}

// writeDecisionsLocked writes the waiting decisions; h.mu is held. A
// decision the store refuses stays queued for the next try.
func (h *Harness) writeDecisionsLocked() error {
	for len(h.decisions) > 0 {
		if _, err := h.append(h.decisions[0], true); err != nil {
			return &Error{Code: CodeStore, Op: "permission", Err: fmt.Errorf("writing a permission decision: %w", err)}
		}
		h.decisions = h.decisions[1:]
	}
	h.decisions = nil
	return nil
}
