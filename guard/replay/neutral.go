package replay

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/reinhq/rein/internal/jsonx"
)

// neutralDecoder reads the neutral format: one call per line,
//
//	{"turn": 1, "tool": "bash", "args": {"command": "cat a.txt"}, "result": "…", "is_error": false}
//
// turn defaults to the previous line's (1 at first); result and is_error
// may be absent; a result that is not a string is taken as its JSON text.
// An optional "unknown": true marks a call to a tool that did not exist
// (an error result saying "unknown tool" does too).
type neutralDecoder struct {
	turn  int
	calls []Call
}

func (d *neutralDecoder) line(n int, p *probe) error {
	tool, ok := jsonx.StringValid(p.Tool)
	if !ok || tool == "" {
		return errors.New(`a call needs a "tool" name`)
	}
	if len(p.Turn) > 0 && string(p.Turn) != "null" {
		t, err := turnNumber(p.Turn)
		if err != nil {
			return err
		}
		d.turn = t
	}
	if d.turn == 0 {
		d.turn = 1
	}
	args := p.Args
	switch {
	case len(args) == 0 || string(args) == "null":
		args = []byte("{}")
	case args[0] != '{':
		return errors.New(`"args" must be a JSON object`)
	default:
		args = bytes.Clone(args)
	}
	result := ""
	if len(p.Result) > 0 && string(p.Result) != "null" {
		var isStr bool
		if result, isStr = jsonx.StringValid(p.Result); !isStr {
			result = string(p.Result)
		}
	}
	d.calls = append(d.calls, Call{
		Line: n, Turn: d.turn, Tool: tool, Args: args, Result: result, IsError: p.IsError,
		Unknown: p.Unknown || p.IsError && unknownToolError(result),
	})
	return nil
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
