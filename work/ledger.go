package work

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/reinhq/rein/session"
)

// LedgerOptions configure a Ledger.
type LedgerOptions struct {
	// Persist writes the work_items entry holding the whole list after
	// each change, before the change is acknowledged; an error undoes the
	// change. Front-ends pass the harness's AppendEntry. Nil keeps the
	// list in memory only.
	Persist func(session.Entry) error
	// Gate, when set, is asked before an item that lists Verify commands
	// is completed; an error refuses the change and its text goes to the
	// model. Long mode runs the commands here (see RunCommand).
	Gate func(ctx context.Context, it Item) error
}

// Ledger is the work-item list of one session. Every change goes
// through its methods, is checked (an open item is never dropped, a
// cancellation needs a note, each agent has at most one item in
// progress) and is persisted as a whole list. A Ledger is safe for
// concurrent use; changes are serialised.
type Ledger struct {
	opts LedgerOptions

	mu      sync.Mutex
	list    List
	version uint64 // bumped by every change
	shown   uint64 // the version the prompt last showed
	reshow  bool   // show the list at the next prompt whatever the version
	subs    map[int]func(List)
	nextSub int
}

// NewLedger returns a ledger holding list (the session's current list,
// see FromEntries; nil for none). An open list is shown in the next
// prompt (a resumed session).
func NewLedger(list List, o LedgerOptions) *Ledger {
	l := &Ledger{opts: o, list: list.Clone()}
	l.reshow = len(list.Open()) > 0
	return l
}

// List returns a copy of the current list.
func (l *Ledger) List() List {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.list.Clone()
}

// Subscribe calls fn with the new list after every change, outside the
// ledger's lock, on the goroutine that made the change; the returned
// function removes it.
func (l *Ledger) Subscribe(fn func(List)) (unsubscribe func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.subs == nil {
		l.subs = map[int]func(List){}
	}
	id := l.nextSub
	l.nextSub++
	l.subs[id] = fn
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.subs, id)
	}
}

// NewItem is an item to add.
type NewItem struct {
	Title      string   `json:"title" jsonschema:"what is to be done, in the imperative"`
	ActiveForm string   `json:"active_form,omitempty" jsonschema:"the same in the present continuous, shown while it is in progress"`
	Acceptance string   `json:"acceptance,omitempty" jsonschema:"how to tell it is done"`
	Verify     []string `json:"verify,omitempty" jsonschema:"shell commands that must exit 0 before it may be completed"`
}

// Add appends items as pending and returns them with their IDs.
func (l *Ledger) Add(items ...NewItem) (List, error) {
	if len(items) == 0 {
		return nil, errors.New("nothing to add: give a title")
	}
	var added List
	err := l.change(func(list List) (List, error) {
		next := nextID(list)
		for _, n := range items {
			title := strings.TrimSpace(n.Title)
			if title == "" {
				return nil, errors.New("a work item needs a title")
			}
			it := Item{ID: strconv.Itoa(next), Title: title, ActiveForm: strings.TrimSpace(n.ActiveForm), Status: Pending,
				Acceptance: strings.TrimSpace(n.Acceptance), Verify: cleanCommands(n.Verify)}
			next++
			list = append(list, it)
			added = append(added, it)
		}
		return list, nil
	})
	return added, err
}

// Update is a change to one item; empty fields are left as they are.
type Update struct {
	ID         string   `json:"id" jsonschema:"the item's id"`
	Status     Status   `json:"status,omitempty" jsonschema:"pending, in_progress, completed or cancelled (cancelled needs a note)"`
	Title      string   `json:"title,omitempty" jsonschema:"a new title"`
	ActiveForm string   `json:"active_form,omitempty" jsonschema:"a new present-continuous form"`
	Acceptance string   `json:"acceptance,omitempty" jsonschema:"new acceptance criteria"`
	Verify     []string `json:"verify,omitempty" jsonschema:"new verify commands (replace the old ones)"`
	Note       string   `json:"note,omitempty" jsonschema:"a note: what was found, or why it is cancelled"`
}

// Update changes one item on behalf of agent ("" for the main agent)
// and returns it as it now is.
func (l *Ledger) Update(ctx context.Context, agent string, u Update) (Item, error) {
	var out Item
	err := l.change(func(list List) (List, error) {
		i := list.Find(strings.TrimPrefix(strings.TrimSpace(u.ID), "#"))
		if i < 0 {
			return nil, fmt.Errorf("there is no work item %q; the items are:\n%s", u.ID, orNone(list.Render()))
		}
		it := &list[i]
		if t := strings.TrimSpace(u.Title); t != "" {
			it.Title = t
		}
		if a := strings.TrimSpace(u.ActiveForm); a != "" {
			it.ActiveForm = a
		}
		if a := strings.TrimSpace(u.Acceptance); a != "" {
			it.Acceptance = a
		}
		if u.Verify != nil {
			it.Verify = cleanCommands(u.Verify)
		}
		if n := strings.TrimSpace(u.Note); n != "" {
			it.Note = n
		}
		if u.Status != "" {
			if err := setStatus(ctx, l.opts.Gate, list, i, agent, u.Status, u.Note); err != nil {
				return nil, err
			}
		}
		out = *it
		return list, nil
	})
	return out, err
}

