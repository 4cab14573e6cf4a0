package long

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Preset names a layout of the three files.
type Preset string

// Presets. PresetRein is the seed's layout (agent-progress.json,
// agent-notes.md, workspace.sh); PresetAnthropic is the layout of
// Anthropic's long-running agent harness (feature_list.json,
// claude-progress.txt, init.sh), whose feature entries hold a category, a
// description, steps and a passes flag.
const (
	PresetRein      Preset = "rein"
	PresetAnthropic Preset = "anthropic"
)

// wireTask is a task of the rein preset as the file spells it.
type wireTask struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Acceptance  []string  `json:"acceptance_criteria"`
	Verify      []Verify  `json:"verify"`
	Status      Status    `json:"status"`
	Note        string    `json:"note,omitempty"`
	Failures    int       `json:"failures,omitzero"`
	Evidence    *Evidence `json:"evidence,omitempty"`
}

// wireFeature is an entry of the anthropic preset's feature list. The
// fields after Passes are rein's: an explicit id, the verify commands,
// in_progress or cancelled (passes says done), and the bookkeeping. Any
// other field is kept as it is.
type wireFeature struct {
	ID          string         `json:"id,omitempty"`
	Category    string         `json:"category,omitempty"`
	Description string         `json:"description"`
	Steps       []string       `json:"steps"`
	Passes      bool           `json:"passes"`
	Verify      []Verify       `json:"verify,omitempty"`
	Status      Status         `json:"status,omitempty"`
	Note        string         `json:"note,omitempty"`
	Failures    int            `json:"failures,omitzero"`
	Evidence    *Evidence      `json:"evidence,omitempty"`
	Extra       jsontext.Value `json:",embed"`
}

// FileError is a problem at one place of one file.
type FileError struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Problems is every problem found in the files of a plan, in file order.
// A run does not start while there are any.
type Problems []*FileError

func (p Problems) Error() string {
	lines := make([]string, len(p))
	for i, e := range p {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// element is one array element of the progress file: its text and where
// it starts.
type element struct {
	value jsontext.Value
	off   int64
}

// elements splits data, which must be a JSON array, into its elements.
func elements(file string, data []byte) ([]element, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, syntaxError(file, data, err)
	}
	if tok.Kind() != '[' {
		return nil, &FileError{File: file, Line: lineAt(data, skipSpace(data, 0)), Msg: "the progress file is a JSON array of tasks ([{…}, {…}]), not " + kindName(tok.Kind())}
	}
	var out []element
	for dec.PeekKind() != ']' {
		off := skipSpace(data, dec.InputOffset())
		if off < int64(len(data)) && data[off] == ',' {
			off = skipSpace(data, off+1)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, syntaxError(file, data, err)
		}
		if v.Kind() != '{' {
			return nil, &FileError{File: file, Line: lineAt(data, off), Msg: fmt.Sprintf("task %d is %s: each task is a JSON object", len(out)+1, kindName(v.Kind()))}
		}
		out = append(out, element{value: v.Clone(), off: off})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntaxError(file, data, err)
	}
	if off := skipSpace(data, dec.InputOffset()); off < int64(len(data)) {
		return nil, &FileError{File: file, Line: lineAt(data, off), Msg: "text after the closing ] of the task list"}
	}
	return out, nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "empty"
}

func syntaxError(file string, data []byte, err error) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &FileError{File: file, Msg: "the file is empty: it should hold a JSON array of tasks"}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &FileError{File: file, Line: lineAt(data, int64(len(data))), Msg: "invalid JSON: the file ends before the task list is closed"}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := "invalid JSON"
		if se.Err != nil {
			msg += ": " + se.Err.Error()
		}
		return &FileError{File: file, Line: lineAt(data, se.ByteOffset), Msg: msg}
	}
	return &FileError{File: file, Msg: err.Error()}
}

// skipSpace returns the offset of the first non-space byte at or after
// off.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
			continue
		}
		break
	}
	return off
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// fieldLine is the line of member key inside the object el, or the
// object's own line when it has no such member.
func fieldLine(data []byte, el element, key string) int {
	if i := bytes.Index(el.value, []byte(strconv.Quote(key))); i >= 0 {
		return lineAt(data, el.off+int64(i))
	}
	return lineAt(data, el.off)
}

