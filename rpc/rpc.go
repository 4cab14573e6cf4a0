// Package rpc is rein's form of pi's RPC mode: JSON commands, one a line,
// on standard input; responses and events, one a line, on standard
// output. Front-ends written for pi's RPC mode (its RpcClient among them)
// drive rein through it. Commands map onto the coding front door; events
// are rein's events in pi's shapes; approval requests become pi's
// extension UI "select" dialogs. docs/rpc.md lists what maps and what
// differs.
package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// Opener opens an agent on the session log at path ("" for a new
// session). The agent must be Interactive for approvals to reach the
// client.
type Opener func(ctx context.Context, path string) (*coding.Agent, error)

// Options configure Serve.
type Options struct {
	// Open opens agents: the first, and one for each new_session,
	// switch_session and fork; required.
	Open Opener
	// Session is the session log the first agent continues ("" for a
	// new one).
	Session string
	// MaxLine bounds one command line (16 MiB, for prompts with images).
	MaxLine int
}

// command is one line of input: its type and id, and the members each
// command takes.
type command struct {
	ID                string  `json:"id,omitempty"`
	Type              string  `json:"type"`
	Message           string  `json:"message"`
	Images            []image `json:"images"`
	StreamingBehavior string  `json:"streamingBehavior"`
	Provider          string  `json:"provider"`
	ModelID           string  `json:"modelId"`
	Level             string  `json:"level"`
	Mode              string  `json:"mode"`
	CustomInstr       string  `json:"customInstructions"`
	SessionPath       string  `json:"sessionPath"`
	ParentSession     string  `json:"parentSession"`
	EntryID           string  `json:"entryId"`
	Name              string  `json:"name"`
	// extension_ui_response members.
	Value     string `json:"value"`
	Confirmed bool   `json:"confirmed"`
	Cancelled bool   `json:"cancelled"`
}

// image is pi's ImageContent.
type image struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
}

// response is the answer to a command.
type response struct {
	ID      string `json:"id,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Success bool   `json:"success"`
	Data    any    `json:"data,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Serve reads commands from in and writes responses and events to out
// until in ends (then the running prompt finishes) or ctx is cancelled
// (then it is aborted); the agent is closed, its session log
// well-formed. A line that is
// not a command is answered with an error response and nothing else
// happens.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Open == nil {
		return errors.New("rpc: Options.Open is required")
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 16 << 20
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &state{o: o, ctx: ctx, w: bufio.NewWriter(out), asks: map[string]*coding.Approval{}}
	s.runCtx, s.runCancel = context.WithCancel(ctx)
	a, err := o.Open(ctx, o.Session)
	if err != nil {
		return err
	}
	s.attach(a)
	defer s.close()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		rd := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(rd, o.MaxLine)
			if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, errTooLong) {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil && !errors.Is(err, errTooLong) {
				if err != io.EOF {
					readErr <- err
				}
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				// The input ended: the running prompt finishes first.
				s.wait()
				select {
				case err := <-readErr:
					return err
				default:
					return nil
				}
			}
			s.handle(line)
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine reads one LF-terminated record (a trailing CR is dropped); a
// record over max is skipped and reported as errTooLong with a nil line.
func readLine(rd *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		part, err := rd.ReadSlice('\n')
		if len(buf)+len(part) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = rd.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errTooLong
		}
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		return buf, err
	}
}

// state is the mode's one agent and its running prompt.
type state struct {
	o   Options
	ctx context.Context

	wmu sync.Mutex
	w   *bufio.Writer

	mu    sync.Mutex
	a     *coding.Agent
	unsub func()
	// busy is the prompt accepted and not yet ended (its agent_end sent);
	// nil when idle. A prompt's goroutine may outlive its agent_end by a
	// little: runs counts the goroutines, runCancel ends them all.
	busy      *promptRun
	runs      sync.WaitGroup
	runCtx    context.Context
	runCancel context.CancelFunc
	asks      map[string]*coding.Approval
	askSeq    int
	// compaction is the last compaction entry written, for the
	// compaction_end event that follows it.
	compaction *session.Entry
}

// promptRun is one accepted prompt; the context of its Submit carries it
// (runKey), so that the events of the run say which prompt they end.
type promptRun struct {
	ended bool // its agent_end was sent; guarded by state.mu
}

type runKey struct{}

// emit writes one line.
func (s *state) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(response{Type: "response", Command: "internal", Error: err.Error()})
	}
	s.wmu.Lock()
	s.w.Write(append(b, '\n'))
	s.w.Flush()
	s.wmu.Unlock()
}

func (s *state) ok(c command, data any) {
	s.emit(response{ID: c.ID, Type: "response", Command: c.Type, Success: true, Data: data})
}

