package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event names an event of external command hooks, as Claude
// Code's settings files do.
type Event string

// Command hook events.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SubagentStart    Event = "SubagentStart"
	SubagentStop     Event = "SubagentStop"
	SessionStart     Event = "SessionStart"
	SessionEnd       Event = "SessionEnd"
	PreCompact       Event = "PreCompact"
	Notification     Event = "Notification"
)

// Events lists the events rein runs command hooks at.
func Events() []Event {
	return []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification}
}

// DefaultTimeout bounds a command hook that sets no timeout, as
// in Claude Code.
const DefaultTimeout = 600 * time.Second

// Hook is one external command.
type Hook struct {
	// Type must be "command"; Claude Code's other types (http, prompt,
	// agent, mcp_tool) are skipped with a warning.
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout in seconds; zero means DefaultTimeout.
	Timeout float64 `json:"timeout"`

	// Source is the settings file the hook came from.
	Source string `json:"-"`
}

func (c Hook) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout * float64(time.Second))
}

// MatcherGroup is a matcher and the hooks it runs.
type MatcherGroup struct {
	// Matcher selects tool names (PreToolUse, PostToolUse), the agent
	// type (SubagentStart, SubagentStop), the source of SessionStart or
	// the trigger of PreCompact: empty or "*" matches
	// everything, names separated by | match exactly, anything else is a
	// regular expression that must match the whole name.
	Matcher string `json:"matcher"`
	Hooks   []Hook `json:"hooks"`

	names []string
	re    *regexp.Regexp
}

var plainNames = regexp.MustCompile(`^[A-Za-z0-9_\-]+(\|[A-Za-z0-9_\-]+)*$`)

func (g *MatcherGroup) compile() error {
	m := strings.TrimSpace(g.Matcher)
	switch {
	case m == "" || m == "*":
	case plainNames.MatchString(m):
		g.names = strings.Split(m, "|")
	default:
		re, err := regexp.Compile("^(?:" + m + ")$")
		if err != nil {
			return fmt.Errorf("matcher %q is neither names separated by | nor a valid regular expression: %v", g.Matcher, err)
		}
		g.re = re
	}
	return nil
}

// matches reports whether the group applies to any of names.
func (g *MatcherGroup) matches(names ...string) bool {
	if g.names == nil && g.re == nil {
		return true
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if g.re != nil && g.re.MatchString(n) || slices.Contains(g.names, n) {
			return true
		}
	}
	return false
}

// Config holds the command hooks of every settings file, in file
// order.
type Config map[Event][]MatcherGroup

// Empty reports whether no hook is configured.
func (c Config) Empty() bool {
	for _, gs := range c {
		for _, g := range gs {
			if len(g.Hooks) > 0 {
				return false
			}
		}
	}
	return true
}

// AddFile parses the "hooks" object of one settings file and adds its
// hooks after those already there. Problems that make a hook unusable
// (an empty command, a matcher that does not compile, a wrong shape) are
// an error naming the file; hook types and events rein does not run are
// returned as warnings.
func (c Config) AddFile(file string, raw json.RawMessage) (warnings []string, err error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var doc map[string][]MatcherGroup
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("hooks in %s: want {\"EVENT\": [{\"matcher\": …, \"hooks\": [{\"type\": \"command\", \"command\": …}]}]}: %v", file, err)
	}
	known := Events()
	events := make([]string, 0, len(doc))
	for ev := range doc {
		events = append(events, ev)
	}
	slices.Sort(events)
	for _, ev := range events {
		groups := doc[ev]
		if !slices.Contains(known, Event(ev)) {
			warnings = append(warnings, fmt.Sprintf("hooks in %s: rein does not run %s hooks; they are ignored", file, ev))
			continue
		}
		for gi := range groups {
			g := groups[gi]
			if err := g.compile(); err != nil {
				return warnings, fmt.Errorf("hooks in %s: %s[%d]: %v", file, ev, gi, err)
			}
			var keep []Hook
			for hi, h := range g.Hooks {
				if h.Type != "command" && h.Type != "" {
					warnings = append(warnings, fmt.Sprintf("hooks in %s: %s[%d].hooks[%d]: rein runs only \"command\" hooks, not %q; skipped", file, ev, gi, hi, h.Type))
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					return warnings, fmt.Errorf("hooks in %s: %s[%d].hooks[%d]: the command is empty", file, ev, gi, hi)
				}
				if h.Timeout < 0 {
					return warnings, fmt.Errorf("hooks in %s: %s[%d].hooks[%d]: the timeout must be positive seconds", file, ev, gi, hi)
				}
				h.Source = file
				keep = append(keep, h)
			}
			g.Hooks = keep
			c[Event(ev)] = append(c[Event(ev)], g)
		}
	}
	return warnings, nil
}

// hooksFor returns the hooks of ev whose matcher matches one of names,
// without duplicate commands.
func (c Config) hooksFor(ev Event, names ...string) []Hook {
	var out []Hook
	seen := map[string]bool{}
	for i := range c[ev] {
		g := &c[ev][i]
		if !g.matches(names...) {
			continue
		}
		for _, h := range g.Hooks {
			if !seen[h.Command] {
				seen[h.Command] = true
				out = append(out, h)
			}
		}
	}
	return out
}
