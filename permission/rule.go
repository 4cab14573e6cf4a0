package permission

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Effect is what a rule or a decision does with a call.
type Effect string

// Effects, strongest first: deny beats ask beats allow.
const (
	Deny  Effect = "deny"
	Ask   Effect = "ask"
	Allow Effect = "allow"
)

// Rule is one parsed permission rule, such as Bash(npm run *),
// Read(./secrets/**), Edit or mcp__github__create_issue.
type Rule struct {
	// Text is the rule as written; Source is the file it came from (or
	// "flag", "session" …).
	Text   string
	Source string
	Effect Effect

	tool string // as written: Bash, Read, Edit, mcp__x__y, a rein tool name
	spec string // the text in parentheses; "" matches every call
	// bash rules
	prefix string         // legacy "cmd:*" form
	re     *regexp.Regexp // wildcard form
	lead   string         // the wildcard form's text before its first *
	// path rules: absolute doublestar patterns, and the text each
	// starts with before its first wildcard
	globs []string
	lits  []string
	// agents are the agent types of Agent(…) rules
	agents []string
	// kinds caches which of rein's tools the rule names (kindSet marks
	// it filled in by ParseRule).
	kinds uint8
}

// RuleError reports a rule that cannot be used, naming it and its file.
type RuleError struct {
	Rule, Source string
	Msg          string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("permission rule %q in %s: %s", e.Rule, e.Source, e.Msg)
}

// claudeTools maps the tool names Claude Code's rules use to rein's
// built-in tools.
var claudeTools = map[string][]string{
	"Bash":         {"bash"},
	"Read":         {"read", "grep", "find", "ls"},
	"Edit":         {"edit", "write"},
	"Write":        {"write"},
	"MultiEdit":    {"edit"},
	"NotebookEdit": {"edit"},
	"Grep":         {"grep"},
	"Glob":         {"find"},
	"LS":           {"ls"},
	"Agent":        {"agent"},
	"Task":         {"agent"},
	// Known to Claude Code, with no rein tool of their own: accepted so
	// shared settings files load, matching nothing.
	"WebFetch": nil, "WebSearch": nil, "TodoWrite": nil,
}

// pathTools are the tools whose rules hold paths; the rest hold commands
// (bash) or nothing.
var pathTools = map[string]bool{"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true, "Grep": true, "Glob": true, "LS": true,
	"read": true, "edit": true, "write": true, "grep": true, "find": true, "ls": true}

var toolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`) })

// PathBase says how a path rule's leading forms resolve.
type PathBase struct {
	// Root is what "/path" is relative to: the project holding the
	// settings file (the directory above .claude/ or .rein/), or the
	// file's own directory.
	Root string
	// Cwd is what "path" and "./path" are relative to: the workspace.
	Cwd string
	// Home is what "~/path" is relative to.
	Home string
}

// Bits of Rule.kinds.
const (
	kindSet uint8 = 1 << iota
	kindBash
	kindRead
	kindEdit
)

// ParseRule parses one rule. source names its file in errors.
func ParseRule(text string, effect Effect, source string, base PathBase) (Rule, error) {
	r := Rule{Text: text, Source: source, Effect: effect}
	bad := func(format string, args ...any) (Rule, error) {
		return Rule{}, &RuleError{Rule: text, Source: source, Msg: fmt.Sprintf(format, args...)}
	}
	t := strings.TrimSpace(text)
	if !utf8.ValidString(t) {
		return bad("the rule is not valid UTF-8 text")
	}
	if t == "" {
		return bad("the rule is empty; write a tool name such as Bash or Read(./src/**)")
	}
	name, spec := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return bad("missing the closing parenthesis; write Tool(specifier)")
		}
		name, spec = t[:i], t[i+1:len(t)-1]
		if strings.TrimSpace(spec) == "" {
			return bad("the parentheses are empty; drop them to match every %s call, or put a command or path inside", name)
		}
		if spec == "*" {
			spec = ""
		}
	} else if strings.ContainsAny(t, ")* ") {
		return bad("not a tool name; write Tool or Tool(specifier), such as Bash(npm run *)")
	}
	if !toolName().MatchString(name) {
		return bad("%q is not a tool name", name)
	}
	r.tool, r.spec = name, spec
	kinds := kindSet // r.kinds stays unset while matchesTool is asked
	if r.matchesTool("bash") {
		kinds |= kindBash
	}
	if r.matchesTool("read") || r.matchesTool("grep") || r.matchesTool("find") || r.matchesTool("ls") {
		kinds |= kindRead
	}
	if r.matchesTool("edit") || r.matchesTool("write") {
		kinds |= kindEdit
	}
	r.kinds = kinds
	switch {
	case spec == "":
	case name == "Bash" || name == "bash":
		if p, ok := strings.CutSuffix(spec, ":*"); ok {
			if strings.Contains(p, "*") {
				return bad("the legacy prefix form takes a plain prefix before :*; use Bash(%s) instead", strings.ReplaceAll(spec, ":*", " *"))
			}
			r.prefix = strings.TrimSpace(p)
		} else {
			r.re = wildcard(spec)
			r.lead, _, _ = strings.Cut(strings.TrimSuffix(spec, " *"), "*")
		}
	case pathTools[name]:
		g, err := pathGlobs(spec, base)
		if err != nil {
			return bad("%v", err)
		}
		r.globs = g
		for _, x := range g {
			lit := x
			if i := strings.IndexAny(x, "*?[{\\"); i >= 0 {
				lit = strings.TrimSuffix(x[:i], "/") // ** also matches nothing
			}
			r.lits = append(r.lits, lit)
		}
	case strings.HasPrefix(name, "mcp__"):
		return bad("MCP rules take no specifier; write %s or %s__TOOL", name, name)
	case name == "WebFetch" || name == "WebSearch":
		// Claude Code's domain:… specifiers: accepted, matching nothing.
	case agentRule(name):
		// Agent(explore), Task(Explore, reviewer): the agent types the
		// rule covers.
		for _, a := range strings.Split(spec, ",") {
			if a = strings.TrimSpace(a); a != "" {
				r.agents = append(r.agents, a)
			}
		}
		if len(r.agents) == 0 {
			return bad("name the agent types in the parentheses, such as Agent(explore)")
		}
	default:
		return bad("%s rules take no specifier here", name)
	}
	return r, nil
}

// wildcard compiles a Bash(…) pattern: * matches any text; a trailing
// " *" also matches nothing, so Bash(ls *) matches ls but not lsof.
func wildcard(spec string) *regexp.Regexp {
	trailing := strings.HasSuffix(spec, " *") && strings.Count(spec, "*") == 1
	if trailing {
		spec = strings.TrimSuffix(spec, " *")
	}
	parts := strings.Split(spec, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	expr := "^" + strings.Join(parts, ".*")
	if trailing {
		expr += "( .*)?"
	}
	return regexp.MustCompile("(?s)" + expr + "$")
}

// pathGlobs turns a gitignore-style rule path into absolute patterns.
func pathGlobs(spec string, base PathBase) ([]string, error) {
	p := spec
	var abs string
	switch {
	case strings.HasPrefix(p, "//"):
		abs = p[1:]
	case strings.HasPrefix(p, "~/") || p == "~":
		if base.Home == "" {
			return nil, fmt.Errorf("~ paths need a home directory, and none is known")
		}
		abs = filepath.ToSlash(base.Home) + strings.TrimPrefix(p, "~")
	case strings.HasPrefix(p, "/"):
		abs = filepath.ToSlash(base.Root) + p
	default:
		rel := strings.TrimPrefix(p, "./")
		// As in gitignore, a pattern without a slash (other than a
		// trailing one) matches at any depth.
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") && !strings.HasPrefix(p, "./") {
			rel = "**/" + rel
		}
		abs = filepath.ToSlash(base.Cwd) + "/" + rel
	}
	if !doublestar.ValidatePattern(abs) {
		return nil, fmt.Errorf("%q is not a valid path pattern", spec)
	}
	if strings.HasSuffix(abs, "/") {
		return []string{abs + "**"}, nil
	}
	// A pattern naming a directory also covers what is inside it.
	return []string{abs, abs + "/**"}, nil
}

// tools reports whether the rule names toolName (rein's name of the
// called tool).
func (r *Rule) matchesTool(tool string) bool {
	if r.tool == tool {
		return true
	}
	if tool == "bash" && r.kinds&kindSet != 0 {
		return r.kinds&kindBash != 0 // the most frequent question, answered by ParseRule
	}
	if ts, ok := claudeTools[r.tool]; ok {
		for _, t := range ts {
			if t == tool {
				return true
			}
		}
		return false
	}
	if strings.HasPrefix(r.tool, "mcp__") && strings.HasPrefix(tool, "mcp__") {
		srv := strings.TrimSuffix(r.tool, "__*")
		if strings.Count(srv, "__") == 1 { // mcp__server: all its tools
			return strings.HasPrefix(tool, srv+"__")
		}
	}
	return false
}

// Known reports whether the rule can match one of the given tool names
// (rein's names of the tools on offer).
func (r *Rule) Known(tools []string) bool {
	if ts, ok := claudeTools[r.tool]; ok && len(ts) == 0 {
		return false
	}
	for _, t := range tools {
		if r.matchesTool(t) {
			return true
		}
	}
	return strings.HasPrefix(r.tool, "mcp__") // servers may start later
}

// agentRule reports whether a rule's tool is the agent tool, by rein's
// name or Claude Code's.
func agentRule(name string) bool { return name == "Agent" || name == "Task" || name == "agent" }

// matchAgent reports whether the rule matches a spawn of the agent type
// typ; types compare without regard to case, so Claude Code's Explore
// is rein's explore.
func (r *Rule) matchAgent(typ string) bool {
	if r.spec == "" {
		return true
	}
	for _, a := range r.agents {
		if a == "*" || strings.EqualFold(a, typ) {
			return true
		}
	}
	return false
}

// matchCommand reports whether the rule matches one simple command.
func (r *Rule) matchCommand(cmd string) bool {
	if r.spec == "" {
		return true
	}
	if r.prefix != "" {
		return cmd == r.prefix || strings.HasPrefix(cmd, r.prefix) && len(cmd) > len(r.prefix) && unicode.IsSpace(rune(cmd[len(r.prefix)]))
	}
	if r.re != nil {
		return strings.HasPrefix(cmd, r.lead) && r.re.MatchString(cmd)
	}
	return false
}

// matchPath reports whether the rule matches an absolute, clean path.
func (r *Rule) matchPath(abs string) bool {
	if r.spec == "" {
		return true
	}
	p := filepath.ToSlash(abs)
	for i, g := range r.globs {
		if i < len(r.lits) && !strings.HasPrefix(p, r.lits[i]) {
			continue // the pattern's fixed start rules it out
		}
		if doublestar.MatchUnvalidated(g, p) {
			return true
		}
	}
	return false
}
