package server

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
)

// session is one open agent with its event hub and its prompt queue.
type session struct {
	s       *Server
	id      string
	agent   *coding.Agent
	hub     *hub
	enc     *coding.EventEncoder
	unsub   func()
	created time.Time

	mu      sync.Mutex
	queue   []*run // waiting, in order
	current *run
	runs    []*run // the latest maxRuns, oldest first
	working bool   // a worker goroutine drains the queue
	closed  bool
	done    chan struct{} // closed when the worker returns; nil when none ran
}

// maxRuns is how many finished runs a session remembers.
const maxRuns = 100

func newSession(s *Server, a *coding.Agent) *session {
	ss := &session{s: s, agent: a, hub: newHub(s.o.RingSize), enc: coding.NewEventEncoder(s.o.Redactor), created: s.o.Now()}
	if sl := a.Session(); sl != nil {
		ss.id = sl.ID()
		// Durable replay: the conversation the log holds comes first, as
		// the message_end events that reported it.
		for _, m := range sl.Context().Messages {
			ss.publish(harness.Event{Event: agent.Event{Type: agent.EventMessageEnd, Message: &m}})
		}
	} else {
		ss.id = s.o.NewID()
	}
	ss.unsub = a.Subscribe(ss.onEvent)
	return ss
}

// onEvent encodes an agent event into the hub; approval requests are
// also registered so that clients can answer them. It never blocks.
func (ss *session) onEvent(_ context.Context, ev coding.Event) error {
	if ev.Approval != nil {
		ss.s.perms.add(ss, ev.Approval)
	}
	ss.publish(ev.Event)
	return nil
}

func (ss *session) publish(ev harness.Event) {
	outs, err := ss.enc.Encode(ev)
	if err != nil {
		ss.s.o.Logger.Warn("event not encoded", "session", ss.id, "type", ev.Type, "err", err)
	}
	for _, o := range outs {
		ss.hub.publish(o.Type, o.JSON)
	}
}

// publishRun reports a run's state change as a "run" event: the server's
// own event type beside the agent's. ss.mu is held, so that a run's
// events are in the order of its changes.
func (ss *session) publishRun(r runInfo) {
	b, _ := json.Marshal(struct {
		Type string  `json:"type"`
		Run  runInfo `json:"run"`
	}{"run", r})
	ss.hub.publish("run", b)
}

// busy reports whether a run runs or waits.
func (ss *session) busy() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.current != nil || len(ss.queue) > 0
}

// close cancels the queued runs, aborts the running one, closes the agent
// (which waits for it) and ends the event streams.
func (ss *session) close() error {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return nil
	}
	ss.closed = true
	queued := ss.queue
	ss.queue = nil
	for _, r := range queued {
		r.finish(ss.s.o.Now(), "cancelled", harness.Result{}, errors.New("the session was closed"))
		ss.remember(r)
		ss.publishRun(r.info())
	}
	done := ss.done
	ss.mu.Unlock()
	ss.agent.Abort()
	if done != nil {
		<-done
	}
	ss.s.perms.dropSession(ss)
	err := ss.agent.Close()
	ss.unsub()
	ss.hub.close()
	return err
}

// remember adds a finished run to the bounded history. ss.mu is held.
func (ss *session) remember(r *run) {
	if len(ss.runs) == maxRuns {
		ss.runs = append(ss.runs[:0], ss.runs[1:]...)
	}
	ss.runs = append(ss.runs, r)
}

// messages is the conversation of the session's current branch.
func (ss *session) messages() []llm.Message {
	if sl := ss.agent.Session(); sl != nil {
		return sl.Context().Messages
	}
	return nil
}

// SessionInfo describes an open session.
type SessionInfo struct {
	ID      string    `json:"id"`
	Path    string    `json:"path,omitempty"`
	Name    string    `json:"name,omitempty"`
	Model   string    `json:"model"`
	Mode    string    `json:"permission_mode,omitempty"`
	Created time.Time `json:"created"`
	Busy    bool      `json:"busy"`
	Queued  int       `json:"queued"`
	// LastEventID is the sequence id of the session's latest event.
	LastEventID uint64 `json:"last_event_id"`
}

func (ss *session) info() SessionInfo {
	ss.mu.Lock()
	in := SessionInfo{ID: ss.id, Created: ss.created, Busy: ss.current != nil, Queued: len(ss.queue)}
	ss.mu.Unlock()
	if sl := ss.agent.Session(); sl != nil {
		in.Path, in.Name = sl.Path(), sl.Name()
	}
	in.Model = coding.ModelName(ss.agent.Harness().Model())
	in.Mode = string(ss.agent.PermissionMode())
	in.LastEventID = ss.hub.last()
	return in
}
