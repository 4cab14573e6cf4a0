package prompt

import (
	"path/filepath"
	"slices"
	"strings"
)

// Invocation kinds.
const (
	InvokeTemplate = "template" // a .rein/prompts template or a .claude/commands command
	InvokeSkill    = "skill"    // a skill called by its name
)

// Invocation is what a typed "/name args" line turns into: the prompt to
// send, and what the prompt asks of the run.
type Invocation struct {
	Name, Kind string
	// Text is the prompt to send in place of the typed line; empty when
	// the skill's file could not be read (Notes say why).
	Text string
	// Notes say what was left empty or ignored, for the person typing.
	Notes []string
	// Model, when set, is the model to run this prompt with.
	Model string
	// AllowedTools, when set, are the tools of this prompt: for a command,
	// the only tools it may use; for a skill, tools it may use without
	// asking.
	AllowedTools []string
	// Source is the file the prompt came from (shown path).
	Source string
}

// Invoke resolves a typed line of the form "/name args" against the
// templates and commands, then the skills. ok is false when the line is
// not of that form or names neither, so the caller can try its own
// slash commands or send the line as it is.
func (f *Found) Invoke(line string) (Invocation, bool) {
	name, raw, ok := ParseCommand(line)
	if !ok {
		return Invocation{}, false
	}
	if t := f.Template(name); t != nil {
		text, notes := t.ExpandText(raw)
		return Invocation{Name: name, Kind: InvokeTemplate, Text: text, Notes: notes, Model: t.Model, AllowedTools: t.AllowedTools, Source: t.Shown}, true
	}
	i := slices.IndexFunc(f.Skills, func(s Skill) bool { return s.Name == name })
	if i < 0 {
		return Invocation{}, false
	}
	s := f.Skills[i]
	text, _, err := readText(osFS{}, s.Path, maxSkillFile)
	if err != nil {
		return Invocation{Name: name, Kind: InvokeSkill, Notes: []string{s.Shown + " " + err.Error()}, Source: s.Shown}, true
	}
	_, body, _ := splitFrontMatter(text)
	out := "Base directory for this skill: " + filepath.Dir(s.Path) + "\n\n" + strings.TrimLeft(expandClaude(body, raw), "\n")
	return Invocation{Name: name, Kind: InvokeSkill, Text: out, Model: s.Model, AllowedTools: s.AllowedTools, Source: s.Shown}, true
}
