package work

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// DefaultContractPath is where a workspace keeps its contract, relative
// to the workspace root.
const DefaultContractPath = ".rein/contract.json"

// Predicate types.
const (
	PredCommand    = "command"
	PredFile       = "file"
	PredToolResult = "tool_result"
	PredFinalText  = "final_text"
	PredNoOpen     = "no_open_work_items"
	PredGit        = "git"
)

// Contract is what must hold before a run may report success. Its file
// form is a JSON object (see docs/long-horizon.md):
//
//	{"max_retries": 3, "predicates": [{"type": "command", "run": "go test ./..."}, …]}
type Contract struct {
	// MaxRetries bounds the messages that send failures back to the
	// model; zero means the harness default, negative none.
	MaxRetries int         `json:"max_retries,omitempty"`
	Predicates []Predicate `json:"predicates"`
	// Path is the file the contract was read from ("" for flags only).
	Path string `json:"-"`
}

// Predicate is one condition. Type says which fields count:
//
//   - command:            Run, ExitCode (default 0), Timeout (default 10m)
//   - file:               Path (exists), Matches (its content matches)
//   - tool_result:        Tool, Success (default true), Matches
//   - final_text:         Matches (the final answer matches)
//   - no_open_work_items: (none)
//   - git:                State: "clean" (nothing uncommitted) or
//     "committed" (clean, and a commit made since the agent started)
type Predicate struct {
	Type     string `json:"type"`
	Name     string `json:"name,omitempty"`
	Run      string `json:"run,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	Timeout  string `json:"timeout,omitempty"`
	Path     string `json:"path,omitempty"`
	Matches  string `json:"matches,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Success  *bool  `json:"success,omitempty"`
	State    string `json:"state,omitempty"`

	// Line is the line of the contract file the predicate starts on (0
	// for a --verify flag).
	Line    int            `json:"-"`
	re      *regexp.Regexp // Matches, compiled
	timeout time.Duration
}

// Label names the predicate for people: its Name, else a short form.
func (p *Predicate) Label() string {
	if p.Name != "" {
		return p.Name
	}
	switch p.Type {
	case PredCommand:
		return "`" + p.Run + "`"
	case PredFile:
		if p.Matches != "" {
			return fmt.Sprintf("%s matches /%s/", p.Path, p.Matches)
		}
		return p.Path + " exists"
	case PredToolResult:
		return fmt.Sprintf("a %s result matching /%s/", p.Tool, p.Matches)
	case PredFinalText:
		return fmt.Sprintf("the final answer matches /%s/", p.Matches)
	case PredNoOpen:
		return "no open work items"
	case PredGit:
		return "git " + p.State
	}
	return p.Type
}

// ContractError is a contract that cannot be used: the file, the line
// (0 when unknown) and what is wrong.
type ContractError struct {
	Path string
	Line int
	Msg  string
}

func (e *ContractError) Error() string {
	where := e.Path
	if where == "" {
		where = "--verify"
	}
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	return fmt.Sprintf("%s: %s", where, e.Msg)
}

// ReadContract reads and checks the contract file at path. Any problem
// is a *ContractError naming the file and line.
func ReadContract(path string) (*Contract, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &ContractError{Path: path, Msg: fmt.Sprintf("cannot read the contract: %v", err)}
	}
	return ParseContract(path, b)
}

