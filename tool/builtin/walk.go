package builtin

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// walkEntry is one entry found by walk.
type walkEntry struct {
	rel string // relative to the workspace root, slash-separated
	abs string
	d   fs.DirEntry
}

// Verdicts of a walk override.
const (
	overrideNone    = 0
	overrideInclude = 1
	overrideExclude = -1
)

// walkOptions configures walk.
type walkOptions struct {
	// skipHidden leaves out names starting with a dot below the start.
	skipHidden bool
	// override, when set, decides about an entry before the hidden and
	// ignore rules, as ripgrep's --glob does: overrideInclude keeps it
	// whatever those rules say, overrideExclude drops it, overrideNone
	// leaves it to them.
	override func(rel string, isDir bool) int
	// hide, when set, reports the paths to leave out whatever else is
	// said (paths a deny rule covers); hidden counts them.
	hide   func(abs string) bool
	hidden *hiddenPaths
}

// hiddenPaths counts what a walk left out because a deny rule covers it.
type hiddenPaths struct {
	n           int
	first, last string // relative to the root
}

func (h *hiddenPaths) add(rel string) {
	if h.n == 0 {
		h.first = rel
	}
	h.n++
	h.last = rel
}

// seen reports whether rel was the last path added (ripgrep reports a
// file's lines one after another).
func (h *hiddenPaths) seen(rel string) bool { return h.n > 0 && h.last == rel }

// note is the line a result carries about hidden paths, or "".
func (h *hiddenPaths) note() string {
	if h == nil || h.n == 0 {
		return ""
	}
	if h.n == 1 {
		return fmt.Sprintf("[%s was not searched: a permission rule denies reading it]", h.first)
	}
	return fmt.Sprintf("[%d paths were not searched (%s and others): a permission rule denies reading them]", h.n, h.first)
}

// walk visits the tree under start (an absolute directory inside root)
// depth first, each directory's entries in byte order of their names, so
// paths come sorted component by component as ripgrep --sort path gives
// them. It follows no symbolic links, skips .git, and skips what the
// ignore files (.gitignore, .ignore, .rgignore, and .git/info/exclude at
// the root) of root, start and the directories between exclude. The
// start directory itself is never skipped. Directories that cannot be
// read are passed over. fn is called for every other entry; an error it
// returns ends the walk.
func walk(ctx context.Context, root, start string, o walkOptions, fn func(walkEntry) error) error {
	startRel := ""
	if start != root {
		startRel = rel(root, start)
	}
	var ig ignorer
	// The ignore files of the directories above start apply below it.
	if startRel != "" {
		ig = ig.enter(root, "", nil)
		parts := strings.Split(startRel, "/")
		for i := 1; i < len(parts); i++ {
			dir := strings.Join(parts[:i], "/")
			ig = ig.enter(filepath.Join(root, filepath.FromSlash(dir)), dir, nil)
		}
	}
	return walkDir(ctx, start, startRel, ig, o, fn)
}

func walkDir(ctx context.Context, abs, dirRel string, ig ignorer, o walkOptions, fn func(walkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable: passed over
	}
	ig = ig.enter(abs, dirRel, func(name string) bool {
		_, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		return found
	})
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		r := name
		if dirRel != "" {
			r = dirRel + "/" + name
		}
		isDir := e.IsDir()
		verdict := overrideNone
		if o.override != nil {
			verdict = o.override(r, isDir)
		}
		if verdict == overrideExclude {
			continue
		}
		if verdict == overrideNone && (o.skipHidden && name[0] == '.' || ig.ignored(r, isDir)) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		if o.hide != nil && o.hide(childAbs) {
			if o.hidden != nil {
				o.hidden.add(r)
			}
			continue
		}
		if err := fn(walkEntry{rel: r, abs: childAbs, d: e}); err != nil {
			return err
		}
		if isDir {
			if err := walkDir(ctx, childAbs, r, ig, o, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
