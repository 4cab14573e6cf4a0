package prompt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Context file names. Every folder from the filesystem root down to the
// launch folder may hold any of them; all that exist are used.
const (
	AgentsFile      = "AGENTS.md"
	ClaudeFile      = "CLAUDE.md"
	ClaudeLocalFile = "CLAUDE.local.md"
)

// Scopes of context files: where a file comes from decides what it may
// import (see imports.go).
const (
	// ScopeUser files live in the user's own folders (~/.config/rein,
	// ~/.claude) and apply to every project.
	ScopeUser = "user"
	// ScopeProject files are checked in with a project.
	ScopeProject = "project"
	// ScopeLocal files (CLAUDE.local.md) are the user's own notes for one
	// project, kept out of version control.
	ScopeLocal = "local"
)

// Default size caps of context files.
const (
	DefaultMaxFileBytes  = 16 << 10
	DefaultMaxTotalBytes = 32 << 10
)

// ContextFile is one instruction file of the session tier.
type ContextFile struct {
	// Path is the file's absolute path; Shown is the path shown above its
	// text (relative to the workspace, or with ~ for the home directory).
	Path, Shown string
	Text        string
	// Cut says the text was shortened to the size caps.
	Cut bool
	// Scope is ScopeUser, ScopeProject or ScopeLocal.
	Scope string
	// ImportedBy is the Shown path of the file whose @import brought this
	// one in, or "" for a file found by its name and place.
	ImportedBy string
}

