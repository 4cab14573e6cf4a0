package permission

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// Protected paths are files that can run code or steer the agent:
// repository data and config (.git/, .git/config, .git/hooks), rein's and
// Claude Code's settings, hooks and config (.rein/, .claude/), MCP server
// lists (.mcp.json), instruction files (AGENTS.md, CLAUDE.md), the user's
// git and rein config. Writing one, or renaming or deleting a directory
// holding one, always asks.

// protectedDirs are directory names everything under which is
// protected; protectedFiles are file names protected wherever they are.
var (
	protectedDirs  = set(".git", ".rein", ".claude")
	protectedFiles = set(".mcp.json", "AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", ".gitconfig")
)

// protected returns the protected path s would change, or "".
func (g *Gate) protected(s *subject) string {
	switch {
	case s.tool == "write" || s.tool == "edit":
		if g.isProtected(s.path) {
			return g.show(s.path)
		}
		if s.real != "" && g.isProtected(s.real) {
			return s.real
		}
	case s.bash != nil:
		for i := range s.touches {
			t := &s.touches[i]
			if !t.write || t.maybe || t.abs == "" {
				continue
			}
			if g.isProtected(t.abs) {
				return g.show(t.abs)
			}
			if t.probe(&s.probes); t.real != "" && g.isProtected(t.real) {
				return t.real
			}
			if !t.parent {
				continue
			}
			if p := g.holdsProtected(t.abs); p != "" {
				return g.show(p)
			}
		}
	}
	return ""
}

func (g *Gate) show(p string) string {
	if rel, err := filepath.Rel(g.o.Workdir, p); err == nil && within(g.o.Workdir, p) {
		return rel
	}
	return p
}

// isProtected reports whether abs is a protected path.
func (g *Gate) isProtected(abs string) bool {
	rest := filepath.ToSlash(abs)
	for rest != "" {
		p, more, last := rest, "", true
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			p, more, last = rest[:i], rest[i+1:], false
		}
		if protectedDirs[p] {
			return true
		}
		if last && protectedFiles[p] {
			return true
		}
		if p == ".config" && !last {
			if next, _, _ := strings.Cut(more, "/"); next == "rein" || next == "git" {
				return true // the user's rein and git config
			}
		}
		rest = more
	}
	return false
}

// maxHoldWalk bounds the entries holdsProtected looks at.
const maxHoldWalk = 5000

// holdsProtected returns a protected path below the directory dir, so
// that renaming or deleting a parent (mv .git x, mv src y) counts as
// changing it, or "".
func (g *Gate) holdsProtected(dir string) string {
	n, found := 0, ""
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return errWalkDone
			}
			return nil
		}
		if p == dir {
			if !d.IsDir() {
				return errWalkDone
			}
			return nil
		}
		if n++; n > maxHoldWalk {
			return errWalkDone
		}
		if protectedDirs[d.Name()] || protectedFiles[d.Name()] {
			found = p
			return errWalkDone
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		return nil
	})
	return found
}
