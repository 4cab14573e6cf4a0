package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// CommandEvent names an event of external command hooks, as Claude
// Code's settings files do.
type CommandEvent string

// Command hook events.
const (
	PreToolUse       CommandEvent = "PreToolUse"
	PostToolUse      CommandEvent = "PostToolUse"
	UserPromptSubmit CommandEvent = "UserPromptSubmit"
	Stop             CommandEvent = "Stop"
	SubagentStart    CommandEvent = "SubagentStart"
	SubagentStop     CommandEvent = "SubagentStop"
	SessionStart     CommandEvent = "SessionStart"
	SessionEnd       CommandEvent = "SessionEnd"
	PreCompact       CommandEvent = "PreCompact"
	Notification     CommandEvent = "Notification"
)

// CommandEvents lists the events rein runs command hooks at.
func CommandEvents() []CommandEvent {
	return []CommandEvent{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification}
}

// DefaultCommandTimeout bounds a command hook that sets no timeout, as
// in Claude Code.
const DefaultCommandTimeout = 600 * time.Second

// CommandHook is one external command.
type CommandHook struct {
	// Type must be "command"; Claude Code's other types (http, prompt,
	// agent, mcp_tool) are skipped with a warning.
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout in seconds; zero means DefaultCommandTimeout.
	Timeout float64 `json:"timeout"`

	// Source is the settings file the hook came from.
	Source string `json:"-"`
}

func (c CommandHook) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultCommandTimeout
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
	Matcher string        `json:"matcher"`
	Hooks   []CommandHook `json:"hooks"`

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

// CommandConfig holds the command hooks of every settings file, in file
// order.
type CommandConfig map[CommandEvent][]MatcherGroup

// Empty reports whether no hook is configured.
func (c CommandConfig) Empty() bool {
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
func (c CommandConfig) AddFile(file string, raw json.RawMessage) (warnings []string, err error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var doc map[string][]MatcherGroup
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("hooks in %s: want {\"EVENT\": [{\"matcher\": …, \"hooks\": [{\"type\": \"command\", \"command\": …}]}]}: %v", file, err)
	}
	known := CommandEvents()
	events := make([]string, 0, len(doc))
	for ev := range doc {
		events = append(events, ev)
	}
	slices.Sort(events)
	for _, ev := range events {
		groups := doc[ev]
		if !slices.Contains(known, CommandEvent(ev)) {
			warnings = append(warnings, fmt.Sprintf("hooks in %s: rein does not run %s hooks; they are ignored", file, ev))
			continue
		}
		for gi := range groups {
			g := groups[gi]
			if err := g.compile(); err != nil {
				return warnings, fmt.Errorf("hooks in %s: %s[%d]: %v", file, ev, gi, err)
			}
			var keep []CommandHook
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
			c[CommandEvent(ev)] = append(c[CommandEvent(ev)], g)
		}
	}
	return warnings, nil
}

// hooksFor returns the hooks of ev whose matcher matches one of names,
// without duplicate commands.
func (c CommandConfig) hooksFor(ev CommandEvent, names ...string) []CommandHook {
	var out []CommandHook
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
