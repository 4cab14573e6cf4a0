package builtin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/reinhq/rein/tool"
)

// FindDefaultLimit is how many paths find lists when no limit is given.
const FindDefaultLimit = 1000

type findArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob: without a slash it matches names at any depth, with one the path below path; ** spans folders, {a,b} and [abc] work."`
	Path    string `json:"path,omitempty" jsonschema:"Folder to search. Default: the workspace."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Maximum paths. Default 1000."`
}

// FindDetails is the Details of a find result.
type FindDetails struct {
	Found int `json:"found"` // all matches, listed or not
	Shown int `json:"shown"`
}

const findDescription = `Find workspace files and folders by glob (**/*_test.go, src/**/index.ts); lists paths sorted, folders ending in /. Skips what .gitignore ignores and .git; hidden files are included. At most limit paths and 15 KB are listed, then how many more matched.`

// Find returns the find tool: glob search over the tree, honouring
// ignore files.
func Find(w Workspace) *tool.Tool {
	t := tool.MustNew("find", findDescription, func(ctx context.Context, call *tool.Call, in findArgs) (tool.Result, error) {
		return find(ctx, w, in)
	})
	t.ReadOnly = true
	t.Idempotent = true
	return t
}

func find(ctx context.Context, w Workspace, in findArgs) (tool.Result, error) {
	pattern := strings.TrimPrefix(strings.TrimSpace(in.Pattern), "./")
	if pattern == "" {
		return tool.Result{}, errors.New("pattern is empty; give a glob such as **/*.go")
	}
	if in.Limit < 0 {
		return tool.Result{}, fmt.Errorf("limit must be 1 or more (got %d)", in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = FindDefaultLimit
	}
	if strings.HasPrefix(pattern, "/") {
		return tool.Result{}, fmt.Errorf("pattern %q is absolute; give a pattern relative to path (e.g. **/*.go), and the directory as path", in.Pattern)
	}
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return tool.Result{}, fmt.Errorf("pattern %q climbs out with ..; a pattern matches below path: give the directory to search as path (inside the workspace) and a pattern relative to it", in.Pattern)
	}
	if !doublestar.ValidatePattern(pattern) {
		return tool.Result{}, fmt.Errorf("invalid glob %q: check that brackets [] and braces {} are closed", in.Pattern)
	}
	root, err := w.root()
	if err != nil {
		return tool.Result{}, err
	}
	start, err := w.Resolve(in.Path)
	if err != nil {
		return tool.Result{}, err
	}
	fi, err := os.Stat(start)
	if errors.Is(err, fs.ErrNotExist) {
		return tool.Result{}, errors.New(w.notFound(start))
	}
	if err != nil {
		return tool.Result{}, fmt.Errorf("cannot search %s: %v", w.display(start), err)
	}
	if !fi.IsDir() {
		return tool.Result{}, fmt.Errorf("%s is a file, not a directory; give a directory as path", w.display(start))
	}
	startRel := ""
	if start != root {
		startRel = rel(root, start) + "/"
	}
	byName := !strings.Contains(pattern, "/")
	walkFrom := start
	if !byName {
		// Walk only below the pattern's fixed leading directories.
		if base, _ := doublestar.SplitPattern(pattern); base != "." && base != "" {
			dir := filepath.Join(start, filepath.FromSlash(base))
			if real, err := filepath.EvalSymlinks(dir); err == nil && real == dir && within(root, dir) {
				if st, err := os.Stat(dir); err == nil && st.IsDir() {
					walkFrom = dir
				}
			} else {
				walkFrom = ""
			}
		}
	}
	var found []string
	hide, hidden := tool.Hidden(ctx), &hiddenPaths{}
	if walkFrom != "" {
		err = walk(ctx, root, walkFrom, walkOptions{hide: hide, hidden: hidden}, func(e walkEntry) error {
			target := strings.TrimPrefix(e.rel, startRel)
			if byName {
				target = e.d.Name()
			}
			if !doublestar.MatchUnvalidated(pattern, target) {
				return nil
			}
			p := e.rel
			if e.d.IsDir() {
				p += "/"
			}
			found = append(found, p)
			return nil
		})
		if err != nil {
			return tool.Result{}, err
		}
	}
	total := len(found) // already sorted: walk visits in path order
	found = found[:min(total, limit)]
	capped := false
	for size, i := 0, 0; i < len(found); i++ {
		if size += len(found[i]) + 1; size > MaxResultBytes {
			found, capped = found[:i], true
			break
		}
	}
	d := FindDetails{Found: total, Shown: len(found)}
	if total == 0 {
		where := w.display(start)
		if where == "." {
			where = "the workspace"
		}
		msg := fmt.Sprintf("No files match %q in %s (ignored files and .git are not searched).", in.Pattern, where)
		if note := hidden.note(); note != "" {
			msg += "\n" + note
		}
		return tool.Result{Content: tool.Text(msg).Content, Details: d}, nil
	}
	var b strings.Builder
	for _, p := range found {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	switch {
	case capped:
		fmt.Fprintf(&b, "[%d of %d matches listed (the output is capped at about %d KB); narrow the pattern or path]\n", len(found), total, MaxResultBytes/1000)
	case total > len(found):
		fmt.Fprintf(&b, "[%d of %d matches listed; narrow the pattern or path, or raise limit]\n", len(found), total)
	}
	if note := hidden.note(); note != "" {
		b.WriteString(note + "\n")
	}
	return tool.Result{Content: tool.Text(strings.TrimSuffix(b.String(), "\n")).Content, Details: d}, nil
}
