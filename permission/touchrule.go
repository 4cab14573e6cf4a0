package permission

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// How a rule meets what a call touches: which rules speak to reads,
// edits or commands, whether a rule covers a directory or a hard-linked
// copy of its file, and whether a program name is the same program.

// readKind and editKind report whether a path rule covers reading or
// changing files.
func (r *Rule) readKind() bool {
	if r.kinds&kindSet != 0 {
		return r.kinds&kindRead != 0
	}
	return r.matchesTool("read") || r.matchesTool("grep") || r.matchesTool("find") || r.matchesTool("ls")
}

func (r *Rule) editKind() bool {
	if r.kinds&kindSet != 0 {
		return r.kinds&kindEdit != 0
	}
	return r.matchesTool("edit") || r.matchesTool("write")
}

// bashKind reports whether the rule names bash.
func (r *Rule) bashKind() bool {
	if r.kinds&kindSet != 0 {
		return r.kinds&kindBash != 0
	}
	return r.matchesTool("bash")
}

// region returns the directory a path rule's pattern lies in: the
// pattern's text before its first wildcard, up to a slash.
func region(glob string) string {
	i := strings.IndexAny(glob, "*?[{")
	if i < 0 {
		return filepath.FromSlash(glob)
	}
	j := strings.LastIndexByte(glob[:i], '/')
	if j <= 0 {
		return string(filepath.Separator)
	}
	return filepath.FromSlash(glob[:j])
}

// coversBelow reports whether the rule matches something at or below
// dir on disk; unsure is set when the tree is too large to look through.
func (r *Rule) coversBelow(dir string) (hit, unsure bool) {
	for _, g := range r.globs {
		reg := region(g)
		var root string
		switch {
		case within(dir, reg):
			root = reg
		case within(reg, dir):
			root = dir
		default:
			continue
		}
		if _, err := os.Lstat(root); err != nil {
			continue
		}
		if r.matchPath(root) {
			return true, false
		}
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if n++; n > maxWalk {
				unsure = true
				return errWalkDone
			}
			if err == nil && r.matchPath(p) {
				hit = true
				return errWalkDone
			}
			return nil
		})
		if hit || unsure || err != nil && err != errWalkDone {
			return hit, unsure
		}
	}
	return false, false
}

// linked reports whether the file at abs is a hard link of a file the
// rule matches (same device and inode), for files with more than one
// name.
func (r *Rule) linked(abs string) bool {
	fi, err := os.Stat(abs)
	if err != nil {
		return false
	}
	return r.linkedInfo(fi)
}

// linkedInfo is linked for a file already looked at.
func (r *Rule) linkedInfo(fi os.FileInfo) bool {
	if fi == nil || !fi.Mode().IsRegular() || nlink(fi) < 2 {
		return false
	}
	for _, g := range r.globs {
		reg := region(g)
		n := 0
		found := false
		_ = filepath.WalkDir(reg, func(p string, d fs.DirEntry, err error) error {
			if n++; n > maxWalk {
				return errWalkDone
			}
			if err != nil || d.IsDir() || !r.matchPath(p) {
				return nil
			}
			if other, err := os.Stat(p); err == nil && os.SameFile(fi, other) {
				found = true
				return errWalkDone
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

// sameProgram returns the program names the file named by word (a path
// such as ./x) really is: where its symbolic links lead, and any program
// of the rules' families it is a copy or hard link of.
func sameProgram(word, cwd string, progs []string) []string {
	p := word
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	var out []string
	if real, err := filepath.EvalSymlinks(p); err == nil && filepath.Base(real) != filepath.Base(p) {
		out = append(out, filepath.Base(real))
	}
	for _, name := range progs {
		lp, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		other, err := os.Stat(lp)
		if err != nil {
			continue
		}
		if os.SameFile(fi, other) || other.Size() == fi.Size() && sameContent(p, lp) {
			out = append(out, name)
		}
	}
	return out
}

func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return ea != nil && eb != nil
		}
	}
}

// hitOf reports whether the path rule r covers the touch t (see
// Gate.pathHit); a tree too large to look through counts as covered.
func hitOf(r *Rule, t *touch, cache *probeCache) bool {
	if t.abs == "" {
		return false
	}
	if r.matchPath(t.abs) {
		return true
	}
	t.probe(cache)
	if t.real != "" && r.matchPath(t.real) {
		return true
	}
	if t.recursive {
		if h, u := r.coversBelow(t.abs); h || u {
			return true
		}
	}
	return r.linkedInfo(t.info)
}
