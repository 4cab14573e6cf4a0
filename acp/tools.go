package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/llm"
)

// callState is what a tool call's later updates need from its start.
type callState struct {
	name  string
	kind  sdk.ToolKind
	title string
	path  string // the file a read, write or edit names (absolute)
	args  json.RawMessage
	// before is the file a write replaces, read at the call's start for
	// its diff; hadFile says it existed.
	before  string
	hadFile bool
	started bool // in_progress was sent
}

// callArgs are the argument fields the mapping looks at.
type callArgs struct {
	Path    string `json:"path"`
	Offset  int    `json:"offset"`
	Command string `json:"command"`
	Pattern string `json:"pattern"`
	Content string `json:"content"`
	Name    string `json:"name"`
	URL     string `json:"url"`
	Edits   []struct {
		OldText string `json:"old_text"`
		NewText string `json:"new_text"`
	} `json:"edits"`
}

// describe maps a tool call onto ACP: its kind, a title that names the
// command or the file, and the locations it touches. cwd resolves
// relative paths.
func describe(call llm.Content, cwd string) (*callState, []sdk.ToolCallLocation) {
	var a callArgs
	_ = json.Unmarshal(call.Arguments, &a)
	c := &callState{name: call.Name, args: call.Arguments}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cwd, p)
	}
	var locs []sdk.ToolCallLocation
	loc := func(p string, line int) {
		if p == "" {
			return
		}
		l := sdk.ToolCallLocation{Path: abs(p)}
		if line > 0 {
			l.Line = sdk.Ptr(line)
		}
		locs = append(locs, l)
	}
	switch call.Name {
	case "read":
		c.kind, c.title, c.path = sdk.ToolKindRead, "Read "+a.Path, abs(a.Path)
		loc(a.Path, a.Offset)
	case "write":
		c.kind, c.title, c.path = sdk.ToolKindEdit, "Write "+a.Path, abs(a.Path)
		loc(a.Path, 0)
	case "edit":
		c.kind, c.title, c.path = sdk.ToolKindEdit, "Edit "+a.Path, abs(a.Path)
		loc(a.Path, 0)
	case "bash":
		c.kind, c.title = sdk.ToolKindExecute, oneLine(a.Command)
	case "grep":
		c.kind, c.title = sdk.ToolKindSearch, fmt.Sprintf("grep %q %s", a.Pattern, a.Path)
		loc(a.Path, 0)
	case "find":
		c.kind, c.title = sdk.ToolKindSearch, fmt.Sprintf("find %s %s", a.Pattern, a.Path)
		loc(a.Path, 0)
	case "ls":
		c.kind, c.title = sdk.ToolKindRead, "List "+or(a.Path, ".")
		loc(or(a.Path, "."), 0)
	case "skill":
		c.kind, c.title = sdk.ToolKindRead, "Skill "+a.Name
	case "work_complete":
		c.kind, c.title = sdk.ToolKindThink, "Work complete"
	case "work_item_add", "work_item_update", "work_item_list", "TodoWrite":
		c.kind, c.title = sdk.ToolKindThink, "Plan: "+call.Name
	case "agent", "task":
		c.kind, c.title = sdk.ToolKindThink, "Agent: "+oneLine(string(call.Arguments))
	default:
		c.kind, c.title = guessKind(call.Name), call.Name
		if a.URL != "" {
			c.title += " " + a.URL
		} else if a.Path != "" {
			c.title += " " + a.Path
			loc(a.Path, 0)
		}
	}
	c.title = strings.TrimSpace(c.title)
	if c.title == "" {
		c.title = call.Name
	}
	return c, locs
}

// guessKind reads the kind of an MCP or other tool from the words of
// its name.
func guessKind(name string) sdk.ToolKind {
	n := strings.ToLower(name)
	if i := strings.LastIndex(n, "__"); i >= 0 {
		n = n[i+2:]
	}
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(n, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("fetch", "http", "url", "web", "browse", "download"):
		return sdk.ToolKindFetch
	case has("delete", "remove", "unlink", "rm_"):
		return sdk.ToolKindDelete
	case has("move", "rename", "mv_"):
		return sdk.ToolKindMove
	case has("search", "grep", "find", "query", "glob"):
		return sdk.ToolKindSearch
	case has("exec", "run", "shell", "command", "bash"):
		return sdk.ToolKindExecute
	case has("write", "edit", "update", "create", "patch", "replace", "insert"):
		return sdk.ToolKindEdit
	case has("read", "get", "list", "show", "view", "open"):
		return sdk.ToolKindRead
	case has("think", "plan", "reason"):
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// capture reads the file a write is about to replace, for the diff; it
// reads only regular files inside root, up to 1 MiB.
func (c *callState) capture(root string) {
	if c.name != "write" || c.path == "" {
		return
	}
	rel, err := filepath.Rel(root, c.path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return
	}
	defer r.Close()
	fi, err := r.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return
	}
	b, err := r.ReadFile(rel)
	if err == nil {
		c.before, c.hadFile = string(b), true
	}
}

// diffs returns the diff content of an edit or write call.
func (c *callState) diffs() []sdk.ToolCallContent {
	var a callArgs
	if json.Unmarshal(c.args, &a) != nil || c.path == "" {
		return nil
	}
	switch c.name {
	case "edit":
		out := make([]sdk.ToolCallContent, 0, len(a.Edits))
		for _, e := range a.Edits {
			out = append(out, sdk.ToolDiffContent(c.path, e.NewText, e.OldText))
		}
		return out
	case "write":
		if c.hadFile {
			return []sdk.ToolCallContent{sdk.ToolDiffContent(c.path, a.Content, c.before)}
		}
		return []sdk.ToolCallContent{sdk.ToolDiffContent(c.path, a.Content)}
	}
	return nil
}

// resultContent turns a tool result's blocks into ACP content.
func resultContent(blocks []llm.Content) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	for _, b := range blocks {
		switch b.Type {
		case llm.ContentText:
			if b.Text != "" {
				out = append(out, sdk.ToolContent(sdk.TextBlock(b.Text)))
			}
		case llm.ContentImage:
			out = append(out, sdk.ToolContent(sdk.ImageBlock(b.Data, b.MIMEType)))
		}
	}
	return out
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 200 {
		s = s[:199] + "…"
	}
	return s
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
