package prompt

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Template sources: where a template was found decides how its
// arguments are numbered.
const (
	// SourceRein templates live in .rein/prompts: $1 is the first
	// argument, $@ and $ARGUMENTS all of them (pi's convention).
	SourceRein = "rein"
	// SourceClaude commands live in .claude/commands: $ARGUMENTS is the
	// argument text as typed, $0 (or $ARGUMENTS[0]) the first argument,
	// $1 the second (Claude Code's convention).
	SourceClaude = "claude"
)

// Template is a prompt template: a Markdown file whose body becomes the
// prompt when the user types /name args. Claude Code's custom commands
// are templates too; a command in a subfolder is called /folder:name.
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Path, Shown  string
	Body         string
	// Source is SourceRein or SourceClaude.
	Source string
	// Model, when set, is the model the prompt runs with; AllowedTools,
	// when set, are the only tools it may use (front matter "model" and
	// "allowed-tools").
	Model        string
	AllowedTools []string
}

// templateDir is a folder of templates and how its files are read.
type templateDir struct {
	dir, source string
}

// templateDirs returns the template folders in priority order: the
// launch folder's .rein/prompts and .claude/commands and its parents' up
// to the repository root, then the user's.
func (d *discovery) templateDirs() []templateDir {
	var out []templateDir
	stop := d.root
	if stop == "" {
		stop = d.workspace
	}
	for _, dir := range ancestors(d.launch, stop) {
		out = append(out, templateDir{filepath.Join(dir, ".rein", "prompts"), SourceRein})
		out = append(out, templateDir{filepath.Join(dir, ".claude", "commands"), SourceClaude})
	}
	if d.configDir != "" {
		out = append(out, templateDir{filepath.Join(d.configDir, "prompts"), SourceRein})
	}
	if d.claudeDir != "" {
		out = append(out, templateDir{filepath.Join(d.claudeDir, "commands"), SourceClaude})
	}
	return out
}

// templateFile is one Markdown file of a template folder and the name
// that calls it.
type templateFile struct{ name, path string }

// templateFiles lists a template folder: its *.md files, and for Claude
// Code's commands those of its subfolders too, named folder:name.
func (d *discovery) templateFiles(td templateDir) ([]templateFile, error) {
	var out []templateFile
	var walk func(dir, prefix string, depth int) error
	walk = func(dir, prefix string, depth int) error {
		entries, err := d.fsys.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if e.IsDir() {
				if td.source == SourceClaude && depth < 4 {
					if err := walk(filepath.Join(dir, e.Name()), prefix+e.Name()+":", depth+1); err != nil && !isAbsent(err) {
						d.noteKind("template", filepath.Join(dir, e.Name()), fmt.Sprintf("cannot be listed (%v); its commands are skipped", unwrapPath(err)))
					}
				}
				continue
			}
			name, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || name == "" {
				continue
			}
			out = append(out, templateFile{prefix + name, filepath.Join(dir, e.Name())})
		}
		return nil
	}
	return out, walk(td.dir, "", 0)
}