// FindContract returns the workspace's contract: the file at path when
// given (relative paths from root), else DefaultContractPath when it
// exists, else nil.
func FindContract(root, path string) (*Contract, error) {
	if path == "" {
		p := filepath.Join(root, DefaultContractPath)
		if _, err := os.Stat(p); err != nil {
			return nil, nil
		}
		path = p
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	return ReadContract(path)
}

// ParseContract parses and checks a contract; path names it in errors.
func ParseContract(path string, b []byte) (*Contract, error) {
	bad := func(off int64, format string, args ...any) error {
		return &ContractError{Path: path, Line: lineAt(b, off), Msg: fmt.Sprintf(format, args...)}
	}
	syntax := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return bad(se.Offset, "not valid JSON: %v", se)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return bad(te.Offset, "%q should be %s, not a JSON %s", te.Field, te.Type, te.Value)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return bad(int64(len(b)), "the file ends before the JSON does")
		}
		return bad(0, "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	c := &Contract{Path: path}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, bad(dec.InputOffset(), "a contract is a JSON object with \"predicates\"")
	}
	seen := false
	for dec.More() {
		keyOff := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, _ := tok.(string)
		switch key {
		case "max_retries":
			if err := dec.Decode(&c.MaxRetries); err != nil {
				return nil, syntax(err)
			}
		case "predicates":
			seen = true
			tok, err := dec.Token()
			if err != nil {
				return nil, syntax(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, bad(dec.InputOffset(), "\"predicates\" is a list")
			}
			for dec.More() {
				off := skipSpace(b, dec.InputOffset())
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return nil, syntax(err)
				}
				var p Predicate
				pd := json.NewDecoder(bytes.NewReader(raw))
				pd.DisallowUnknownFields()
				if err := pd.Decode(&p); err != nil {
					return nil, bad(off, "predicate %d: %v", len(c.Predicates)+1, strings.TrimPrefix(err.Error(), "json: "))
				}
				p.Line = lineAt(b, off)
				if err := p.check(); err != nil {
					return nil, &ContractError{Path: path, Line: p.Line, Msg: fmt.Sprintf("predicate %d: %v", len(c.Predicates)+1, err)}
				}
				c.Predicates = append(c.Predicates, p)
			}
			if _, err := dec.Token(); err != nil {
				return nil, syntax(err)
			}
		default:
			return nil, bad(skipSpace(b, keyOff), "unknown field %q: a contract has \"predicates\" and \"max_retries\"", key)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(dec.InputOffset(), "text after the contract's closing brace")
	}
	if !seen || len(c.Predicates) == 0 {
		return nil, &ContractError{Path: path, Line: 1, Msg: "the contract has no predicates"}
	}
	return c, nil
}

// CommandPredicate is the predicate of a --verify flag: command exits 0.
func CommandPredicate(command string) (Predicate, error) {
	p := Predicate{Type: PredCommand, Run: command}
	if err := p.check(); err != nil {
		return p, &ContractError{Msg: err.Error()}
	}
	return p, nil
}

// check validates p and compiles its parts.
func (p *Predicate) check() error {
	need := func(field, val string) error {
		if strings.TrimSpace(val) == "" {
			return fmt.Errorf("a %s predicate needs %q", p.Type, field)
		}
		return nil
	}
	var err error
	switch p.Type {
	case PredCommand:
		err = need("run", p.Run)
		if err == nil && p.Timeout != "" {
			p.timeout, err = time.ParseDuration(p.Timeout)
			if err == nil && p.timeout <= 0 {
				err = fmt.Errorf("timeout %q is not positive", p.Timeout)
			} else if err != nil {
				err = fmt.Errorf("timeout %q is not a duration such as \"90s\" or \"5m\"", p.Timeout)
			}
		}
	case PredFile:
		err = need("path", p.Path)
	case PredToolResult:
		err = need("tool", p.Tool)
	case PredFinalText:
		err = need("matches", p.Matches)
	case PredNoOpen:
	case PredGit:
		if p.State != "clean" && p.State != "committed" {
			err = fmt.Errorf("a git predicate needs \"state\": \"clean\" or \"committed\", not %q", p.State)
		}
	case "":
		err = errors.New("no \"type\": use command, file, tool_result, final_text, no_open_work_items or git")
	default:
		err = fmt.Errorf("unknown type %q: use command, file, tool_result, final_text, no_open_work_items or git", p.Type)
	}
	if err == nil && p.Matches != "" {
		if p.re, err = regexp.Compile(p.Matches); err != nil {
			err = fmt.Errorf("\"matches\" is not a valid regular expression: %v", err)
		}
	}
	return err
}

// lineAt is the 1-based line of byte offset off in b.
func lineAt(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// skipSpace moves off past white space and commas.
func skipSpace(b []byte, off int64) int64 {
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n,", b[off]) >= 0 {
		off++
	}
	return off
}
