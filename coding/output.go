package coding

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding/claudecode"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/redact"
)

// The output formats of a one-shot run (`rein run -o FORMAT`). Text ("" is
// text too) is the reply as it streams, which each front-end renders its
// own way; Output writes the four others.
const (
	OutputText           = "text"
	OutputJSON           = "json"             // Claude Code's result object
	OutputStreamJSON     = "stream-json"      // Claude Code's lines
	OutputReinJSON       = "rein-json"        // RunResult
	OutputReinStreamJSON = "rein-stream-json" // rein's event schema (EventEncoder)
)

// CheckOutputFormat returns nil when format names an output format ("",
// the text format, or one Output writes) and otherwise an error that
// lists them.
func CheckOutputFormat(format string) error {
	switch format {
	case "", OutputText, OutputJSON, OutputStreamJSON, OutputReinJSON, OutputReinStreamJSON:
		return nil
	}
	return fmt.Errorf("unknown output format %q: use text, json, stream-json (Claude Code's shapes), rein-json or rein-stream-json (rein's own)", format)
}

// Output writes one run of an Agent to w in a machine-readable format:
//
//   - json: nothing while the run goes on; at the end Claude Code's
//     result object (package claudecode) with RunResult's fields beside
//     it, so that scripts written for either read it;
//   - stream-json: Claude Code's system init line when the Output is
//     made, a line per finished assistant message and per tool result as
//     they happen, the result object at the end;
//   - rein-json: the RunResult at the end;
//   - rein-stream-json: every event in rein's own schema (EventEncoder),
//     one object a line, as it happens; nothing at the end.
//
// Everything written is masked with the agent's redactor
// (Options.Redactor): each line as a whole, and a secret that a reply
// streams across several deltas, which no one line holds, as the deltas
// pass (DeltaMasker). Approval requests are not written: they are
// answered, not reported.
//
// Event and Finish are safe for concurrent use. The first error writing
// to w, or encoding an event, sticks: nothing more is written, and Event
// and Finish return it.
type Output struct {
	format string
	w      io.Writer
	a      *Agent
	cc     *claudecode.Writer // json, stream-json
	masker *DeltaMasker       // json, stream-json
	events *EventEncoder      // rein-stream-json

	mu  sync.Mutex
	err error
}

// NewOutput returns the Output of one run of a in format. Make it just
// before the run: the Claude Code formats count the run's duration from
// here, and stream-json writes its init line (the model, the tools on
// offer, the permission mode, the slash commands, the session) now; an
// error writing it is returned by the first Event or by Finish. An
// unknown format is CheckOutputFormat's error; the text format is an
// error too, since the front-end renders it.
func NewOutput(format string, w io.Writer, a *Agent) (*Output, error) {
	if err := CheckOutputFormat(format); err != nil {
		return nil, err
	}
	r := a.s.o.Redactor
	w = maskedLines{w: w, r: r}
	o := &Output{format: format, w: w, a: a}
	switch format {
	case "", OutputText:
		return nil, fmt.Errorf("coding: the %s output is rendered by the front-end, not by an Output", OutputText)
	case OutputJSON:
		o.cc, o.masker = claudecode.NewResult(w, claudeMeta(a, time.Now())), NewDeltaMasker(r)
	case OutputStreamJSON:
		o.cc, o.masker = claudecode.NewStream(w, claudeMeta(a, time.Now())), NewDeltaMasker(r)
	case OutputReinStreamJSON:
		o.events = NewEventEncoder(r)
	}
	return o, nil
}

// maskedLines masks each write with r before passing it to w. Every write
// of an Output is one whole line (a JSON document and its newline), so
// no secret spans two writes.
type maskedLines struct {
	w io.Writer
	r *redact.Redactor
}