// decodeError turns an unmarshal error of element el into a FileError.
func decodeError(file string, data []byte, el element, n int, err error, fields string) *FileError {
	line := lineAt(data, el.off)
	var se *json.SemanticError
	if errors.As(err, &se) {
		if se.ByteOffset > 0 {
			line = lineAt(data, el.off+se.ByteOffset)
		}
		name := strings.TrimPrefix(string(se.JSONPointer), "/")
		if se.Err != nil && strings.Contains(se.Err.Error(), "unknown object member") {
			return &FileError{File: file, Line: line, Msg: fmt.Sprintf("task %d: unknown field %q (fields: %s)", n, lastToken(name), fields)}
		}
		if se.Err != nil {
			var inner *json.SemanticError
			if !errors.As(se.Err, &inner) {
				return &FileError{File: file, Line: line, Msg: fmt.Sprintf("task %d: field %q: %v", n, name, se.Err)}
			}
		}
		if se.GoType != nil && se.JSONKind != 0 {
			return &FileError{File: file, Line: line, Msg: fmt.Sprintf("task %d: field %q: %s is not allowed here (want %s)", n, name, kindName(se.JSONKind), goKind(se.GoType.String()))}
		}
	}
	return &FileError{File: file, Line: line, Msg: fmt.Sprintf("task %d: %v", n, err)}
}

func lastToken(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[i+1:]
	}
	return ptr
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "string" || t == "long.Status":
		return "a string"
	case t == "int":
		return "a whole number"
	case t == "bool":
		return "true or false"
	}
	return t
}

var unmarshalOpts = json.JoinOptions(json.RejectUnknownMembers(true))

// decode parses data in the layout of preset into a plan. It reports the
// first syntax or type problem with its line; Validate checks the rest.
func decode(preset Preset, file string, data []byte) (*Plan, []element, error) {
	els, err := elements(file, data)
	if err != nil {
		return nil, nil, err
	}
	p := &Plan{Tasks: make([]Task, 0, len(els))}
	for i, el := range els {
		var t Task
		switch preset {
		case PresetAnthropic:
			var w wireFeature
			if err := json.Unmarshal(el.value, &w); err != nil {
				return nil, nil, decodeError(file, data, el, i+1, err, "id, category, description, steps, passes, verify, status, note")
			}
			t = fromFeature(w, i)
		default:
			var w wireTask
			if err := json.Unmarshal(el.value, &w, unmarshalOpts); err != nil {
				return nil, nil, decodeError(file, data, el, i+1, err, "id, title, description, acceptance_criteria, verify, status, note, failures, evidence")
			}
			t = Task{ID: w.ID, Title: w.Title, Description: w.Description, Acceptance: w.Acceptance, Verify: w.Verify,
				Status: w.Status, Note: w.Note, Failures: w.Failures, Evidence: w.Evidence}
		}
		t.line = lineAt(data, el.off)
		p.Tasks = append(p.Tasks, t)
	}
	return p, els, nil
}

func fromFeature(w wireFeature, i int) Task {
	t := Task{ID: w.ID, Title: w.Description, Acceptance: w.Steps, Verify: w.Verify, Status: w.Status,
		Note: w.Note, Failures: w.Failures, Evidence: w.Evidence, Category: w.Category, extra: []byte(w.Extra)}
	if t.ID == "" {
		t.ID, t.implicitID = strconv.Itoa(i+1), true
	}
	switch {
	case w.Passes:
		t.Status = StatusDone
	case t.Status == "":
		t.Status = StatusTodo
	}
	return t
}

// encode writes p in the layout of preset, indented, with a final newline.
func encode(preset Preset, p *Plan) ([]byte, error) {
	var v any
	switch preset {
	case PresetAnthropic:
		out := make([]wireFeature, len(p.Tasks))
		for i, t := range p.Tasks {
			w := wireFeature{Category: t.Category, Description: t.Title, Steps: t.Acceptance, Passes: t.Status == StatusDone,
				Verify: t.Verify, Note: t.Note, Failures: t.Failures, Evidence: t.Evidence, Extra: jsontext.Value(t.extra)}
			if !t.implicitID {
				w.ID = t.ID
			}
			if t.Status == StatusInProgress || t.Status == StatusCancelled {
				w.Status = t.Status
			}
			if w.Steps == nil {
				w.Steps = []string{}
			}
			out[i] = w
		}
		v = out
	default:
		out := make([]wireTask, len(p.Tasks))
		for i, t := range p.Tasks {
			out[i] = wireTask{ID: t.ID, Title: t.Title, Description: t.Description, Acceptance: t.Acceptance, Verify: t.Verify,
				Status: t.Status, Note: t.Note, Failures: t.Failures, Evidence: t.Evidence}
			if out[i].Acceptance == nil {
				out[i].Acceptance = []string{}
			}
			if out[i].Verify == nil {
				out[i].Verify = []Verify{}
			}
		}
		v = out
	}
	b, err := json.Marshal(v, jsontext.Multiline(true), jsontext.WithIndent("  "), json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
