package prompt

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/tool"
)

// SkillToolName is the name of the tool that loads a skill.
const SkillToolName = "skill"

type skillArgs struct {
	Name string `json:"name" jsonschema:"The skill's name, as in the skills index."`
	File string `json:"file,omitempty" jsonschema:"A file of the skill's folder that its instructions name, relative to that folder. Default: SKILL.md."`
	Args string `json:"args,omitempty" jsonschema:"Arguments for the skill, as a user would type them after /name; they fill its $ARGUMENTS."`
}

// maxSkillFile caps what the skill tool returns from one file.
const maxSkillFile = 64 << 10

// SkillTool returns the skill tool: it returns a skill's instructions
// (SKILL.md without its front matter, and the list of the folder's other
// files), or one of those files. It reads only inside the skill's folder,
// so skills outside the workspace (the user's, a parent's) can be used
// by a model whose file tools are confined to the workspace. Skills are
// looked up in what the Builder currently uses, so a Refresh shows new
// ones. When the tool is offered, the skills index names it instead of
// paths.
func (b *Builder) SkillTool() *tool.Tool {
	t := tool.MustNew(SkillToolName, "Load a skill from the skills index: its instructions and the list of its other files, or one of those files. Use it before a task a skill covers.",
		func(ctx context.Context, call *tool.Call, in skillArgs) (tool.Result, error) {
			return b.loadSkill(in)
		})
	t.ReadOnly = true
	return t
}

func (b *Builder) loadSkill(in skillArgs) (tool.Result, error) {
	f := b.Found()
	i := slices.IndexFunc(f.Skills, func(s Skill) bool { return s.Name == in.Name })
	if i < 0 {
		names := make([]string, len(f.Skills))
		for j, s := range f.Skills {
			names[j] = s.Name
		}
		return tool.Result{}, fmt.Errorf("no skill is named %q; the skills are: %s", in.Name, strings.Join(names, ", "))
	}
	s := f.Skills[i]
	dir := filepath.Dir(s.Path)
	if in.File == "" || in.File == SkillFile {
		text, cut, err := readText(osFS{}, s.Path, maxSkillFile)
		if err != nil {
			return tool.Result{}, fmt.Errorf("%s %s", s.Shown, err)
		}
		_, body, _ := splitFrontMatter(text)
		if strings.Contains(body, "$") || in.Args != "" {
			body = expandClaude(body, in.Args)
		}
		out := strings.TrimSpace(body)
		if cut {
			out += fmt.Sprintf("\n[cut at %d bytes]", maxSkillFile)
		}
		if files := skillFiles(dir); len(files) > 0 {
			out += "\n\nFiles of this skill (load one with file): " + strings.Join(files, ", ")
		}
		return tool.Text(out), nil
	}
	p := filepath.Join(dir, filepath.FromSlash(in.File))
	real, err := filepath.EvalSymlinks(p)
	realDir, derr := filepath.EvalSymlinks(dir)
	if err != nil || derr != nil || !within(real, realDir) || filepath.IsAbs(in.File) {
		return tool.Result{}, fmt.Errorf("%q is not a file of the skill %s; its files are: %s", in.File, s.Name, strings.Join(skillFiles(dir), ", "))
	}
	if _, err := statFile(osFS{}, real); err != nil {
		return tool.Result{}, fmt.Errorf("%s %s", in.File, err)
	}
	text, cut, err := readText(osFS{}, real, maxSkillFile)
	if err != nil {
		return tool.Result{}, fmt.Errorf("%s %s", in.File, err)
	}
	if cut {
		text += fmt.Sprintf("\n[cut at %d bytes]", maxSkillFile)
	}
	return tool.Text(text), nil
}

// skillFiles lists the files of a skill folder other than SKILL.md,
// relative and sorted, at most 100.
func skillFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= 100 {
			return fs.SkipDir
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != SkillFile {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}
