package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MaxImportDepth is how many @imports deep a context file's imports are
// followed (a file, the files it imports, theirs …), as in Claude Code.
const MaxImportDepth = 5

// parseImports returns the @path references of a context file's text in
// order: an @ at the start of a line or after a blank, followed by a
// path ("\ " escapes a space). Code spans and fenced code blocks are
// skipped, and so are words that do not look like paths (@alice has no
// dot, slash or tilde), so mentions and e-mail addresses stay text.
func parseImports(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		inCode := false
		for i := 0; i < len(line); i++ {
			switch ch := line[i]; {
			case ch == '`':
				inCode = !inCode
			case ch == '@' && !inCode && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
				j := i + 1
				var b strings.Builder
				for j < len(line) && line[j] != ' ' && line[j] != '\t' {
					if line[j] == '\\' && j+1 < len(line) && line[j+1] == ' ' {
						b.WriteByte(' ')
						j += 2
						continue
					}
					b.WriteByte(line[j])
					j++
				}
				if p := b.String(); looksLikePath(p) {
					out = append(out, p)
				}
				i = j - 1
			}
		}
	}
	return out
}

func looksLikePath(p string) bool {
	return p != "" && strings.ContainsAny(p, "./~") && !strings.Contains(p, "@")
}

// resolveImport returns the absolute path an import names: relative to
// the importing file's folder, ~ for the home directory, or absolute.
func (d *discovery) resolveImport(ref, from string) string {
	switch {
	case ref == "~" || strings.HasPrefix(ref, "~/"):
		if d.home == "" {
			return ""
		}
		return filepath.Join(d.home, ref[1:])
	case filepath.IsAbs(ref):
		return filepath.Clean(ref)
	}
	return filepath.Join(filepath.Dir(from), ref)
}

// importTree returns the folder a file's imports must stay in: none for
// the user's own files; the repository for a project file inside it;
// the file's own folder otherwise. A cloned repository's CLAUDE.md can
// therefore not pull ~/.ssh/id_rsa or /etc/passwd into the prompt that
// is sent to the provider.
func (d *discovery) importTree(from, scope string) string {
	if scope == ScopeUser {
		return ""
	}
	if d.root != "" && within(from, d.root) {
		return d.root
	}
	return filepath.Dir(from)
}

// imports adds the files the text of from imports, after it.
func (c *contextSet) imports(from, text, scope string, chain []link) {
	d := c.d
	refs := parseImports(text)
	if len(refs) == 0 {
		return
	}
	if len(chain) > MaxImportDepth {
		d.note(from, fmt.Sprintf("imports files more than %d levels deep; @%s and the others at this depth are not loaded", MaxImportDepth, refs[0]))
		return
	}
	tree := d.importTree(from, scope)
	for _, ref := range refs {
		p := d.resolveImport(ref, from)
		if p == "" {
			d.note(from, "imports @"+ref+", but there is no home directory; skipped")
			continue
		}
		if tree != "" && !d.inside(p, tree) {
			d.note(from, fmt.Sprintf("imports @%s, which is outside %s; a project's files may import only files inside it, so it is not loaded (import it from ~/.claude/CLAUDE.md instead)", ref, shortPath(tree, d.workspace, d.home)))
			continue
		}
		c.add(p, scope, chain)
	}
}

// inside reports whether path, with symbolic links resolved where it
// exists, is inside tree.
func (d *discovery) inside(path, tree string) bool {
	real, err := d.fsys.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	return within(real, d.real(tree)) || within(path, tree) && err != nil
}

// importsFile reports whether the context file from imports target
// directly (so that AGENTS.md follows a CLAUDE.md that is "@AGENTS.md"
// plus more, instead of preceding it).
func (c *contextSet) importsFile(from, target string) bool {
	if _, err := statFile(c.d.fsys, from); err != nil {
		return false
	}
	text, _, err := readText(c.d.fsys, from, c.d.maxFile)
	if err != nil {
		return false
	}
	tfi, err := c.d.fsys.Stat(target)
	if err != nil {
		return false
	}
	for _, ref := range parseImports(text) {
		if fi, err := c.d.fsys.Stat(c.d.resolveImport(ref, from)); err == nil && os.SameFile(fi, tfi) {
			return true
		}
	}
	return false
}
