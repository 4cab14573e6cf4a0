package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The guard rule ids this reader needs, as rein's session logs spell them
// in result notes (package guard's RuleReadCache, RuleSameOutput and
// RuleUnknownTool; a test holds them equal).
const (
	ruleReadCache   = "read_cache"
	ruleSameOutput  = "same_output"
	ruleUnknownTool = "loop.unknown_tool"
)

// Format names a recording format.
type Format string

// The formats Read recognises.
const (
	// FormatRein is rein's own session log (JSONL; a "session" header,
	// then "message" entries holding llm.Message values).
	FormatRein Format = "rein"
	// FormatPi is a pi coding-agent session file (JSONL, version 3).
	FormatPi Format = "pi"
	// FormatPiEvents is the event stream of `pi --mode json`.
	FormatPiEvents Format = "pi-events"
	// FormatClaudeCode is a Claude Code session file (~/.claude/projects).
	FormatClaudeCode Format = "claude-code"
	// FormatClaudeStream is the output of `claude -p --output-format
	// stream-json`.
	FormatClaudeStream Format = "claude-stream-json"
	// FormatSWEAgent is a SWE-agent trajectory (.traj, one JSON object).
	FormatSWEAgent Format = "swe-agent"
	// FormatMiniSWE is a mini-swe-agent trajectory (.traj.json, one JSON
	// object holding the conversation in "messages").
	FormatMiniSWE Format = "mini-swe-agent"
	// FormatNeutral is one call per line: {"turn", "tool", "args",
	// "result", "is_error"}.
	FormatNeutral Format = "neutral"
)

// Call is one recorded tool call, with tool names and arguments mapped
// onto rein's tools (read, write, edit, bash, grep, find, ls) where the
// recording's harness has an equivalent.
type Call struct {
	// Line is the 1-based line of the input the call was read from (0 for
	// formats without lines).
	Line int
	// Turn is the 1-based turn: one per assistant message.
	Turn int
	// ID is the recording's id for the call, if any.
	ID   string
	Tool string
	Args json.RawMessage
	// Result is the text the call returned; empty when the recording has
	// no result for it.
	Result  string
	IsError bool
	// Unknown marks a call to a tool that did not exist.
	Unknown bool
	// Prefix is the size in tokens of the request that produced the
	// call's turn (what one more round trip re-sends), when the recording
	// says; 0 when it does not.
	Prefix int
	// Guarded is what rein's guard did to this call in the run that made
	// the recording (from the result's notes): "block" or "stop" (the
	// tool did not run and Result is the guard's message), "cached" or
	// "warn" or "hint" (the tool's output, or the cached copy, is in Result, the
	// guard's marker removed); empty when it let the call through
	// untouched or the recording does not say. GuardRule names the rule.
	Guarded, GuardRule string
	// Same marks a call whose output rein's guard replaced by a note
	// because it repeated an earlier output of the same call (rule
	// same_output): the call ran, and its output is that earlier one.
	Same bool
	// Truncated marks a result rein's output limit cut (note "truncated").
	Truncated bool
}

// guardNotes applies the notes rein's guard left on a recorded result
// (see guard.Guard.Middleware) to c. Recordings without notes (logs
// written before results kept them) are recognised by the guard's
// message prefix, which tells blocks and cached reads apart but not
// warnings.
func guardNotes(c *Call, notes []string) {
	for _, n := range notes {
		if n == "truncated" {
			c.Truncated = true
		}
		rest, ok := strings.CutPrefix(n, "guard:")
		if !ok {
			continue
		}
		if rest == "cached:"+ruleSameOutput {
			c.Same = true
			continue
		}
		c.Guarded, c.GuardRule, _ = strings.Cut(rest, ":")
		if c.Guarded == "cached" {
			c.GuardRule = ruleReadCache
		}
	}
	if c.Guarded == "" && strings.HasPrefix(c.Result, "[guard ") {
		rule, _, _ := strings.Cut(c.Result[len("[guard "):], "]")
		switch {
		case rule == ruleSameOutput:
			c.Same = true
		case rule == ruleReadCache && !c.IsError:
			c.Guarded, c.GuardRule = "cached", rule
		case c.IsError:
			c.Guarded, c.GuardRule = "block", rule
		}
	}
	switch c.Guarded {
	case "cached":
		// The marker line, then the cached copy.
		if _, cached, ok := strings.Cut(c.Result, "\n"); ok {
			c.Result = cached
		}
	case "warn":
		// The warning, a blank line, then the tool's output.
		if _, out, ok := strings.Cut(c.Result, "\n\n"); ok {
			c.Result = out
		}
	case "hint":
		// The tool's output, a blank line, then the hint.
		if i := strings.LastIndex(c.Result, "\n\n[guard "); i >= 0 {
			c.Result = c.Result[:i]
		}
	case "block", "stop":
		c.Unknown = c.GuardRule == ruleUnknownTool
	}
}

