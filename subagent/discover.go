package subagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/prompt"
)

// Scopes of a definition, highest precedence first.
const (
	ScopeCLI     = "cli"
	ScopeProject = "project"
	ScopeUser    = "user"
	ScopeBuiltin = "builtin"
)

// SourceFlag is the Source of definitions given with --agents.
const SourceFlag = "--agents"

// MaxFileBytes bounds one definition file; a larger one is skipped.
// MaxFiles bounds the files read from one folder.
const (
	MaxFileBytes = 256 << 10
	MaxFiles     = 1000
)

// DiscoverOptions say where to look for agent definitions.
type DiscoverOptions struct {
	// Workdir is the workspace: its .rein/agents and .claude/agents are
	// read. "" reads no project definitions.
	Workdir string
	// Home is the user's home directory. "" reads no user definitions
	// unless ConfigDir or ClaudeDir are set.
	Home string
	// ConfigDir is rein's user config directory; "" means Home/.config/rein
	// and "-" none. Its agents/ folder is read.
	ConfigDir string
	// ClaudeDir is the user's Claude Code folder; "" means Home/.claude
	// and "-" none. Its agents/ folder is read.
	ClaudeDir string
	// JSON is the value of --agents: a JSON object of definitions by name,
	// each {"description", "prompt", "tools", …} with the front-matter
	// keys. "" gives none.
	JSON string
	// SmallModel is the model the built-in explore agent uses; "" means the
	// parent's model.
	SmallModel string
	// Tools are rein's names of the tools on offer, to warn about
	// definitions naming a tool that is none of them; nil means rein's
	// built-in tools (Claude Code names and mcp__ tools are always known).
	Tools []string
}

// Skipped is a definition that was not loaded.
type Skipped struct {
	// Path is the file, or "--agents" (then Name says which entry).
	Path string
	// Line is the line of the file the problem is on; 0 when not known.
	Line int
	// Name is the definition's name when it was read.
	Name   string
	Reason string
}

func (s Skipped) String() string {
	where := s.Path
	if s.Line > 0 {
		where = fmt.Sprintf("%s:%d", s.Path, s.Line)
	}
	if s.Path == SourceFlag && s.Name != "" {
		where = fmt.Sprintf("%s %q", s.Path, s.Name)
	}
	return where + ": " + s.Reason
}

// Shadow is a definition hidden by another of the same name from a
// source of higher precedence (or an earlier file of the same folder).
type Shadow struct {
	Name string
	// Winner and Loser are the Sources of the definition used and of the
	// one hidden.
	Winner, Loser string
}

func (s Shadow) String() string {
	return fmt.Sprintf("agent %q from %s is hidden by the one from %s", s.Name, s.Loser, s.Winner)
}

// Catalog is the set of definitions found, one per name. It is not
// changed after Discover returns and is safe for concurrent use.
type Catalog struct {
	// Skipped are the definitions that could not be loaded and why, in
	// the order found.
	Skipped []Skipped
	// Shadowed lists each definition hidden by a name clash, once.
	Shadowed []Shadow

	defs map[string]Definition
}

// Lookup returns the definition named name (the subagent_type a model
// passes). An exact match wins; otherwise the match ignores case, so
// Claude Code's "Explore" finds rein's explore.
func (c *Catalog) Lookup(name string) (Definition, bool) {
	if c == nil {
		return Definition{}, false
	}
	if d, ok := c.defs[name]; ok {
		return d, true
	}
	for n, d := range c.defs {
		if strings.EqualFold(n, name) {
			return d, true
		}
	}
	return Definition{}, false
}

// All returns every definition, sorted by name without regard to case.
func (c *Catalog) All() []Definition {
	if c == nil {
		return nil
	}
	out := make([]Definition, 0, len(c.defs))
	for _, d := range c.defs {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Definition) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Notes are the lines a front-end shows once about the catalog: each
// skipped definition, each name clash and each warning, prefixed
// "warning: " or "note: ".
func (c *Catalog) Notes() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, s := range c.Skipped {
		out = append(out, "warning: agent definition skipped: "+s.String())
	}
	for _, s := range c.Shadowed {
		out = append(out, "note: "+s.String())
	}
	for _, d := range c.All() {
		for _, w := range d.Warnings {
			out = append(out, fmt.Sprintf("warning: agent %q (%s): %s", d.Name, d.Source, w))
		}
	}
	return out
}

