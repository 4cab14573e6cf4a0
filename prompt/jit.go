package prompt

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// jitState remembers, per Builder, which folders below the workspace
// were looked at for context files and which files were pointed to.
type jitState struct {
	found   map[string][]string // folder → its context files
	pointed map[string]bool
	rules   map[string]bool // conditional rules already added
}

// Middleware returns tool middleware that adds a short note to the
// result of a successful read of a file below the workspace when a
// folder on the way to it holds a context file (AGENTS.md, else
// CLAUDE.md) that the prompt does not carry. Each file is pointed to once
// until Refresh. The file itself is not loaded: the model reads it when
// it needs it.
func (b *Builder) Middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			res := next(ctx, call)
			if call.Name != "read" || res.IsError {
				return res
			}
			var args struct {
				Path string `json:"path"`
			}
			if json.Unmarshal(call.Args, &args) != nil || args.Path == "" {
				return res
			}
			if files := b.nested(args.Path); len(files) > 0 {
				res.Content = append(res.Content[:len(res.Content):len(res.Content)], llm.Text(jitNote(files)))
				res.Notes = append(res.Notes[:len(res.Notes):len(res.Notes)], "prompt:context-file")
			}
			if text := b.matchingRules(args.Path); text != "" {
				res.Content = append(res.Content[:len(res.Content):len(res.Content)], llm.Text(text))
				res.Notes = append(res.Notes[:len(res.Notes):len(res.Notes)], "prompt:rule")
			}
			return res
		}
	}
}

func jitNote(files []string) string {
	if len(files) == 1 {
		return "[Note: " + files[0] + " has instructions for the files in its folder; read it before you change files there.]"
	}
	return "[Note: " + strings.Join(files, ", ") + " have instructions for the files in their folders; read them before you change files there.]"
}

// nested returns the context files, shown relative to the workspace,
// between the workspace (excluded: the prompt carries its files) and the
// folder of path that were not pointed to yet, outermost first.
func (b *Builder) nested(path string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.foundLocked()
	ws := f.Workspace
	if !filepath.IsAbs(path) {
		path = filepath.Join(ws, path)
	}
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if dir == ws || !within(dir, ws) {
		return nil
	}
	b.jit.init()
	var out []string
	for _, d := range contextDirs(dir, ws)[1:] {
		if f.Launch != "" && within(f.Launch, d) {
			continue // loaded up front
		}
		ps, ok := b.jit.found[d]
		if !ok {
			ps = nestedFiles(d)
			b.jit.found[d] = ps
		}
		for _, p := range ps {
			if b.jit.pointed[p] {
				continue
			}
			b.jit.pointed[p] = true
			rel, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

func (j *jitState) init() {
	if j.found == nil {
		*j = jitState{found: map[string][]string{}, pointed: map[string]bool{}, rules: map[string]bool{}}
	}
}

// nestedFiles returns the usable context files of a folder.
func nestedFiles(dir string) []string {
	var out []string
	for _, name := range []string{AgentsFile, ClaudeFile, filepath.Join(".claude", ClaudeFile), ClaudeLocalFile} {
		p := filepath.Join(dir, name)
		if _, err := statFile(osFS{}, p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// matchingRules returns the text of the conditional rules whose globs
// match path and that were not added yet, or "".
func (b *Builder) matchingRules(path string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.foundLocked()
	if len(f.Rules) == 0 {
		return ""
	}
	b.jit.init()
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(f.Workspace, abs)
	}
	rel, err := filepath.Rel(f.Workspace, filepath.Clean(abs))
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	rel = filepath.ToSlash(rel)
	var sb strings.Builder
	for _, r := range f.Rules {
		if b.jit.rules[r.Path] || !matchAny(r.Paths, rel) {
			continue
		}
		b.jit.rules[r.Path] = true
		text, _, err := readText(osFS{}, r.Path, DefaultMaxFileBytes)
		if err != nil {
			continue
		}
		_, body, _ := splitFrontMatter(text)
		fmt.Fprintf(&sb, "[Rule %s applies to %s:]\n%s\n", r.Shown, rel, strings.TrimSpace(body))
	}
	return strings.TrimRight(sb.String(), "\n")
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(strings.TrimPrefix(g, "./"), rel); ok {
			return true
		}
	}
	return false
}