// Session is a decoded recording.
type Session struct {
	Format Format
	Calls  []Call
	// Tools lists the tools the recording says were available (mapped to
	// rein's names), or nil when it does not say.
	Tools []string
	// Workdir is the directory the recorded agent worked in, when the
	// recording says (Claude Code's "cwd"); empty otherwise.
	Workdir string
	// Problems are the malformed lines that were skipped.
	Problems []*LineError
}

// LineError is a malformed line of a recording. Reading goes on after it.
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// ErrUnrecognised is returned (wrapped) when a recording is in none of the
// known formats.
var ErrUnrecognised = errors.New("not a recognised recording (rein or pi session, pi events, Claude Code session or stream-json, SWE-agent .traj, mini-swe-agent .traj.json, or neutral JSONL)")

// ErrMostlyUnrecognised is returned (wrapped) when most lines of a
// recording do not fit the format its first lines were detected as.
var ErrMostlyUnrecognised = errors.New("refused: most lines do not fit the format")

// maxLine bounds one line of a JSONL recording.
const maxLine = 64 << 20

// Read decodes a recording, detecting its format from the content. name
// labels line errors. Malformed lines are skipped and listed in
// Session.Problems; an error is returned only when nothing can be read.
func Read(r io.Reader, name string) (*Session, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4096)
	first := firstLine(head)
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, fmt.Errorf("%s: empty input", name)
	}
	// A .traj file (SWE-agent's, or mini-swe-agent's .traj.json) is one
	// (usually pretty-printed) JSON object.
	if !json.Valid(first) || bytes.Contains(first, []byte(`"trajectory"`)) || bytes.Contains(first, []byte(`"history"`)) ||
		bytes.Contains(first, []byte(`"messages"`)) {
		data, err := readAll(r, br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if s, err := readSWEAgent(data); err == nil {
			return s, nil
		} else if !errors.Is(err, ErrUnrecognised) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// A document with a "messages" list is read as mini-swe-agent's or
		// refused with the reason; only one without goes on to the
		// line-based formats.
		if s, err := readMiniSWE(data); err == nil {
			return s, nil
		} else if !errors.Is(err, errNoMessages) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// A line holding only "{" or "[" opens a pretty-printed document:
		// if it is broken, say where, rather than reading it line by line.
		if (string(first) == "{" || string(first) == "[") && !json.Valid(data) {
			return nil, fmt.Errorf("%s: not valid JSON: %s", name, syntaxAt(data))
		}
		br = bufio.NewReader(bytes.NewReader(data))
	}
	return readLines(br, name)
}

func firstLine(b []byte) []byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSpace(b)
}

// probe holds the top-level fields of every JSONL shape Read knows, as
// raw JSON; one decode of a line tells which shape it has.
type probe struct {
	Type    string         `json:"type"`
	Message jsontext.Value `json:"message"`
	// session headers: rein's has "created", pi's "timestamp"
	Version jsontext.Value `json:"version"`
	Created jsontext.Value `json:"created"`
	// Claude Code
	Subtype     string         `json:"subtype"`
	Tools       jsontext.Value `json:"tools"`
	IsSidechain bool           `json:"isSidechain"`
	Cwd         string         `json:"cwd"`
	SessionID   jsontext.Value `json:"session_id"`
	// neutral (whose lines are then decoded by the neutral decoder)
	Tool jsontext.Value `json:"tool"`

	line []byte // the whole line
}

