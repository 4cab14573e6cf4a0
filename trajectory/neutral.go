package trajectory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// neutralDecoder reads the neutral format: one call per line,
//
//	{"turn": 1, "tool": "bash", "args": {"command": "cat a.txt"}, "result": "…", "is_error": false}
//
// turn defaults to the previous line's (1 at first); result and is_error
// may be absent; a result that is not a string is taken as its JSON text.
// An optional "unknown": true marks a call to a tool that did not exist
// (an error result saying "unknown tool" does too), and "prefix_tokens"
// the size of the request that produced the call. A line without "args",
// or with members the format does not have, is reported, not guessed at.
type neutralDecoder struct {
	turn  int
	calls []Call
}

// neutralKeys are the members of a neutral line.
var neutralKeys = []string{"turn", "tool", "args", "result", "is_error", "unknown", "prefix_tokens"}

// neutralLine is one line of the neutral format.
type neutralLine struct {
	Turn         jsontext.Value `json:"turn"`
	Tool         jsontext.Value `json:"tool"`
	Args         jsontext.Value `json:"args"`
	Result       resultText     `json:"result"`
	IsError      bool           `json:"is_error"`
	Unknown      bool           `json:"unknown"`
	PrefixTokens int            `json:"prefix_tokens"`
	// Extra holds the members a neutral line does not have.
	Extra jsontext.Value `json:",embed"`
}

// resultText is a result: a string as it is, anything else as its JSON
// text, null as nothing.
type resultText string

func (r *resultText) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		*r = resultText(tok.String())
	case 'n':
		_, err := d.ReadToken()
		return err
	default:
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		*r = resultText(v)
	}
	return nil
}

func (d *neutralDecoder) line(n int, p *probe) error { return d.decode(n, p.line) }

// decode reads one neutral line.
func (d *neutralDecoder) decode(n int, line []byte) error {
	var l neutralLine
	if line[0] != '{' {
		return errors.New("not a JSON object")
	}
	if err := unmarshal(line, &l); err != nil {
		return err
	}
	tool, ok := stringValue(l.Tool)
	if !ok || tool == "" {
		return errors.New(`a call needs a "tool" name`)
	}
	if len(l.Extra) > 0 {
		return fmt.Errorf("unknown member %s (a neutral line has %s)", quoteAll(unknownKeys(l.Extra, nil)), strings.Join(neutralKeys, ", "))
	}
	if len(l.Turn) > 0 && string(l.Turn) != "null" {
		t, err := turnNumber(l.Turn)
		if err != nil {
			return err
		}
		d.turn = t
	}
	if d.turn == 0 {
		d.turn = 1
	}
	args := json.RawMessage(l.Args) // a copy: unmarshal does not alias line
	switch {
	case len(args) == 0:
		return errors.New(`a call needs "args", the arguments object ({} for none)`)
	case args[0] != '{':
		return errors.New(`"args" must be a JSON object`)
	}
	result := string(l.Result)
	d.calls = append(d.calls, Call{
		Line: n, Turn: d.turn, Tool: tool, Args: args, Result: result, IsError: l.IsError,
		Unknown: l.Unknown || l.IsError && unknownToolError(result), Prefix: max(l.PrefixTokens, 0),
	})
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// turnNumber reads a turn: a positive integer.
func turnNumber(raw []byte) (int, error) {
	n := 0
	for i, c := range raw {
		if c < '0' || c > '9' || i > 9 {
			if c == '-' || c == '0' && i == 0 {
				break
			}
			return 0, fmt.Errorf("turn %s: not a whole number", raw)
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 {
		return 0, fmt.Errorf("turn %s: turns start at 1", raw)
	}
	return n, nil
}

func (d *neutralDecoder) finish() *Session { return &Session{Calls: d.calls} }