func (s *state) fail(c command, err error) {
	s.emit(response{ID: c.ID, Type: "response", Command: c.Type, Success: false, Error: err.Error()})
}

// attach makes a the agent and subscribes to its events.
func (s *state) attach(a *coding.Agent) {
	s.mu.Lock()
	s.a = a
	s.unsub = a.Subscribe(func(ctx context.Context, ev coding.Event) error {
		switch {
		case ev.Approval != nil:
			s.ask(ev.Approval)
			return nil
		case ev.Type == harness.EventCompaction:
			s.mu.Lock()
			s.compaction = ev.Entry
			s.mu.Unlock()
		case ev.Type == agent.EventAgentEnd:
			// The prompt is over before the client hears so: a prompt
			// sent on its agent_end starts a new run, as in pi.
			r, _ := ctx.Value(runKey{}).(*promptRun)
			s.mu.Lock()
			if r != nil {
				r.ended = true
				if s.busy == r {
					s.busy = nil
				}
			}
			s.mu.Unlock()
		}
		if out := s.piEvent(ev.Event); out != nil {
			s.emit(out)
		}
		return nil
	})
	s.mu.Unlock()
}

// agent is the current agent.
func (s *state) agent() *coding.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.a
}

// streaming reports whether a prompt runs.
func (s *state) streaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy != nil
}

// start runs text as a prompt in the background, in the session's lane
// (behind a prompt whose agent_end was sent but whose goroutine has not
// yet returned). A prompt that ends without an agent_end of its own (a
// hook blocked it, it was aborted before it started) gets one with the
// error, so a client waiting for agent_end is never left waiting.
func (s *state) start(a *coding.Agent, text string, images []llm.Content) {
	r := &promptRun{}
	s.mu.Lock()
	s.busy = r
	ctx := context.WithValue(s.runCtx, runKey{}, r)
	s.runs.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.runs.Done()
		_, err := a.SubmitWait(ctx, text, images...)
		s.mu.Lock()
		ended := r.ended
		r.ended = true
		if s.busy == r {
			s.busy = nil
		}
		s.mu.Unlock()
		if !ended {
			msg := "the prompt did not run"
			if err != nil {
				msg = err.Error()
			}
			s.emit(map[string]any{"type": "agent_end", "messages": []any{}, "error": msg})
		}
	}()
}

// stop aborts every prompt, running or waiting for its turn, and waits
// for them to return. It must be called from the command loop only.
func (s *state) stop() {
	s.mu.Lock()
	a, cancel := s.a, s.runCancel
	s.runCtx, s.runCancel = context.WithCancel(s.ctx)
	s.mu.Unlock()
	a.Abort()
	cancel()
	s.runs.Wait()
	s.mu.Lock()
	clear(s.asks)
	s.mu.Unlock()
}

// wait waits for the prompts to return, or for ctx to end.
func (s *state) wait() {
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-s.ctx.Done():
		// close stops the prompts, and then the goroutine above ends.
	}
}

// replace closes the current agent (aborting its prompt) and opens the
// one at path.
func (s *state) replace(path string) error {
	s.stop()
	s.mu.Lock()
	old, unsub := s.a, s.unsub
	s.mu.Unlock()
	if sl := old.Session(); sl != nil && path == sl.Path() {
		return nil
	}
	unsub()
	if err := old.Close(); err != nil {
		return err
	}
	a, err := s.o.Open(s.ctx, path)
	if err != nil {
		// Back to the old session, so the mode keeps an agent.
		var path string
		if sl := old.Session(); sl != nil {
			path = sl.Path()
		}
		if back, berr := s.o.Open(s.ctx, path); berr == nil {
			s.attach(back)
		}
		return err
	}
	s.attach(a)
	return nil
}

func (s *state) close() {
	s.stop()
	s.mu.Lock()
	a, unsub := s.a, s.unsub
	s.mu.Unlock()
	unsub()
	a.Close()
}

// handle runs one input line.
func (s *state) handle(line []byte) {
	if line == nil {
		s.emit(response{Type: "response", Command: "parse", Error: fmt.Sprintf("Failed to parse command: the line is over %d bytes", s.o.MaxLine)})
		return
	}
	var c command
	if err := json.Unmarshal(line, &c); err != nil {
		s.emit(response{Type: "response", Command: "parse", Error: "Failed to parse command: " + err.Error()})
		return
	}
	if c.Type == "" {
		s.emit(response{ID: c.ID, Type: "response", Command: "parse", Error: `Failed to parse command: no "type"`})
		return
	}
	h, ok := handlers[c.Type]
	if !ok {
		s.fail(c, fmt.Errorf("Unknown command: %s", c.Type))
		return
	}
	data, err := h(s, c)
	if err != nil {
		s.fail(c, err)
		return
	}
	if data != nil || c.Type != "extension_ui_response" {
		s.ok(c, data)
	}
}