// scan fills p from one line; the error says why the line is not a
// JSON object of the expected shape.
func (p *probe) scan(line []byte) error {
	p.line = line
	return unmarshal(line, p)
}

// tools decodes the "tools" list of a line, if it is a list of names.
func (p *probe) tools() []string {
	var names []string
	if len(p.Tools) == 0 || unmarshal(p.Tools, &names) != nil {
		return nil
	}
	return names
}

// decoder turns the lines of one recording into calls.
type decoder interface {
	// line handles one decoded line; a returned error marks it malformed.
	line(n int, p *probe) error
	// finish returns the calls in order.
	finish() *Session
}

func readLines(br *bufio.Reader, name string) (*Session, error) {
	var dec decoder
	var format Format
	var header *probe
	var problems []*LineError
	n, lines := 0, 0
	for {
		line, err := readLine(br)
		if len(line) > 0 || !errors.Is(err, io.EOF) {
			n++
		}
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				problems = append(problems, &LineError{File: name, Line: n, Err: err})
				continue
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && dec != nil && format == FormatNeutral {
			// Neutral lines are decoded once, by their own decoder.
			lines++
			if lerr := dec.(*neutralDecoder).decode(n, t); lerr != nil {
				problems = append(problems, &LineError{File: name, Line: n, Err: lerr})
			}
		} else if len(t) > 0 {
			lines++
			var p probe
			if t[0] != '{' {
				problems = append(problems, &LineError{File: name, Line: n, Err: errors.New("not a JSON object")})
			} else if err := p.scan(t); err != nil {
				problems = append(problems, &LineError{File: name, Line: n, Err: err})
			} else {
				if dec == nil && p.Type == "session" && header == nil {
					// A session header starts rein's log, pi's session
					// file and pi's event stream alike: the next line tells.
					header = &probe{Version: bytes.Clone(p.Version), Created: bytes.Clone(p.Created)}
					continue
				}
				if dec == nil {
					format = detect(&p)
					if header != nil && (format == FormatRein || format == FormatPi) && refine("", &p) == "" {
						format = headerFormat(header)
					}
					dec = newDecoder(format)
				} else if format == FormatRein || format == FormatPi {
					format = refine(format, &p)
				}
				if dec != nil {
					if lerr := dec.line(n, &p); lerr != nil {
						problems = append(problems, &LineError{File: name, Line: n, Err: lerr})
					}
				} else if len(problems) < 1000 {
					problems = append(problems, &LineError{File: name, Line: n, Err: errors.New("line of an unknown kind before any recognisable line")})
				}
			}
		}
		if err != nil {
			break
		}
	}
	if dec == nil && header != nil {
		format = headerFormat(header)
		dec = newDecoder(format)
	}
	if dec == nil {
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s: %w; %v", name, ErrUnrecognised, problems[0].Err)
		}
		return nil, fmt.Errorf("%s: %w", name, ErrUnrecognised)
	}
	// A file whose lines mostly do not fit the format it was detected as
	// is some other format: replaying the few lines that fit would
	// misreport it.
	if bad := len(problems); bad > 0 && bad*2 > lines {
		return nil, fmt.Errorf("%s: %w: %d of %d lines are not %s lines (first at line %d: %v)",
			name, ErrMostlyUnrecognised, bad, lines, format, problems[0].Line, problems[0].Err)
	}
	s := dec.finish()
	s.Format = format
	s.Problems = problems
	return s, nil
}

var errLineTooLong = fmt.Errorf("line longer than %d MiB skipped", maxLine>>20)

// readLine returns the next line without its newline; a line longer than
// maxLine is consumed and reported as errLineTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, chunk...)
			continue
		}
		if buf != nil {
			chunk = append(buf, chunk...)
		}
		return bytes.TrimRight(chunk, "\r\n"), err
	}
}

