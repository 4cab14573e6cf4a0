package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// maxReadRules bounds the rules readRules makes: a directory with more
// entries than this on the way to a hidden path is granted whole (its
// hidden paths then stay readable) rather than slowing every command.
const maxReadRules = 4096

// readRules returns the Landlock rules that let a command read and
// execute everything except the hidden paths. Landlock rules only add
// access, and a rule on a directory covers all beneath it, so nothing
// can be taken out of a granted tree: instead every directory on the way
// from / to a hidden path (its ancestors) is left ungranted, and each of
// their other entries is granted on its own, as a tree (directories) or
// a file. The ancestors themselves cannot then be listed (`ls ~` fails),
// though everything in them but the hidden entries can be read, run and
// walked through; entries created in them after the command starts are
// not readable. Hidden paths that are links are hidden at their targets
// too. With nothing to hide, the whole file system is granted.
func readRules(hidden []string) []landlock.Rule {
	hide := map[string]bool{}
	for _, h := range hidden {
		h = filepath.Clean(h)
		if !filepath.IsAbs(h) || h == "/" {
			continue
		}
		hide[h] = true
		if r, err := filepath.EvalSymlinks(h); err == nil && r != "/" {
			hide[r] = true
		}
	}
	if len(hide) == 0 {
		return []landlock.Rule{landlock.RODirs("/")}
	}
	ancestor := map[string]bool{}
	for h := range hide {
		for d := filepath.Dir(h); ; d = filepath.Dir(d) {
			ancestor[d] = true
			if d == "/" {
				break
			}
		}
	}
	var dirs, files []string
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		if len(dirs)+len(files)+len(ents) > maxReadRules {
			dirs = append(dirs, dir)
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch {
			case hide[p]:
			case ancestor[p] && e.IsDir():
				walk(p)
			case e.Type()&os.ModeSymlink != 0 && leadsToHidden(p, hide):
				// A rule on a link grants its target: one that leads to
				// a hidden path or an ancestor of one is left to the walk
				// of the real path.
			case isDir(p):
				dirs = append(dirs, p)
			default:
				files = append(files, p)
			}
		}
	}
	walk("/")
	var rules []landlock.Rule
	if len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	return rules
}

// isDir reports whether p is a directory once links are followed (a
// rule on a link applies to what it points to).
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// leadsToHidden reports whether the link p resolves to a hidden path, to
// a directory holding one, or to nothing that can be resolved.
func leadsToHidden(p string, hidden map[string]bool) bool {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true
	}
	for h := range hidden {
		if h == r || strings.HasPrefix(h, r+"/") || r == "/" {
			return true
		}
	}
	return false
}