// setStatus moves list[i] to s for agent, checking the rules.
func setStatus(ctx context.Context, gate func(context.Context, Item) error, list List, i int, agent string, s Status, note string) error {
	it := &list[i]
	if !s.Valid() {
		return fmt.Errorf("unknown status %q: use pending, in_progress, completed or cancelled", s)
	}
	if s == it.Status {
		return nil
	}
	switch s {
	case Cancelled:
		if strings.TrimSpace(note) == "" {
			return fmt.Errorf("cancelling #%s needs a note saying why", it.ID)
		}
	case InProgress:
		for j := range list {
			if j != i && list[j].Status == InProgress && list[j].Agent == agent {
				return fmt.Errorf("#%s (%s) is already in progress: one item at a time per agent; complete it, or set it back to pending, first", list[j].ID, list[j].Title)
			}
		}
	case Completed:
		if gate != nil && len(it.Verify) > 0 {
			if err := gate(ctx, *it); err != nil {
				return fmt.Errorf("#%s cannot be completed yet: %v", it.ID, err)
			}
		}
	}
	it.Status = s
	if s == InProgress {
		it.Agent = agent
	} else if s == Pending {
		it.Agent = ""
	}
	return nil
}

// change applies fn to a copy of the list, persists the result and
// makes it current; on any error nothing changes.
func (l *Ledger) change(fn func(List) (List, error)) error {
	l.mu.Lock()
	next, err := fn(l.list.Clone())
	if err == nil && l.opts.Persist != nil {
		var e session.Entry
		if e, err = next.Entry(); err == nil {
			err = l.opts.Persist(e)
		}
		if err != nil {
			err = fmt.Errorf("the work items could not be saved, so nothing changed: %w", err)
		}
	}
	if err != nil {
		l.mu.Unlock()
		return err
	}
	l.list = next
	l.version++
	subs := make([]func(List), 0, len(l.subs))
	for _, fn := range l.subs {
		subs = append(subs, fn)
	}
	l.mu.Unlock()
	for _, fn := range subs {
		fn(next.Clone())
	}
	return nil
}

// Reset makes list the current list without persisting it: the log
// already holds it, as the list of the branch the session moved to (see
// session.Session.WorkItems). Subscribers are told and the next prompt
// shows it.
func (l *Ledger) Reset(list List) {
	l.mu.Lock()
	l.list = list.Clone()
	l.version++
	l.reshow = true
	subs := make([]func(List), 0, len(l.subs))
	for _, fn := range l.subs {
		subs = append(subs, fn)
	}
	l.mu.Unlock()
	for _, fn := range subs {
		fn(list.Clone())
	}
}

// Reshow makes the next prompt show the open list again, whether or not
// it changed: after a compaction, and after a session is resumed.
func (l *Ledger) Reshow() {
	l.mu.Lock()
	l.reshow = true
	l.mu.Unlock()
}

// Volatile returns the text for the volatile tier of the system prompt:
// the open list when it changed since the prompt last showed it or
// Reshow was called, else "". Each call that returns text marks it as
// shown. Fast and non-blocking (fits prompt.Options.Volatile).
func (l *Ledger) Volatile() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.reshow && l.shown == l.version {
		return ""
	}
	l.reshow, l.shown = false, l.version
	return VolatileText(l.list)
}

// VolatileText is what the prompt shows of list: its open items, or a
// line saying every item is closed.
func VolatileText(list List) string {
	if len(list) == 0 {
		return ""
	}
	open := list.Open()
	if len(open) == 0 {
		return fmt.Sprintf("Work items: all %d are closed.", len(list))
	}
	return fmt.Sprintf("Open work items (%d of %d; keep them current with the work-item tools):\n%s", len(open), len(list), open.Render())
}

// Pinned is the text carried verbatim into every compaction summary: the
// open items, or "" when there are none.
func (l *Ledger) Pinned() string {
	open := l.List().Open()
	if len(open) == 0 {
		return ""
	}
	return open.Render()
}

func nextID(list List) int {
	n := 0
	for _, it := range list {
		if v, err := strconv.Atoi(it.ID); err == nil && v > n {
			n = v
		}
	}
	return n + 1
}

func cleanCommands(cmds []string) []string {
	var out []string
	for _, c := range cmds {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)\n"
	}
	return s
}
