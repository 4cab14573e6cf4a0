// Package tool defines what a tool is to rein: a name, a description, a
// JSON Schema for its arguments, an execution mode and a run function.
// It also holds the typed helper that builds a tool from a Go function,
// the registry and named toolsets, and the middleware chain every tool
// call passes through (output limits and timeouts ship here; guards,
// permissions and hooks plug into the same chain).
//
// A tool failure is a Result the model sees (IsError), never a Go error
// that aborts the run.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/reinhq/rein/llm"
)

// Mode says whether a tool may run at the same time as the other calls of
// its batch.
type Mode uint8

const (
	// Parallel tools run concurrently with the rest of their batch.
	Parallel Mode = iota
	// Sequential tools make their whole batch run one call at a time, in
	// the order the model issued them.
	Sequential
)

// RunFunc executes one call. It must honour ctx: when ctx is done it
// stops its work (killing processes it started) and returns promptly.
type RunFunc func(ctx context.Context, call *Call) Result

// Tool is a capability offered to the model. Build one with New for typed
// arguments, or fill the fields directly with a hand-written schema.
// A Tool must not be changed once it is in a Registry.
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments object.
	Schema json.RawMessage
	Mode   Mode
	// ReadOnly marks tools that never change files or run commands.
	ReadOnly bool
	// Idempotent marks tools whose call, run again with the same
	// arguments, has no effect beyond its first run. Crash recovery runs
	// an idempotent call that was in flight again; any other call that
	// may have started is answered as interrupted instead (see
	// docs/long-horizon.md).
	Idempotent bool
	// Timeout bounds one call when the Timeout middleware is installed;
	// zero uses the middleware's default, negative means no limit.
	Timeout time.Duration
	Run     RunFunc
	// Aliases are other names a call may give the tool (the names other
	// harnesses' transcripts, hooks and rules use); models are offered
	// Name only, and a tool really named so wins over an alias.
	Aliases []string

	schema *compiledSchema // nil until NewRegistry or Validate compiles Schema
}

// compiledSchema is an argument schema compiled for validation, once, on
// the first call to get; safe for concurrent use.
type compiledSchema struct {
	raw      json.RawMessage
	once     sync.Once
	resolved *jsonschema.Resolved
	emptyOK  bool // the schema accepts {}
	err      error
}

// get compiles the schema on its first call and returns the result.
func (c *compiledSchema) get() (*jsonschema.Resolved, bool, error) {
	c.once.Do(func() {
		var s jsonschema.Schema
		if err := json.Unmarshal(c.raw, &s); err != nil {
			c.err = fmt.Errorf("schema is not valid JSON Schema: %w", err)
			return
		}
		r, err := s.Resolve(nil)
		if err != nil {
			c.err = fmt.Errorf("schema: %w", err)
			return
		}
		c.resolved, c.emptyOK = r, r.Validate(map[string]any{}) == nil
	})
	return c.resolved, c.emptyOK, c.err
}

// Spec returns the description of the tool sent to models.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Schema}
}

// Deferred returns t, whose hand-written Schema its author vouches for
// (a constant that the author's tests call the tool with): the schema is
// compiled on the tool's first call instead of by NewRegistry, which
// would compile it before a run's first request whether or not the
// model ever calls the tool. Should it still not be valid JSON Schema,
// each call fails with an error that says so.
func Deferred(t *Tool) *Tool {
	if len(t.Schema) > 0 {
		t.schema = &compiledSchema{raw: t.Schema}
	}
	return t
}

// resolve compiles the tool's schema for validation.
func (t *Tool) resolve() error {
	if t.Name == "" {
		return fmt.Errorf("tool: a tool needs a name")
	}
	if t.Run == nil {
		return fmt.Errorf("tool %q: no run function", t.Name)
	}
	if len(t.Schema) == 0 {
		t.Schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	c := &compiledSchema{raw: t.Schema}
	if _, _, err := c.get(); err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	t.schema = c
	return nil
}

// Validate checks arguments against the tool's schema and returns an
// error a model can act on, or nil.
func (t *Tool) Validate(args json.RawMessage) error {
	c := llm.Content{Arguments: args}
	if len(args) == 0 {
		args = json.RawMessage("{}")
		c.Arguments = args
	}
	if !c.ArgumentsObject() {
		raw := c.RawArguments()
		if len(raw) > 300 {
			raw = raw[:300] + "…"
		}
		return fmt.Errorf("the arguments are not a valid JSON object: %s", raw)
	}
	if t.schema == nil {
		if err := t.resolve(); err != nil {
			return err
		}
	}
	schema, emptyOK, err := t.schema.get()
	if err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if emptyOK && isEmptyObject(args) {
		return nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("the arguments are not valid JSON: %v", err)
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("the arguments do not match the schema: %s", cleanSchemaError(err))
	}
	return nil
}

func cleanSchemaError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "validating root: ")
	s = strings.ReplaceAll(s, "validating /properties/", "")
	return s
}

// Call is one tool call as it passes through the middleware chain.
// Middleware may read every field; only the loop sets them.
type Call struct {
	// ID is the model's id for the call.
	ID string
	// Name is the tool the model asked for.
	Name string
	// Args is the JSON the model produced (see llm.Content.Arguments).
	Args json.RawMessage
	// Turn is the 1-based turn of the run the call belongs to.
	Turn int
	// Tool is the registered tool, or nil when the model named a tool that
	// does not exist.
	Tool *Tool
	// Update, when non-nil, reports partial output while the tool runs.
	// It is safe to call from any goroutine until the tool returns, and
	// may block until the loop has taken the report, so a tool that must
	// stay responsive (to kill a process on time, say) calls it from a
	// goroutine of its own.
	Update func(partial Result)
}

// Result is what a tool call produced.
type Result struct {
	// Content is what the model sees: text and images.
	Content []llm.Content
	// IsError marks a failed call; the model sees the content as an error.
	IsError bool
	// Details carries structured data for applications and interfaces. It
	// is never sent to the model.
	Details any
	// Stop, when non-empty, ends the run after this batch; it says why.
	// Guards use it for circuit breakers that a model cannot ignore.
	Stop string
	// Notes are short labels middleware attaches to say what it did
	// ("truncated", "cached", "guard:warn"…). Never sent to the model.
	Notes []string
}

// Text returns a successful result holding one text block.
func Text(s string) Result { return Result{Content: []llm.Content{llm.Text(s)}} }

// Errorf returns an error result whose text is formatted like fmt.Sprintf.
func Errorf(format string, args ...any) Result {
	return Result{Content: []llm.Content{llm.Text(fmt.Sprintf(format, args...))}, IsError: true}
}

// Text concatenates the result's text blocks.
func (r *Result) Text() string {
	m := llm.Message{Content: r.Content}
	return m.Text()
}

// Message returns the result as a tool-result message answering call.
func (r *Result) Message(call *Call) llm.Message {
	content := r.Content
	if len(content) == 0 {
		content = []llm.Content{llm.Text("(no output)")}
	}
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name, IsError: r.IsError, Content: content, Notes: r.Notes}
}

// isEmptyObject reports whether args is {} with optional spaces.
func isEmptyObject(args json.RawMessage) bool {
	s := strings.TrimSpace(string(args))
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return false
	}
	return strings.TrimSpace(s[1:len(s)-1]) == ""
}