func (m maskedLines) Write(p []byte) (int, error) {
	if _, err := m.w.Write(m.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Event takes one event of the run, as Agent.Subscribe delivers it, and
// writes what the format prints for it now (see Output). Pass every
// event of the run, in the order they happened: the masking of streamed
// deltas and the timing of model calls depend on it. It returns the
// Output's first error, which leaves the event unwritten.
func (o *Output) Event(ev Event) error {
	if ev.Approval != nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.err != nil:
	case o.cc != nil:
		for _, x := range o.masker.Apply(ev.Event) {
			if o.err == nil {
				o.err = o.cc.Event(x)
			}
		}
	case o.events != nil:
		outs, err := o.events.Encode(ev.Event)
		for _, x := range outs {
			if o.err == nil {
				_, o.err = o.w.Write(append(x.JSON, '\n'))
			}
		}
		if o.err == nil {
			o.err = err
		}
	}
	return o.err
}

// Finish writes the end of the run that Submit returned as res and
// runErr: the json, stream-json and rein-json documents (see Output);
// rein-stream-json writes nothing more. The document names the agent's
// session log as it is at the call. Call it once, after the run's last
// event. When an earlier write failed, Finish writes nothing and returns
// that error; otherwise it returns the error of its own write, if any.
func (o *Output) Finish(res harness.Result, runErr error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	var path string
	if s := o.a.Session(); s != nil {
		path = s.Path()
	}
	switch o.format {
	case OutputReinJSON:
		o.err = json.NewEncoder(o.w).Encode(NewRunResult(res, runErr, path))
	case OutputJSON:
		o.err = o.cc.Result(res, FinalText(res), runErr, NewRunResult(res, runErr, path))
	case OutputStreamJSON:
		o.err = o.cc.Result(res, FinalText(res), runErr, nil)
	}
	return o.err
}

// RunResult is the rein-json document of a run, whose fields the json
// format also writes beside Claude Code's. Text is the final answer
// (FinalText) when the run completed, else empty, and PartialText then
// holds what the model had said. Error is the run's error, Session the
// session log's path ("" without one), Messages the run's whole
// conversation.
type RunResult struct {
	Stop        agent.StopReason `json:"stop"`
	Detail      string           `json:"detail,omitempty"`
	Error       string           `json:"error,omitempty"`
	Text        string           `json:"text"`
	PartialText string           `json:"partial_text,omitempty"`
	Turns       int              `json:"turns"`
	Usage       llm.Usage        `json:"usage"`
	Session     string           `json:"session,omitempty"`
	Messages    []llm.Message    `json:"messages"`
}

// NewRunResult is the RunResult of a run that ended with res and err;
// session is its log's path. The run completed when err is nil and it
// stopped with agent.StopCompleted.
func NewRunResult(res harness.Result, err error, session string) RunResult {
	r := RunResult{Stop: res.Stop, Detail: res.Detail, Turns: res.Turns, Usage: res.Usage, Session: session, Messages: res.Messages}
	if err == nil && res.Stop == agent.StopCompleted {
		r.Text = FinalText(res)
	} else {
		r.PartialText = FinalText(res)
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// claudeMeta gathers what Claude Code's output formats print about a run
// of a that its events do not say; the run started at start.
func claudeMeta(a *Agent, start time.Time) claudecode.Meta {
	h := a.Harness()
	m := claudecode.Meta{Cwd: a.Workspace(), Model: h.Model().ID, Version: a.s.o.Version, Start: start,
		PermissionMode: claudecode.ModeName(string(a.PermissionMode()))}
	if s := a.Session(); s != nil {
		m.SessionID, m.SessionFile = s.ID(), s.Path()
	}
	for _, name := range h.ActiveTools() {
		cc, _ := command.ClaudeTool(name, []byte("{}"), "")
		m.Tools = append(m.Tools, cc)
	}
	if f := a.Found(); f != nil {
		for _, t := range f.Templates {
			m.Commands = append(m.Commands, t.Name)
		}
		for _, s := range f.Skills {
			m.Commands = append(m.Commands, s.Name)
		}
	}
	return m
}