// Discover reads the definitions of every source, highest precedence
// first: --agents JSON, the project's .rein/agents/*.md and
// .claude/agents/*.md, the user's ~/.config/rein/agents/*.md and
// ~/.claude/agents/*.md, then the built-ins explore and general. A name
// defined twice keeps the first and records the clash in Shadowed; in
// one folder, files are read in name order. A file that cannot be read
// or whose front matter is broken is recorded in Skipped with the reason
// and loses nothing else. Discover returns an error only for a JSON
// value that is not a valid object of definitions: a flag the user
// typed is refused whole rather than half-used.
func Discover(o DiscoverOptions) (*Catalog, error) {
	c := &Catalog{defs: map[string]Definition{}}
	known := knownTool(o.Tools)
	if strings.TrimSpace(o.JSON) != "" {
		defs, err := parseJSON(o.JSON, known)
		if err != nil {
			return nil, err
		}
		for _, d := range defs {
			c.add(d)
		}
	}
	var dirs []struct{ dir, scope string }
	if o.Workdir != "" {
		dirs = append(dirs,
			struct{ dir, scope string }{filepath.Join(o.Workdir, ".rein", "agents"), ScopeProject},
			struct{ dir, scope string }{filepath.Join(o.Workdir, ".claude", "agents"), ScopeProject})
	}
	if d := userDir(o.ConfigDir, o.Home, ".config", "rein"); d != "" {
		dirs = append(dirs, struct{ dir, scope string }{filepath.Join(d, "agents"), ScopeUser})
	}
	if d := userDir(o.ClaudeDir, o.Home, ".claude"); d != "" {
		dirs = append(dirs, struct{ dir, scope string }{filepath.Join(d, "agents"), ScopeUser})
	}
	for _, dir := range dirs {
		c.readDir(dir.dir, dir.scope, known)
	}
	for _, d := range Builtins(o.SmallModel) {
		c.add(d)
	}
	return c, nil
}

func userDir(set, home string, elem ...string) string {
	switch {
	case set == "-":
		return ""
	case set != "":
		return set
	case home == "":
		return ""
	}
	return filepath.Join(append([]string{home}, elem...)...)
}

// add keeps d unless a definition of its name is already there.
func (c *Catalog) add(d Definition) {
	for n, have := range c.defs {
		if strings.EqualFold(n, d.Name) {
			c.Shadowed = append(c.Shadowed, Shadow{Name: d.Name, Winner: have.Source, Loser: d.Source})
			return
		}
	}
	c.defs[d.Name] = d
}

// readDir loads the *.md files of dir and its subfolders, as Claude
// Code does; a missing folder is no problem.
func (c *Catalog) readDir(dir, scope string, known func(string) bool) {
	if _, err := os.Stat(dir); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			c.Skipped = append(c.Skipped, Skipped{Path: dir, Reason: "the folder cannot be read: " + unwrapPath(err).Error()})
		}
		return
	}
	files := 0
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			c.Skipped = append(c.Skipped, Skipped{Path: path, Reason: "cannot be read: " + unwrapPath(err).Error()})
			return nil
		}
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			return nil
		}
		if files++; files > MaxFiles {
			c.Skipped = append(c.Skipped, Skipped{Path: dir, Reason: fmt.Sprintf("holds more than %d definition files; the rest are not read", MaxFiles)})
			return filepath.SkipAll
		}
		d, skip := readFile(path, known)
		if skip != nil {
			c.Skipped = append(c.Skipped, *skip)
			return nil
		}
		d.Scope = scope
		c.add(d)
		return nil
	})
}