// contextDirs returns the folders searched for context files, in prompt
// order: outermost (stop, or the filesystem root when stop is "") to
// innermost (dir).
func contextDirs(dir, stop string) []string {
	dirs := ancestors(dir, stop)
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// findContext returns the context files in prompt order, the order
// Claude Code uses for its CLAUDE.md family with rein's own files added:
//
//  1. the user's: rein's global AGENTS.md, ~/.claude/CLAUDE.md, then
//     ~/.claude/rules/**/*.md;
//  2. per folder from the filesystem root down to the launch folder:
//     AGENTS.md and CLAUDE.md (AGENTS.md first, unless CLAUDE.md imports
//     it), .claude/CLAUDE.md, .claude/rules/**/*.md, CLAUDE.local.md.
//
// Each file is followed by the files it imports with @path. A file
// reached twice (imported by two files, or through a symbolic link) is
// used once, at its first place.
func (d *discovery) findContext() []ContextFile {
	c := &contextSet{d: d}
	if d.configDir != "" {
		c.add(filepath.Join(d.configDir, AgentsFile), ScopeUser, nil)
	}
	if d.claudeDir != "" {
		c.add(filepath.Join(d.claudeDir, ClaudeFile), ScopeUser, nil)
		c.rules(filepath.Join(d.claudeDir, "rules"), ScopeUser)
	}
	for _, dir := range contextDirs(d.launch, "") {
		if _, err := d.fsys.Lstat(filepath.Join(dir, AgentsFile)); errors.Is(err, fs.ErrPermission) {
			d.note(dir, "cannot be read (permission denied); its context files are skipped")
			continue
		}
		agents, claude := filepath.Join(dir, AgentsFile), filepath.Join(dir, ClaudeFile)
		first, second := agents, claude
		if c.importsFile(claude, agents) {
			first, second = claude, agents
		}
		c.add(first, ScopeProject, nil)
		c.add(second, ScopeProject, nil)
		c.add(filepath.Join(dir, ".claude", ClaudeFile), ScopeProject, nil)
		c.rules(filepath.Join(dir, ".claude", "rules"), ScopeProject)
		c.add(filepath.Join(dir, ClaudeLocalFile), ScopeLocal, nil)
	}
	return c.out
}

// contextSet gathers context files for one discovery.
type contextSet struct {
	d     *discovery
	out   []ContextFile
	seen  []fs.FileInfo
	total int
}

// link is one step of an import chain, for cycle reports.
type link struct {
	fi         fs.FileInfo
	abs, shown string
}

// add reads one context file and appends it, then the files it imports.
// chain is the import chain that led here (nil for a file found by its
// name and place).
func (c *contextSet) add(path, scope string, chain []link) {
	d := c.d
	fi, err := statFile(d.fsys, path)
	if err == errSkip {
		if len(chain) > 0 {
			d.note(chain[len(chain)-1].abs, fmt.Sprintf("imports @%s, which does not exist; skipped", shortPath(path, d.workspace, d.home)))
		}
		return
	}
	if err != nil {
		d.note(path, err.Error())
		return
	}
	shown := shortPath(path, d.workspace, d.home)
	for i, l := range chain {
		if os.SameFile(fi, l.fi) {
			names := make([]string, 0, len(chain)-i+1)
			for _, l := range chain[i:] {
				names = append(names, l.shown)
			}
			names = append(names, shown)
			d.note(chain[len(chain)-1].abs, "has an import cycle ("+strings.Join(names, " → ")+"); the repeated file is not loaded again")
			return
		}
	}
	if sameAsAny(fi, c.seen) {
		return
	}
	c.seen = append(c.seen, fi)
	left := d.maxTotal - c.total
	if left <= 0 {
		d.note(path, fmt.Sprintf("left out: the context files already fill the %d-byte total cap", d.maxTotal))
		return
	}
	text, cut, err := readText(d.fsys, path, min(d.maxFile, left))
	if err != nil {
		d.note(path, err.Error())
		return
	}
	if cut {
		d.note(path, fmt.Sprintf("is %d bytes; only the first %d were used (caps: %d per file, %d in all)", fi.Size(), len(text), d.maxFile, d.maxTotal))
	}
	raw := text
	if d.filter != nil {
		text = d.filter(path, text)
	}
	if len(text) > 0 {
		cf := ContextFile{Path: path, Shown: shown, Text: text, Cut: cut, Scope: scope}
		if len(chain) > 0 {
			cf.ImportedBy = chain[len(chain)-1].shown
		}
		c.total += len(text)
		c.out = append(c.out, cf)
	}
	c.imports(path, raw, scope, append(chain[:len(chain):len(chain)], link{fi: fi, abs: path, shown: shown}))
}

// rules adds the Markdown files below a rules folder, depth first, in
// the order the filesystem lists them, which is the order Claude Code
// uses (a test runs it to check). A rule whose front matter names paths
// applies only to those files: it is kept aside for the read tool's note
// (see jit.go).
func (c *contextSet) rules(dir, scope string) {
	d := c.d
	list := d.fsys.ReadDir
	if lo, ok := d.fsys.(listingOrder); ok {
		list = lo.ReadDirUnsorted
	}
	var files []string
	var walk func(string, int)
	walk = func(dir string, depth int) {
		entries, err := list(dir)
		if err != nil {
			if !isAbsent(err) {
				d.note(dir, fmt.Sprintf("cannot be listed (%v); its rules are skipped", unwrapPath(err)))
			}
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(dir, name)
			if e.IsDir() && depth < 8 {
				walk(p, depth+1)
			} else if strings.HasSuffix(name, ".md") {
				files = append(files, p)
			}
		}
	}
	walk(dir, 0)
	for _, p := range files {
		if globs := c.conditional(p); len(globs) > 0 {
			d.rules = append(d.rules, Rule{Path: p, Shown: shortPath(p, d.workspace, d.home), Paths: globs, Scope: scope})
			continue
		}
		c.add(p, scope, nil)
	}
}

// conditional returns the paths globs of a rule file's front matter, or
// nil for a rule that always applies.
func (c *contextSet) conditional(path string) []string {
	text, _, err := readText(c.d.fsys, path, 4<<10)
	if err != nil {
		return nil
	}
	fm, _, err := splitFrontMatter(text)
	if err != nil {
		return nil
	}
	return fm.Paths
}

func sameAsAny(fi fs.FileInfo, seen []fs.FileInfo) bool {
	for _, s := range seen {
		if os.SameFile(fi, s) {
			return true
		}
	}
	return false
}

// Rule is a rules file that applies only to some paths: Claude Code's
// .claude/rules/*.md with "paths" in its front matter.
type Rule struct {
	Path, Shown string
	// Paths are the globs of the front matter, relative to the workspace.
	Paths []string
	Scope string
}