// detect names the format of a recording from its first decodable line.
func detect(p *probe) Format {
	switch p.Type {
	case "message", "model_change", "thinking_level_change", "thinking_change", "tools_change", "leaf",
		"compaction", "branch_summary", "custom", "label", "session_info", "custom_message":
		return refine(FormatRein, p)
	case "agent_start", "turn_start", "message_start", "message_update", "message_end", "tool_execution_start",
		"tool_execution_update", "tool_execution_end", "turn_end", "agent_end":
		return FormatPiEvents
	case "user", "assistant", "system", "result", "summary", "file-history-snapshot", "queue-operation", "permission-mode":
		if len(p.SessionID) > 0 || p.Subtype == "init" || p.Type == "result" {
			return FormatClaudeStream
		}
		return FormatClaudeCode
	case "":
		if len(p.Tool) > 0 {
			return FormatNeutral
		}
	}
	return ""
}

// headerFormat tells rein's session header (with "created") from pi's.
func headerFormat(h *probe) Format {
	if len(h.Created) == 0 && len(h.Version) > 0 {
		return FormatPi
	}
	return FormatRein
}

// refine tells rein's log from pi's by the spelling of message fields.
func refine(f Format, p *probe) Format {
	if p.Type != "message" || len(p.Message) == 0 {
		return f
	}
	if bytes.Contains(p.Message, []byte(`"toolResult"`)) || bytes.Contains(p.Message, []byte(`"toolCall"`)) {
		return FormatPi
	}
	if bytes.Contains(p.Message, []byte(`"tool_result"`)) || bytes.Contains(p.Message, []byte(`"tool_call"`)) {
		return FormatRein
	}
	return f
}

func newDecoder(f Format) decoder {
	switch f {
	case FormatRein, FormatPi, FormatPiEvents:
		return &messageDecoder{events: f == FormatPiEvents}
	case FormatClaudeCode, FormatClaudeStream:
		return newClaudeDecoder()
	case FormatNeutral:
		return &neutralDecoder{}
	}
	return nil
}

// unknownToolError reports whether an error result says the tool does not
// exist, in the words of rein, pi or Claude Code.
func unknownToolError(text string) bool {
	if len(text) > 300 {
		text = text[:300]
	}
	l := strings.ToLower(text)
	return strings.Contains(l, "unknown tool") || strings.Contains(l, "no such tool") ||
		strings.Contains(l, "tool not found") || strings.HasPrefix(l, "tool ") && strings.Contains(l, " not found")
}

// pairing collects the calls of a recording and attaches results by id.
type pairing struct {
	calls []Call
	byID  map[string]int
}

func (p *pairing) add(c Call) {
	if p.byID == nil {
		p.byID = map[string]int{}
	}
	if c.ID != "" {
		p.byID[c.ID] = len(p.calls)
	}
	if len(c.Args) == 0 {
		c.Args = json.RawMessage("{}")
	} else {
		c.Args = bytes.Clone(c.Args)
	}
	p.calls = append(p.calls, c)
}

// result attaches a result to the call with id, reporting whether there
// was one.
func (p *pairing) result(id, text string, isError bool) bool {
	return p.resultNoted(id, text, isError, nil)
}

// resultNoted is result for a rein result that carries notes.
func (p *pairing) resultNoted(id, text string, isError bool, notes []string) bool {
	i, ok := p.byID[id]
	if !ok {
		return false
	}
	c := &p.calls[i]
	c.Result, c.IsError = text, isError
	c.Unknown = isError && unknownToolError(text)
	if notes != nil || strings.HasPrefix(text, "[guard ") {
		guardNotes(c, notes)
	}
	delete(p.byID, id)
	return true
}

// syntaxAt describes the first JSON syntax error in data, with its line
// and column.
func syntaxAt(data []byte) string {
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if err == nil {
			return "unknown error"
		}
		return err.Error()
	}
	off := min(int(se.Offset), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, col, se)
}

// readAll reads what is left of br, the buffered reader of r, into a
// buffer sized from r's file size when r is a file.
func readAll(r io.Reader, br *bufio.Reader) ([]byte, error) {
	size := 0
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Size() < 1<<31 {
			size = int(fi.Size())
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	_, err := buf.ReadFrom(br)
	return buf.Bytes(), err
}