// findTemplates returns the templates sorted by name; a name found twice
// is taken from the folder of higher priority, with a note.
func (d *discovery) findTemplates() []Template {
	byName := map[string]Template{}
	for _, td := range d.templateDirs() {
		files, err := d.templateFiles(td)
		if err != nil {
			if !isAbsent(err) {
				d.noteKind("template", td.dir, fmt.Sprintf("cannot be listed (%v); its templates are skipped", unwrapPath(err)))
			}
			continue
		}
		for _, tf := range files {
			name, path := tf.name, tf.path
			if strings.ContainsAny(name, " \t") {
				d.noteKind("template", path, "has a space in its name, so /name cannot call it; skipped")
				continue
			}
			if _, err := statFile(d.fsys, path); err != nil {
				if err != errSkip {
					d.noteKind("template", path, err.Error())
				}
				continue
			}
			text, cut, err := readText(d.fsys, path, 256<<10)
			if err != nil {
				d.noteKind("template", path, err.Error())
				continue
			}
			if cut {
				d.noteKind("template", path, "is over 256 KB; skipped")
				continue
			}
			fm, body, err := splitFrontMatter(text)
			if err != nil && err != errNoFrontMatter {
				d.noteKind("template", path, err.Error()+"; the front matter is ignored and the text below it used")
			}
			if prev, dup := byName[name]; dup {
				d.noteKind("template", path, fmt.Sprintf("/%s is also defined by %s, which wins; this one is skipped", name, prev.Shown))
				continue
			}
			desc := fm.Description
			if desc == "" {
				desc = firstLine(body)
			}
			byName[name] = Template{Name: name, Description: oneLine(desc, 120), ArgumentHint: fm.ArgumentHint,
				Path: path, Shown: shortPath(path, d.workspace, d.home), Body: body,
				Source: td.source, Model: fm.Model, AllowedTools: fm.AllowedTools}
		}
	}
	out := make([]Template, 0, len(byName))
	for _, t := range byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			return l
		}
	}
	return ""
}

// ExpandText returns the template's body for the argument text as typed
// after /name, numbered by the template's Source (see SourceRein and
// SourceClaude), with notes on placeholders left empty.
func (t *Template) ExpandText(raw string) (string, []string) {
	if t.Source == SourceClaude {
		return expandClaude(t.Body, raw), nil
	}
	return t.Expand(SplitArgs(raw))
}

// Expand returns the template's body with its placeholders replaced: $1
// to $9 by the arguments, $@ and $ARGUMENTS by all of them joined with
// spaces. A placeholder without an argument becomes empty and gets a
// note; arguments given to a template without placeholders are appended
// after a blank line, so nothing typed is lost.
func (t *Template) Expand(args []string) (string, []string) {
	var (
		b      strings.Builder
		notes  []string
		used   bool
		body   = t.Body
		all    = strings.Join(args, " ")
		missed = map[int]bool{}
	)
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '$' || i+1 >= len(body) {
			b.WriteByte(c)
			continue
		}
		next := body[i+1]
		switch {
		case next == '@':
			b.WriteString(all)
			used = true
			i++
		case strings.HasPrefix(body[i+1:], "ARGUMENTS"):
			b.WriteString(all)
			used = true
			i += len("ARGUMENTS")
		case next >= '1' && next <= '9':
			n, _ := strconv.Atoi(string(next))
			used = true
			i++
			if n <= len(args) {
				b.WriteString(args[n-1])
			} else if !missed[n] {
				missed[n] = true
				notes = append(notes, fmt.Sprintf("/%s uses $%d but was given %d argument%s; $%d is left empty%s", t.Name, n, len(args), plural(len(args)), n, hint(t)))
			}
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if !used && len(args) > 0 {
		out = strings.TrimRight(out, "\n") + "\n\n" + all
	}
	return out, notes
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func hint(t *Template) string {
	if t.ArgumentHint == "" {
		return ""
	}
	return " (arguments: " + t.ArgumentHint + ")"
}

// SplitArgs splits a template's argument string like a shell would for
// words: on blanks, with "double" or 'single' quotes grouping words.
func SplitArgs(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		have  bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, have = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// ParseInvocation splits "/name args" into the template name and its
// arguments; ok is false when line is not of that form.
func ParseInvocation(line string) (name string, args []string, ok bool) {
	name, raw, ok := ParseCommand(line)
	if !ok {
		return "", nil, false
	}
	return name, SplitArgs(raw), true
}

// ParseCommand splits "/name args" into the name and the argument text
// as typed (trimmed); ok is false when line is not of that form.
func ParseCommand(line string) (name, raw string, ok bool) {
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, "/")
	if !ok || rest == "" {
		return "", "", false
	}
	name, raw, _ = strings.Cut(rest, " ")
	if name == "" || strings.ContainsAny(name, "/\t\n") {
		return "", "", false
	}
	return name, strings.TrimSpace(raw), true
}
