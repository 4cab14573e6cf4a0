package prompt

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// SkillFile is the file that makes a folder a skill.
const SkillFile = "SKILL.md"

// skillFolders are the folders, relative to the workspace and each of its
// parents, that hold skills, in priority order.
var skillFolders = []string{".rein/skills", ".agents/skills", ".claude/skills"}

// Skill is one skill found: its index entry. The body stays on disk until
// the model reads it.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md file; Shown is the path shown in the index.
	Path, Shown string
	// AllowedTools are the tools the skill may use without asking while
	// it runs (front matter "allowed-tools"); Model the model it asks for.
	AllowedTools []string
	Model        string
}

// skillRoot is a folder of skills and the tree its skills must stay in
// ("" when symbolic links out of it are allowed: the user's own folders).
type skillRoot struct{ dir, tree string }

// skillRoots returns the skill folders in priority order: the
// workspace's, then its parents' up to the repository root, then the
// user's, then extra folders.
func (d *discovery) skillRoots() []skillRoot {
	var out []skillRoot
	for _, dir := range ancestors(d.workspace, d.root) {
		tree := d.root
		if tree == "" {
			tree = dir
		}
		for _, f := range skillFolders {
			out = append(out, skillRoot{dir: filepath.Join(dir, filepath.FromSlash(f)), tree: tree})
		}
	}
	if d.configDir != "" {
		out = append(out, skillRoot{dir: filepath.Join(d.configDir, "skills")})
	}
	if d.claudeDir != "" {
		out = append(out, skillRoot{dir: filepath.Join(d.claudeDir, "skills")})
	}
	for _, dir := range d.extraSkills {
		out = append(out, skillRoot{dir: dir})
	}
	return out
}

// findSkills returns the skills sorted by name. A name found twice is
// taken from the folder of higher priority, with a note.
func (d *discovery) findSkills() []Skill {
	byName := map[string]Skill{}
	for _, r := range d.skillRoots() {
		entries, err := d.fsys.ReadDir(r.dir)
		if err != nil {
			if !isAbsent(err) {
				d.noteKind("skill", r.dir, fmt.Sprintf("cannot be listed (%v); its skills are skipped", unwrapPath(err)))
			}
			continue
		}
		for _, e := range entries {
			s, ok := d.skill(r, e)
			if !ok {
				continue
			}
			if prev, dup := byName[s.Name]; dup {
				d.noteKind("skill", s.Path, fmt.Sprintf("skill %q is also defined by %s, which wins; this one is skipped", s.Name, prev.Shown))
				continue
			}
			byName[s.Name] = s
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// skill reads one entry of a skills folder.
func (d *discovery) skill(r skillRoot, e fs.DirEntry) (Skill, bool) {
	dir := filepath.Join(r.dir, e.Name())
	if strings.HasPrefix(e.Name(), ".") {
		return Skill{}, false
	}
	if e.Type()&fs.ModeSymlink != 0 {
		target, err := d.fsys.EvalSymlinks(dir)
		if err != nil {
			d.noteKind("skill", dir, fmt.Sprintf("is a symbolic link that cannot be followed (%v); skipped", unwrapPath(err)))
			return Skill{}, false
		}
		if r.tree != "" && !within(target, d.real(r.tree)) {
			d.noteKind("skill", dir, fmt.Sprintf("is a symbolic link to %s, outside %s; skipped", target, r.tree))
			return Skill{}, false
		}
		fi, err := d.fsys.Stat(target)
		if err != nil || !fi.IsDir() {
			return Skill{}, false
		}
	} else if !e.IsDir() {
		return Skill{}, false
	}
	path := filepath.Join(dir, SkillFile)
	if _, err := statFile(d.fsys, path); err != nil {
		if err != errSkip {
			d.noteKind("skill", path, err.Error())
		} else {
			d.noteKind("skill", dir, "has no "+SkillFile+"; skipped")
		}
		return Skill{}, false
	}
	text, _, err := readText(d.fsys, path, 64<<10)
	if err != nil {
		d.noteKind("skill", path, err.Error())
		return Skill{}, false
	}
	fm, _, err := splitFrontMatter(text)
	if err != nil {
		d.noteKind("skill", path, err.Error()+"; skipped (it needs name and description)")
		return Skill{}, false
	}
	name := fm.Name
	if name == "" {
		name = e.Name()
		d.noteKind("skill", path, fmt.Sprintf("has no name in its front matter; using the folder name %q", name))
	}
	if !validSkillName(name) {
		d.noteKind("skill", path, fmt.Sprintf("has the name %q; a skill name is 1–64 lowercase letters, digits and hyphens; skipped", name))
		return Skill{}, false
	}
	if fm.Description == "" {
		d.noteKind("skill", path, "has no description in its front matter; skipped (the index shows the description)")
		return Skill{}, false
	}
	return Skill{Name: name, Description: oneLine(fm.Description, 200), Path: path, Shown: shortPath(path, d.workspace, d.home),
		AllowedTools: fm.AllowedTools, Model: fm.Model}, true
}

func validSkillName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
