package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// Where a call's paths lead: absolute forms, links resolved, and
// whether a path lies within a directory.

func (g *Gate) abs(p string) string {
	if strings.HasPrefix(p, "~/") && g.o.Home != "" {
		p = filepath.Join(g.o.Home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.o.Workdir, p)
	}
	return filepath.Clean(p)
}

// lstatAbove returns the Lstat information of dir and of every
// directory above it, keyed as probePath keys them; nil when one is
// missing or not a directory.
func lstatAbove(dir string) map[string]os.FileInfo {
	out := map[string]os.FileInfo{}
	for d := dir; d != string(filepath.Separator) && d != "."; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			return nil
		}
		out[d] = fi
	}
	return out
}

func within(root, p string) bool {
	if root == "" {
		return false
	}
	if filepath.IsAbs(root) && filepath.IsAbs(p) {
		r, q := filepath.Clean(root), filepath.Clean(p)
		return q == r || r == string(filepath.Separator) || strings.HasPrefix(q, r+string(filepath.Separator))
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveLinks returns p with symbolic links resolved (as far as the
// path exists), or "" when that changes nothing.
func resolveLinks(p string) string {
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			full := filepath.Join(r, rest)
			if full == p {
				return ""
			}
			return full
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// realPath is where p leads once links are resolved, written under the
// workspace's own name when it is inside the workspace (so that a
// workspace reached through a link, such as macOS's /var, matches its
// rules), or "" when that is p itself.
func (g *Gate) realPath(p string) string {
	r := resolveLinks(p)
	if r == "" {
		return ""
	}
	if g.realWork != "" && within(g.realWork, r) {
		if rel, err := filepath.Rel(g.realWork, r); err == nil {
			r = filepath.Join(g.o.Workdir, rel)
		}
	}
	if r == p {
		return ""
	}
	return r
}
