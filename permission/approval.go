package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/tool"
)

// AnswerKind is a user's answer to a permission request.
type AnswerKind string

// Answers.
const (
	AllowOnce   AnswerKind = "allow_once"
	AllowAlways AnswerKind = "allow_always"
	DenyCall    AnswerKind = "deny"
)

// Scope says where an "allow always" rule is stored.
type Scope string

// Scopes.
const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
)

// Request is a call waiting for approval, as frontends show it.
type Request struct {
	// ID is what Answer takes: the call's id, made unique if needed.
	ID     string          `json:"id"`
	CallID string          `json:"call_id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// Rule is what asked: a rule ("Bash(git push *)"), "mode auto_read",
	// "protected path …" or "destructive: …"; Source is its file.
	Rule   string `json:"rule"`
	Source string `json:"source,omitempty"`
	// Reason explains the question, when there is more to say.
	Reason string `json:"reason,omitempty"`
	// Suggest is what "allow always" would store, for display; empty
	// when no rule fits (then "allow always" allows the call once).
	// SuggestRules are the rules themselves: together they allow the call.
	Suggest      string   `json:"suggest,omitempty"`
	SuggestRules []string `json:"suggest_rules,omitempty"`
	Mode         Mode     `json:"mode"`
}

// Answer answers a Request.
type Answer struct {
	Kind AnswerKind `json:"kind"`
	// Reason is shown to the model when the call is denied.
	Reason string `json:"reason,omitempty"`
	// Scope is where an AllowAlways rule goes; empty means ScopeProject.
	Scope Scope `json:"scope,omitempty"`
	// Rule, when set with AllowAlways, is stored instead of the request's
	// suggestion.
	Rule string `json:"rule,omitempty"`
	// By names who answered ("user" when empty).
	By string `json:"by,omitempty"`
}

// Asker answers permission requests. Ask blocks until an answer, an
// error (ErrTimeout, a cancelled ctx) or ctx's end, and must honour ctx.
type Asker interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

// Errors of the approval protocol.
var (
	ErrTimeout       = errors.New("permission: no answer came in time")
	ErrUnknownCall   = errors.New("permission: no request is waiting with that id")
	ErrAnswered      = errors.New("permission: the request was already decided")
	ErrInvalidAnswer = errors.New("permission: invalid answer")
)

// DefaultTimeout is how long a Broker waits for an answer.
const DefaultTimeout = 5 * time.Minute

// Broker is the approval protocol between a running call and a frontend:
// Ask publishes a Request through Notify and waits; Answer (from any
// goroutine) resumes it. A request that gets no answer within Timeout is
// denied; cancelling the call's context denies it too. Safe for
// concurrent use.
type Broker struct {
	// Timeout bounds the wait; zero means DefaultTimeout, negative means
	// no limit (the context still ends it).
	Timeout time.Duration
	// Notify is called, without locks held, when a request starts
	// waiting. It must not block until the answer; answers come through
	// Answer.
	Notify func(ctx context.Context, req Request)

	mu      sync.Mutex
	seq     int
	pending map[string]*waiting
	done    map[string]bool // decided ids, bounded
	order   []string
}

type waiting struct {
	req Request
	ch  chan Answer
}

const maxDone = 4096

// Ask implements Asker.
func (b *Broker) Ask(ctx context.Context, req Request) (Answer, error) {
	w := &waiting{ch: make(chan Answer, 1)}
	b.mu.Lock()
	if b.pending == nil {
		b.pending, b.done = map[string]*waiting{}, map[string]bool{}
	}
	id := req.CallID
	if id == "" {
		id = "request"
	}
	for base := id; b.pending[id] != nil || b.done[id]; {
		b.seq++
		id = base + "#" + strconv.Itoa(b.seq)
	}
	req.ID = id
	w.req = req
	b.pending[id] = w
	b.mu.Unlock()
	if b.Notify != nil {
		b.Notify(ctx, req)
	}
	var timeout <-chan time.Time
	if t := b.timeout(); t > 0 {
		tm := time.NewTimer(t)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case a := <-w.ch:
		return a, nil
	case <-ctx.Done():
		if b.finish(id) {
			return Answer{}, ctx.Err()
		}
	case <-timeout:
		if b.finish(id) {
			return Answer{}, ErrTimeout
		}
	}
	return <-w.ch, nil // an answer won the race
}

func (b *Broker) timeout() time.Duration {
	if b.Timeout == 0 {
		return DefaultTimeout
	}
	return b.Timeout
}

// finish removes a pending request; it reports false when an answer
// already took it.
func (b *Broker) finish(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending[id] == nil {
		return false
	}
	delete(b.pending, id)
	b.markLocked(id)
	return true
}

func (b *Broker) markLocked(id string) {
	b.done[id] = true
	b.order = append(b.order, id)
	if len(b.order) > maxDone {
		delete(b.done, b.order[0])
		b.order = b.order[1:]
	}
}

// Answer resumes the request id. It fails with ErrInvalidAnswer for an
// unknown kind or scope, ErrAnswered when the request was already
// answered, timed out or cancelled, and ErrUnknownCall when no request
// has that id.
func (b *Broker) Answer(id string, a Answer) error {
	switch a.Kind {
	case AllowOnce, AllowAlways, DenyCall:
	default:
		return fmt.Errorf("%w: kind %q; use allow_once, allow_always or deny", ErrInvalidAnswer, a.Kind)
	}
	switch a.Scope {
	case "", ScopeProject, ScopeUser:
	default:
		return fmt.Errorf("%w: scope %q; use project or user", ErrInvalidAnswer, a.Scope)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.pending[id]
	if w == nil {
		if b.done[id] {
			return fmt.Errorf("%w: %s", ErrAnswered, id)
		}
		return fmt.Errorf("%w: %q", ErrUnknownCall, id)
	}
	delete(b.pending, id)
	b.markLocked(id)
	w.ch <- a
	return nil
}

// Pending returns the requests waiting for an answer.
func (b *Broker) Pending() []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Request, 0, len(b.pending))
	for _, w := range b.pending {
		out = append(out, w.req)
	}
	return out
}

// Middleware returns the gate as tool middleware. A denied call never
// reaches next; the model reads why. Put it first in the chain.
func (g *Gate) Middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			if call.Tool == nil {
				return next(ctx, call) // the registry reports unknown tools
			}
			v := g.Decide(ctx, call)
			if v.Args != nil {
				c := *call
				c.Args = v.Args
				call = &c
			}
			d := Decision{CallID: call.ID, Tool: call.Name, Effect: v.Effect, Rule: v.Rule, Source: v.Source, Mode: g.Mode(), By: v.By, Reason: v.Reason}
			if v.Effect == Ask {
				d = g.ask(ctx, call, v, d)
			}
			d.Time = g.o.Clock()
			if g.o.OnDecision != nil {
				g.o.OnDecision(d)
			}
			if d.Effect != Allow {
				r := tool.Errorf("%s", denyText(call, d))
				r.Notes = []string{NoteDenied}
				if d.By == "blocker" {
					r.Notes = append(r.Notes, NoteBlocked)
				}
				r.Stop = v.Stop
				return r
			}
			if h := g.hider(call.Name); h != nil {
				ctx = tool.WithHidden(ctx, h)
			}
			res := next(ctx, call)
			if d.Asked {
				res.Notes = append(res.Notes, NoteAsked)
			}
			if v.Context != "" {
				res.Content = append(res.Content, tool.Text("\n"+v.Context).Content...)
			}
			return res
		}
	}
}

func denyText(call *tool.Call, d Decision) string {
	if d.Reason != "" {
		return d.Reason
	}
	return fmt.Sprintf("Permission to run %s was denied.", call.Name)
}

// ask puts a call to the Asker and turns the answer into a decision.
func (g *Gate) ask(ctx context.Context, call *tool.Call, v Verdict, d Decision) Decision {
	d.Asked = true
	if g.o.Asker == nil {
		d.Effect, d.By = Deny, "no_asker"
		why := v.Reason
		if why == "" {
			why = fmt.Sprintf("This %s call needs the user's approval (%s)", call.Name, v.Rule)
		}
		d.Reason = strings.TrimSuffix(why, ".") + ", and no one can approve it in this non-interactive run. Do not retry it; do what you can without it, or say what you need."
		return d
	}
	req := Request{CallID: call.ID, Tool: call.Name, Args: call.Args, Rule: v.Rule, Source: v.Source, Reason: v.Reason, Suggest: v.Suggest, SuggestRules: v.SuggestRules, Mode: d.Mode}
	a, err := g.o.Asker.Ask(ctx, req)
	switch {
	case errors.Is(err, ErrTimeout):
		d.Effect, d.By, d.Reason = Deny, "timeout", "No one answered the request to run this call in time, so it was not run."
		return d
	case err != nil:
		d.Effect, d.By, d.Reason = Deny, "cancelled", "The run was cancelled while this call waited for approval; it was not run."
		return d
	}
	d.Answer = a.Kind
	d.By = orText(a.By, "user")
	switch a.Kind {
	case AllowOnce:
		d.Effect, d.Reason = Allow, ""
	case AllowAlways:
		d.Effect, d.Reason = Allow, ""
		rules := v.SuggestRules
		if a.Rule != "" {
			rules = []string{a.Rule}
		} else if len(rules) == 0 && v.Suggest != "" {
			rules = []string{v.Suggest}
		}
		d.Remembered = strings.Join(rules, ", ")
		for _, rule := range rules {
			if err := g.remember(rule, a.Scope); err != nil {
				d.Reason = "allowed, but the rule " + rule + " was not stored: " + err.Error()
				break
			}
		}
	default:
		d.Effect = Deny
		d.Reason = "The user denied this call."
		if a.Reason != "" {
			d.Reason += " Their reason: " + a.Reason
		}
	}
	return d
}

// remember keeps rule for the gate's life and stores it through
// Options.Remember.
func (g *Gate) remember(rule string, scope Scope) error {
	if scope == "" {
		scope = ScopeProject
	}
	r, err := ParseRule(rule, Allow, "session", PathBase{Root: g.o.Workdir, Cwd: g.o.Workdir, Home: g.o.Home})
	if err != nil {
		return err
	}
	g.AddRule(r)
	if g.o.Remember != nil {
		return g.o.Remember(rule, scope)
	}
	return nil
}
