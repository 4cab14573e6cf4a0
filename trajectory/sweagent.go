package trajectory

import (
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"strconv"
	"strings"
)

// readSWEAgent reads a SWE-agent trajectory (.traj): one JSON object whose
// "trajectory" lists steps {action, observation, …}, one call per step and
// one turn per step; a file with only "history" (the conversation) is read
// from its assistant messages and the observations after them. The history
// also gives each step's request prefix: the messages before it.
//
// Actions are SWE-agent commands or raw bash; they are mapped onto rein's
// tools so that the rules apply: open and goto become read, search_file
// and search_dir grep, find_file find, create write, edit/insert/
// str_replace edit, and anything else bash. SWE-agent records no error
// flag, so observations that are plainly failures (a usage message,
// "command not found", "No such file", a rejected edit, a Python
// traceback) are marked as errors.
func readSWEAgent(data []byte) (*Session, error) {
	var traj struct {
		Trajectory []struct {
			Action      string `json:"action"`
			Observation string `json:"observation"`
		} `json:"trajectory"`
		History []struct {
			Role    string         `json:"role"`
			Content jsontext.Value `json:"content"`
			Action  *string        `json:"action"`
		} `json:"history"`
	}
	if err := unmarshal(data, &traj); err != nil {
		if jsontext.Value(data).IsValid(readOpts) {
			return nil, fmt.Errorf("%w (a JSON object, but not a SWE-agent trajectory: %v)", ErrUnrecognised, err)
		}
		return nil, fmt.Errorf("%w (and %v)", ErrUnrecognised, err)
	}
	if traj.Trajectory == nil && traj.History == nil {
		return nil, ErrUnrecognised
	}
	// From the history: each action, its observation, and the prefix.
	type step struct {
		action, observation string
		prefix              int
	}
	var steps []step
	seen := 0
	for i, m := range traj.History {
		text := contentText(m.Content)
		if m.Role == "assistant" && m.Action != nil {
			st := step{action: *m.Action, prefix: Tokens(seen)}
			if i+1 < len(traj.History) && traj.History[i+1].Role != "assistant" && traj.History[i+1].Role != "system" {
				st.observation = contentText(traj.History[i+1].Content)
			}
			steps = append(steps, st)
		}
		seen += len(text)
	}
	if traj.Trajectory != nil {
		// The trajectory is the record of the steps; the history adds the
		// prefixes when it has the same steps.
		same := len(steps) == len(traj.Trajectory)
		tsteps := make([]step, len(traj.Trajectory))
		for i, t := range traj.Trajectory {
			tsteps[i] = step{action: t.Action, observation: t.Observation}
			if same && strings.TrimSpace(steps[i].action) == strings.TrimSpace(t.Action) {
				tsteps[i].prefix = steps[i].prefix
			}
		}
		steps = tsteps
	}
	s := &Session{Format: FormatSWEAgent}
	open := "" // the file SWE-agent has open
	for i, st := range steps {
		tool, args := sweCommand(strings.TrimSpace(st.action), &open)
		s.Calls = append(s.Calls, Call{
			Turn: i + 1, Tool: tool, Args: args, Result: st.observation, IsError: sweFailed(st.observation), Prefix: st.prefix,
		})
	}
	return s, nil
}

// sweCommand maps one SWE-agent action onto a rein tool call, keeping
// track of the open file.
func sweCommand(action string, open *string) (string, json.RawMessage) {
	first, _, _ := strings.Cut(action, "\n")
	words := splitWords(first)
	obj := func(kv ...any) json.RawMessage {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return b
	}
	arg := func(i int) string {
		if i < len(words) {
			return words[i]
		}
		return ""
	}
	if len(words) == 0 {
		return "bash", obj("command", action)
	}
	switch words[0] {
	case "open":
		if p := arg(1); p != "" {
			*open = p
			if n, err := strconv.Atoi(arg(2)); err == nil {
				return "read", obj("path", p, "offset", n)
			}
			return "read", obj("path", p)
		}
	case "goto":
		if n, err := strconv.Atoi(arg(1)); err == nil {
			return "read", obj("path", *open, "offset", n)
		}
	case "scroll_down", "scroll_up":
		return words[0], obj("path", *open)
	case "search_file":
		p := arg(2)
		if p == "" {
			p = *open
		}
		return "grep", obj("pattern", arg(1), "path", p)
	case "search_dir":
		p := arg(2)
		if p == "" {
			p = "."
		}
		return "grep", obj("pattern", arg(1), "path", p)
	case "find_file":
		p := arg(2)
		if p == "" {
			p = "."
		}
		return "find", obj("pattern", arg(1), "path", p)
	case "create":
		if p := arg(1); p != "" {
			*open = p
			return "write", obj("path", p)
		}
	case "edit", "insert", "append":
		return "edit", obj("path", *open, "edit", action)
	case "str_replace_editor":
		p := arg(2)
		switch arg(1) {
		case "view":
			*open = p
			return "read", obj("path", p, "view", strings.Join(words[min(3, len(words)):], " "))
		case "create":
			*open = p
			return "write", obj("path", p)
		default:
			return "edit", obj("path", p, "edit", action)
		}
	case "submit", "exit_forfeit", "exit_cost", "exit_context", "exit_error", "exit_format":
		return words[0], obj()
	}
	return "bash", obj("command", action)
}

// sweFailed recognises observations that report a failed command.
func sweFailed(obs string) bool {
	head := obs
	if len(head) > 400 {
		head = head[:400]
	}
	head = strings.TrimSpace(head)
	return strings.HasPrefix(head, "Usage:") || strings.HasPrefix(head, "Error:") ||
		strings.Contains(head, "command not found") || strings.Contains(head, "No such file or directory") ||
		strings.Contains(head, "Your proposed edit has introduced new syntax error") ||
		strings.HasPrefix(head, "Traceback (most recent call last)") ||
		strings.Contains(head, "does not exist") && strings.HasPrefix(head, "File ")
}

// splitWords splits a command line on spaces, honouring single and double
// quotes (the quotes are removed).
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}
