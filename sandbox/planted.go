package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Watch finds protected paths that a confined command creates. bwrap
// keeps an existing protected path read-only by binding it over itself,
// but no mount can stand where no file is yet: a command could create a
// missing .mcp.json or .claude/settings.json, which the next run would
// read. A Watch records which protected paths are missing before the
// command; Sweep, called after the command and everything it started
// have ended, moves aside those that appeared.
//
// A protected path whose parent directory was missing too (a .git made
// by `git init` or `git clone` during the command) is not swept: the
// whole tree is new, and moving its config would break it.
//
// Under Landlock, which cannot keep existing protected paths read-only,
// a Watch also holds a shield: what those paths held before the command,
// which Sweep puts back (see shield).
type Watch struct {
	workspace string
	missing   []string
	shield    *shield
	existing  []string
	swept     bool
}

// NewWatch starts a watch for the protected paths of p. It watches
// nothing outside WorkspaceWrite mode (read-only commands cannot create
// files, and mode off protects nothing).
func NewWatch(p Policy) *Watch {
	w := &Watch{workspace: p.Workspace}
	if p.Mode != WorkspaceWrite && p.Mode != "" {
		return w
	}
	for _, q := range p.protectedAll() {
		if _, err := os.Lstat(q); !errors.Is(err, os.ErrNotExist) {
			if err == nil {
				w.existing = append(w.existing, q)
			}
			continue
		}
		if _, err := os.Lstat(filepath.Dir(q)); err != nil {
			continue
		}
		w.missing = append(w.missing, q)
	}
	if Effective(p) == Landlock {
		w.shield = acquireShield(p.Workspace, w.existing)
	}
	return w
}

// Planted is a protected path a command created, and where Sweep moved
// it.
type Planted struct {
	// Path and MovedTo are relative to the workspace. MovedTo is ""
	// when a removed protected path was put back.
	Path, MovedTo string
	// Restored is set when the original was put back at Path (the
	// command's version, if any, is at MovedTo).
	Restored bool
}

// Sweep moves every watched path that now exists to a sibling named
// NAME.planted-TIME (nothing is deleted) and returns what it moved. An
// error names the paths it could not move; they are still in place.
//
// Under Landlock Sweep also puts back what the command changed in the
// existing protected paths. Call it once, after the command, also when
// the command could not start: a Watch under Landlock holds a snapshot
// shared with the commands that overlap it in time until then.
func (w *Watch) Sweep() ([]Planted, error) {
	if w == nil || w.swept {
		return nil, nil
	}
	w.swept = true
	var out []Planted
	var errs []error
	if w.shield != nil {
		restored, err := w.shield.restore(w.existing)
		w.shield.release()
		out = append(out, restored...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	stamp := time.Now().UTC().Format("20060102T150405")
	for _, q := range w.missing {
		if _, err := os.Lstat(q); err != nil {
			continue
		}
		dst := q + ".planted-" + stamp
		for i := 2; ; i++ {
			if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
				break
			}
			dst = fmt.Sprintf("%s.planted-%s-%d", q, stamp, i)
		}
		if err := os.Rename(q, dst); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: %s was created by a command and could not be moved aside: %w", w.rel(q), err))
			continue
		}
		out = append(out, Planted{Path: w.rel(q), MovedTo: w.rel(dst)})
	}
	return out, errors.Join(errs...)
}

func (w *Watch) rel(p string) string {
	if r, err := filepath.Rel(w.workspace, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
