package subagent

import (
	"encoding/json"
	"time"

	"github.com/reinhq/rein/session"
)

// EntryKind is the Kind of the custom entries a parent's log records its
// children with (see docs/agents.md). Each child has one "spawned" entry
// and, once it has ended, exactly one terminal entry: completed, failed,
// cancelled or orphaned.
const EntryKind = "subagent"

// State is where a child is in its life.
type State string

// The states of a child. Queued and Running are live; the others are
// terminal and each is written to the parent's log once.
const (
	Queued    State = "queued"
	Running   State = "running"
	Completed State = "completed"
	Failed    State = "failed"
	Cancelled State = "cancelled"
	// Orphaned: the process that ran the child ended (a crash, a kill)
	// before the child did; found when the parent's log is opened again.
	Orphaned State = "orphaned"
)

// Terminal reports whether s ends a child's life.
func (s State) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled || s == Orphaned
}

// Usage is what a child spent: its own model requests and those of its
// children.
type Usage struct {
	Input  int     `json:"input"`
	Output int     `json:"output"`
	Cost   float64 `json:"cost,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.Cost += o.Cost
}

// Record is one child as the registry knows it.
type Record struct {
	// ID is the child's id, which is also its session's id.
	ID string `json:"id"`
	// Agent is the definition's name (the subagent_type).
	Agent       string `json:"agent"`
	Description string `json:"description,omitempty"`
	// CallID is the parent's tool call that spawned the child.
	CallID string `json:"call_id,omitempty"`
	// Path is the child's session file ("" until it is opened).
	Path       string `json:"path,omitempty"`
	Background bool   `json:"background,omitempty"`
	Depth      int    `json:"depth"`

	State   State     `json:"state"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	Turns   int       `json:"turns,omitempty"`
	Usage   Usage     `json:"usage,omitzero"`
	// Stop is the stop reason of a child that ended without completing
	// ("budget_exhausted", "max_turns" …), when it ran.
	Stop string `json:"stop,omitempty"`
	// Error says why a child failed, was cancelled or orphaned.
	Error string `json:"error,omitempty"`
}

// Duration is how long the child ran (zero while it runs).
func (r *Record) Duration() time.Duration {
	if r.Ended.IsZero() {
		return 0
	}
	return r.Ended.Sub(r.Started)
}

// entryData is the payload of a subagent entry.
type entryData struct {
	Event State `json:"event"`
	Record
}

// Entry returns the custom entry recording r's current state: "spawned"
// for a live child, else its terminal state.
func (r Record) Entry() session.Entry {
	ev := r.State
	if !ev.Terminal() {
		ev = "spawned"
	}
	d := entryData{Event: ev, Record: r}
	d.Record.State = ""
	data, _ := json.Marshal(d)
	return session.Entry{Type: session.TypeCustom, Kind: EntryKind, Data: data}
}

// ReadEntries rebuilds the registry of a parent from its log: every
// child with a spawned entry, in spawning order, in the state of its
// last entry (Running when it has no terminal entry). Entries of other
// kinds and malformed ones are skipped.
func ReadEntries(entries []session.Entry) []Record {
	var out []Record
	at := map[string]int{}
	for _, e := range entries {
		if e.Type != session.TypeCustom || e.Kind != EntryKind {
			continue
		}
		var d entryData
		if json.Unmarshal(e.Data, &d) != nil || d.ID == "" {
			continue
		}
		r := d.Record
		if d.Event == "spawned" {
			if _, dup := at[r.ID]; dup {
				continue
			}
			r.State = Running
			at[r.ID] = len(out)
			out = append(out, r)
			continue
		}
		i, ok := at[r.ID]
		if !ok || !d.Event.Terminal() || out[i].State.Terminal() {
			continue
		}
		r.State = d.Event
		if r.Started.IsZero() {
			r.Started = out[i].Started
		}
		out[i] = r
	}
	return out
}

// RecordImported writes to parent's log the spawned and completed
// entries of a child imported from another harness's recording (its
// session child, already linked to parent), so that the registry rebuilt
// when parent is opened sees a child that ended rather than one a crash
// left running. callID is the parent's call that started it.
func RecordImported(parent, child *session.Session, agent, description, callID string, depth int) error {
	var started, ended time.Time // the first and last times the recording gives
	for _, e := range child.Entries() {
		if e.Timestamp.IsZero() {
			continue
		}
		if started.IsZero() || e.Timestamp.Before(started) {
			started = e.Timestamp
		}
		if e.Timestamp.After(ended) {
			ended = e.Timestamp
		}
	}
	if started.IsZero() {
		started, ended = child.Header().Created, child.Header().Created
	}
	r := Record{ID: child.ID(), Agent: agent, Description: description, CallID: callID, Path: child.Path(), Depth: depth, State: Running, Started: started}
	if _, err := parent.Append(r.Entry()); err != nil {
		return err
	}
	r.State, r.Ended = Completed, ended
	_, err := parent.Append(r.Entry())
	return err
}
