package long

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Status is where a task stands.
type Status string

// Task statuses. Only the harness sets StatusDone, after the task's verify
// commands pass; StatusCancelled needs a note saying why.
const (
	StatusTodo       Status = "todo"
	StatusInProgress Status = "in_progress"
	StatusDone       Status = "done"
	StatusCancelled  Status = "cancelled"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusTodo, StatusInProgress, StatusDone, StatusCancelled:
		return true
	}
	return false
}

// Open reports whether a task with this status still has work to do.
func (s Status) Open() bool { return s == StatusTodo || s == StatusInProgress }

// Verify is one command that proves a task done when it exits 0. In the
// file it is a string (the command, run with bash -c in the workspace) or
// an object {"command": "...", "timeout": "2m"}.
type Verify struct {
	Command string
	// Timeout bounds the command; zero means the layout's default.
	Timeout time.Duration
}

type verifyObject struct {
	Command string `json:"command"`
	Timeout string `json:"timeout,omitempty"`
}

// MarshalJSON writes a verify command as a plain string unless it has a
// timeout of its own.
func (v Verify) MarshalJSON() ([]byte, error) {
	if v.Timeout == 0 {
		return json.Marshal(v.Command)
	}
	return json.Marshal(verifyObject{Command: v.Command, Timeout: v.Timeout.String()})
}

// UnmarshalJSON reads either form.
func (v *Verify) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.Timeout = 0
		return json.Unmarshal(b, &v.Command)
	}
	if len(b) == 0 || b[0] != '{' {
		return fmt.Errorf("a verify command is a string, or an object {\"command\": \"…\", \"timeout\": \"2m\"}")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var o verifyObject
	if err := dec.Decode(&o); err != nil {
		return fmt.Errorf("verify command: %v (fields: command, timeout)", err)
	}
	v.Command = o.Command
	v.Timeout = 0
	if o.Timeout != "" {
		d, err := time.ParseDuration(o.Timeout)
		if err != nil || d <= 0 {
			return fmt.Errorf("verify timeout %q is not a positive duration such as 30s or 5m", o.Timeout)
		}
		v.Timeout = d
	}
	return nil
}

// CommandEvidence is the outcome of one verify command as the harness ran
// it.
type CommandEvidence struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// Output is the tail of what the command printed.
	Output string `json:"output,omitempty"`
}

// Passed reports whether the command proved its part.
func (c CommandEvidence) Passed() bool { return c.ExitCode == 0 && !c.TimedOut }

// Evidence is what the harness recorded when it marked a task done: every
// verify command passed on the tree of Commit.
type Evidence struct {
	At       time.Time         `json:"at"`
	Session  string            `json:"session,omitempty"`
	Commit   string            `json:"commit"`
	Tree     string            `json:"tree"`
	Commands []CommandEvidence `json:"commands"`
}

// Task is one unit of work in the plan.
type Task struct {
	ID          string
	Title       string
	Description string
	Acceptance  []string
	Verify      []Verify
	Status      Status
	// Note says why a task was cancelled, or what a worker left for the
	// next one.
	Note string
	// Failures counts the sessions that worked on the task and ended
	// without it passing verification; a run stops when it reaches the
	// layout's MaxFailures.
	Failures int
	// Evidence is set by the harness when the task is done.
	Evidence *Evidence

	// Category and extra carry the fields of the anthropic preset that
	// rein does not use, so that a rewrite keeps them.
	Category string
	extra    json.RawMessage
	// implicitID: the id is the task's position, not a field of the file.
	implicitID bool
	// line is where the task starts in the file it was read from.
	line int
}

// Line is the 1-based line where the task starts in the file it was read
// from, or 0.
func (t *Task) Line() int { return t.line }

// Plan is the task list of the progress file, in file order.
type Plan struct {
	Tasks []Task
}

// Counts tallies the tasks by status.
type Counts struct {
	Total, Todo, InProgress, Done, Cancelled int
}

// Open is the number of tasks with work left.
func (c Counts) Open() int { return c.Todo + c.InProgress }

func (c Counts) String() string {
	s := fmt.Sprintf("%d/%d done", c.Done, c.Total-c.Cancelled)
	if c.InProgress > 0 {
		s += fmt.Sprintf(", %d in progress", c.InProgress)
	}
	if c.Cancelled > 0 {
		s += fmt.Sprintf(", %d cancelled", c.Cancelled)
	}
	return s
}

// Counts tallies p's tasks.
func (p *Plan) Counts() Counts {
	c := Counts{Total: len(p.Tasks)}
	for _, t := range p.Tasks {
		switch t.Status {
		case StatusTodo:
			c.Todo++
		case StatusInProgress:
			c.InProgress++
		case StatusDone:
			c.Done++
		case StatusCancelled:
			c.Cancelled++
		}
	}
	return c
}

// Next is the task a worker session takes: the one in progress, else the
// first to do; nil when no task is open.
func (p *Plan) Next() *Task {
	for i := range p.Tasks {
		if p.Tasks[i].Status == StatusInProgress {
			return &p.Tasks[i]
		}
	}
	for i := range p.Tasks {
		if p.Tasks[i].Status == StatusTodo {
			return &p.Tasks[i]
		}
	}
	return nil
}

// Find returns the task with id, or nil.
func (p *Plan) Find(id string) *Task {
	for i := range p.Tasks {
		if p.Tasks[i].ID == id {
			return &p.Tasks[i]
		}
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *Plan) Clone() *Plan {
	q := &Plan{Tasks: make([]Task, len(p.Tasks))}
	for i, t := range p.Tasks {
		t.Acceptance = append([]string(nil), t.Acceptance...)
		t.Verify = append([]Verify(nil), t.Verify...)
		if t.Evidence != nil {
			e := *t.Evidence
			e.Commands = append([]CommandEvidence(nil), e.Commands...)
			t.Evidence = &e
		}
		q.Tasks[i] = t
	}
	return q
}
