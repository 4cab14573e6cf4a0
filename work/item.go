package work

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinhq/rein/session"
)

// Status is the state of a work item.
type Status string

// Statuses. Pending and InProgress items are open; Completed and
// Cancelled items are closed. Claude Code's TodoWrite knows the first
// three.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Cancelled  Status = "cancelled"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case Pending, InProgress, Completed, Cancelled:
		return true
	}
	return false
}

// Open reports whether an item of status s still needs work.
func (s Status) Open() bool { return s == Pending || s == InProgress }

// Item is one work item. Its JSON form is what a work_items entry of the
// session log holds (see docs/session-format.md).
type Item struct {
	// ID is the item's number as text ("1", "2"…), given by the Ledger
	// and never reused in a session.
	ID string `json:"id"`
	// Title says what is to be done, in the imperative ("Add the parser").
	Title string `json:"title"`
	// ActiveForm is the same in the present continuous ("Adding the
	// parser"), as TodoWrite asks; optional.
	ActiveForm string `json:"active_form,omitempty"`
	Status     Status `json:"status"`
	// Acceptance says how to tell the item is done; optional.
	Acceptance string `json:"acceptance,omitempty"`
	// Verify lists shell commands that must exit 0 before the item may be
	// completed, when the Ledger has a Gate (long mode sets one).
	Verify []string `json:"verify,omitempty"`
	// Note is the latest note on the item: why it was cancelled, what was
	// found. Cancelling needs one.
	Note string `json:"note,omitempty"`
	// Agent names the agent that set the item in progress ("" for the
	// main agent); each agent has at most one item in progress.
	Agent string `json:"agent,omitempty"`
}

// List is the whole list of work items, in the order they were added.
type List []Item

// Open returns the open items (pending or in progress), in order.
func (l List) Open() List {
	var out List
	for _, it := range l {
		if it.Status.Open() {
			out = append(out, it)
		}
	}
	return out
}

// Find returns the index of the item with id, or -1.
func (l List) Find(id string) int {
	for i := range l {
		if l[i].ID == id {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of l.
func (l List) Clone() List {
	if l == nil {
		return nil
	}
	out := make(List, len(l))
	for i, it := range l {
		it.Verify = append([]string(nil), it.Verify...)
		out[i] = it
	}
	return out
}

// Counts returns how many items have each status.
func (l List) Counts() map[Status]int {
	c := map[Status]int{}
	for _, it := range l {
		c[it.Status]++
	}
	return c
}

// Render is the text of the list the model and people read: one line
// per item, "[status] #id title", with the note when there is one. The
// same list always gives the same bytes.
func (l List) Render() string {
	var b strings.Builder
	for _, it := range l {
		fmt.Fprintf(&b, "- [%s] #%s %s", it.Status, it.ID, it.Title)
		if it.Agent != "" {
			fmt.Fprintf(&b, " (agent %s)", it.Agent)
		}
		if it.Acceptance != "" {
			fmt.Fprintf(&b, "\n  acceptance: %s", it.Acceptance)
		}
		for _, v := range it.Verify {
			fmt.Fprintf(&b, "\n  verify: %s", v)
		}
		if it.Note != "" {
			fmt.Fprintf(&b, "\n  note: %s", it.Note)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Entry returns the work_items side entry holding l.
func (l List) Entry() (session.Entry, error) {
	if l == nil {
		l = List{}
	}
	b, err := json.Marshal(l)
	if err != nil {
		return session.Entry{}, err
	}
	return session.Entry{Type: session.TypeWorkItems, Items: b}, nil
}

// Decode reads the payload of a work_items entry.
func Decode(items json.RawMessage) (List, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var l List
	if err := json.Unmarshal(items, &l); err != nil {
		return nil, fmt.Errorf("work items: %w", err)
	}
	return l, nil
}

// FromEntries returns the list of the last work_items entry among
// entries (nil when there is none): the session's current list.
func FromEntries(entries []session.Entry) (List, error) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == session.TypeWorkItems {
			return Decode(entries[i].Items)
		}
	}
	return nil, nil
}