// readFile reads one definition file.
func readFile(path string, known func(string) bool) (Definition, *Skipped) {
	d := Definition{Source: path}
	skip := func(line int, format string, a ...any) (Definition, *Skipped) {
		return Definition{}, &Skipped{Path: path, Line: line, Name: d.Name, Reason: fmt.Sprintf(format, a...)}
	}
	f, err := os.Open(path)
	if err != nil {
		return skip(0, "cannot be read: %v", unwrapPath(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return skip(0, "is not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return skip(0, "cannot be read: %v", unwrapPath(err))
	}
	if len(b) > MaxFileBytes {
		return skip(0, "is larger than %d KB; an agent definition is a short text", MaxFileBytes>>10)
	}
	b = bytes.ReplaceAll(bytes.TrimPrefix(b, []byte("\ufeff")), []byte("\r\n"), []byte("\n"))
	raw, body, err := prompt.ParseFrontMatter(string(b))
	if err != nil {
		var fe *prompt.FrontMatterError
		if !errors.As(err, &fe) {
			return skip(1, "%v", err)
		}
		lenient, ok := lenientFrontMatter(string(b))
		if !ok {
			return skip(fe.Line, "%s", fe.Msg)
		}
		raw = lenient
		d.Warnings = append(d.Warnings, fmt.Sprintf("the front matter is not valid YAML (line %d); it was read as plain key: value lines, as Claude Code does (quote values holding \": \" to make it valid)", fe.Line))
	}
	if err := decode(raw, &d, known); err != nil {
		return skip(keyLine(b, err), "%v", err)
	}
	if _, ok := raw["prompt"]; ok {
		d.Warnings = append(d.Warnings, "prompt in front matter is replaced by the file's body")
	}
	d.Prompt = strings.TrimSpace(body)
	return d, nil
}

// keyLine finds the line of the front-matter key an error names (the
// error text starts with it), or 1.
func keyLine(b []byte, err error) int {
	key, _, _ := strings.Cut(err.Error(), " ")
	for i, line := range strings.Split(string(b), "\n") {
		if i > 0 && strings.HasPrefix(line, "---") {
			break
		}
		if k, _, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return i + 1
		}
	}
	return 1
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// JSONError is an --agents value that cannot be used.
type JSONError struct {
	// Name is the definition at fault; "" when the value as a whole is.
	Name string
	Msg  string
}

func (e *JSONError) Error() string {
	if e.Name == "" {
		return "--agents: " + e.Msg
	}
	return fmt.Sprintf("--agents: agent %q %s", e.Name, e.Msg)
}

const jsonShape = `want {"NAME": {"description": "…", "prompt": "…", "tools": ["Read", "Grep"]}}`

// parseJSON reads the --agents value.
func parseJSON(s string, known func(string) bool) ([]Definition, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&top); err != nil {
		msg := err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = "the value is a JSON " + te.Value + ", not an object"
		}
		return nil, &JSONError{Msg: "not a valid JSON object of agent definitions: " + msg + "; " + jsonShape}
	}
	if dec.More() {
		return nil, &JSONError{Msg: "holds more than one JSON value; " + jsonShape}
	}
	if top == nil {
		return nil, &JSONError{Msg: "is null; " + jsonShape}
	}
	names := make([]string, 0, len(top))
	for n := range top {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Definition
	for _, name := range names {
		var raw map[string]any
		if err := json.Unmarshal(top[name], &raw); err != nil || raw == nil {
			return nil, &JSONError{Name: name, Msg: "is not a JSON object; " + jsonShape}
		}
		if n, ok := raw["name"].(string); ok && n != name {
			return nil, &JSONError{Name: name, Msg: fmt.Sprintf("has name %q, which differs from its key; drop the name field", n)}
		}
		raw["name"] = name
		d := Definition{Source: SourceFlag, Scope: ScopeCLI}
		if err := decode(raw, &d, known); err != nil {
			return nil, &JSONError{Name: name, Msg: err.Error()}
		}
		out = append(out, d)
	}
	return out, nil
}
