package prompt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// DiscoverOptions say where to look.
type DiscoverOptions struct {
	// Workspace is the folder the agent works in (made absolute).
	Workspace string
	// ConfigDir is the user's rein folder, holding the global AGENTS.md,
	// skills/ and prompts/. Empty means $XDG_CONFIG_HOME/rein, else
	// ~/.config/rein; "-" means none.
	ConfigDir string
	// Home is the home directory, shown as ~ in paths; empty means the
	// current user's, "-" none.
	Home string
	// ClaudeDir is the user's Claude Code folder, holding CLAUDE.md,
	// rules/, commands/ and skills/. Empty means $CLAUDE_CONFIG_DIR, else
	// ~/.claude; "-" means none.
	ClaudeDir string
	// Cwd is the folder rein was started in. The context files of every
	// folder from the filesystem root down to it are loaded up front, as
	// Claude Code does; empty, or outside Workspace, means Workspace.
	Cwd string
	// SkillDirs are extra skill folders, searched after the others.
	SkillDirs []string
	// MaxFileBytes and MaxTotalBytes cap the context files, per file and
	// in all; zero means DefaultMaxFileBytes and DefaultMaxTotalBytes.
	MaxFileBytes, MaxTotalBytes int
	// Filter, when set, sees the text of every context file before it
	// enters the prompt and returns the text to use (an injection scanner
	// replaces a suspicious file with a notice, say). It is the one place
	// context file text passes through.
	Filter func(path, text string) string
	// Now gives the session's start date; nil means time.Now.
	Now func() time.Time
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string

	fsys fileSystem
}

// Found is what Discover found for a workspace. It is a value: nothing in
// it changes after Discover returns.
type Found struct {
	// Workspace is the absolute workspace; Root the repository root it is
	// in, or "" outside a repository.
	Workspace, Root string
	// Launch is the folder whose context files, and its parents', were
	// loaded up front (DiscoverOptions.Cwd, else Workspace).
	Launch string
	// ContextFiles are in prompt order: global, then outermost to
	// innermost.
	ContextFiles []ContextFile
	// Rules are the rules files that apply only to some paths (their
	// front matter names them); the read tool's note brings them in.
	Rules []Rule
	// Skills and Templates are sorted by name.
	Skills    []Skill
	Templates []Template
	// Bootstrap is the workspace's BOOTSTRAP.md, or nil.
	Bootstrap *ContextFile
	// Env are the facts fixed for the session.
	Env Env
	// Notes say what was skipped, cut or shadowed, in discovery order.
	Notes []Note

	from DiscoverOptions // for a refresh
}

// Template returns the template named name, or nil.
func (f *Found) Template(name string) *Template {
	for i := range f.Templates {
		if f.Templates[i].Name == name {
			return &f.Templates[i]
		}
	}
	return nil
}

// NotesOf returns the notes of one kind: "context", "skill", "template"
// or "config".
func (f *Found) NotesOf(kind string) []Note {
	var out []Note
	for _, n := range f.Notes {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// Env are the environment facts of the session tier.
type Env struct {
	OS, Shell, Workspace string
	// Date is the day the session started (YYYY-MM-DD).
	Date string
	Git  bool
}

// discovery is one run of Discover.
type discovery struct {
	fsys              fileSystem
	workspace, root   string
	configDir, home   string
	claudeDir, launch string
	rules             []Rule
	extraSkills       []string
	maxFile, maxTotal int
	filter            func(path, text string) string
	notes             []Note
	reals             map[string]string
}

// Discover finds the context files, skills, templates, bootstrap file
// and guard configuration of a workspace. It never fails: whatever cannot
// be used becomes a note, and the rest still loads. The result depends
// only on the files and the options, never on directory listing order.
func Discover(o DiscoverOptions) *Found {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	d := &discovery{fsys: o.fsys, home: o.Home, maxFile: o.MaxFileBytes, maxTotal: o.MaxTotalBytes, filter: o.Filter, extraSkills: o.SkillDirs}
	if d.fsys == nil {
		d.fsys = osFS{}
	}
	if d.maxFile <= 0 {
		d.maxFile = DefaultMaxFileBytes
	}
	if d.maxTotal <= 0 {
		d.maxTotal = DefaultMaxTotalBytes
	}
	switch d.home {
	case "":
		d.home, _ = os.UserHomeDir()
	case "-":
		d.home = ""
	}
	d.configDir = configDir(o.ConfigDir, d.home, getenv)
	ws := o.Workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	d.workspace = filepath.Clean(ws)
	d.root = repoRoot(d.fsys, d.workspace)
	d.claudeDir = claudeDir(o.ClaudeDir, d.home, getenv)
	d.launch = d.workspace
	if o.Cwd != "" {
		if cwd, err := filepath.Abs(o.Cwd); err == nil && within(filepath.Clean(cwd), d.workspace) {
			d.launch = filepath.Clean(cwd)
		}
	}

	f := &Found{Workspace: d.workspace, Root: d.root, Launch: d.launch, from: o}
	f.from.Workspace = d.workspace
	f.ContextFiles = d.findContext()
	f.Rules = d.rules
	f.Skills = d.findSkills()
	f.Templates = d.findTemplates()
	f.Bootstrap = d.findBootstrap()
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	f.Env = Env{OS: runtime.GOOS, Shell: shellOf(getenv), Workspace: d.workspace, Date: now().Format("2006-01-02"), Git: d.root != ""}
	f.Notes = d.notes
	return f
}

// configDir resolves DiscoverOptions.ConfigDir.
func configDir(dir, home string, getenv func(string) string) string {
	switch {
	case dir == "-":
		return ""
	case dir != "":
		return dir
	case getenv("XDG_CONFIG_HOME") != "":
		return filepath.Join(getenv("XDG_CONFIG_HOME"), "rein")
	case home != "":
		return filepath.Join(home, ".config", "rein")
	}
	return ""
}

// claudeDir resolves DiscoverOptions.ClaudeDir.
func claudeDir(dir, home string, getenv func(string) string) string {
	switch {
	case dir == "-":
		return ""
	case dir != "":
		return dir
	case getenv("CLAUDE_CONFIG_DIR") != "":
		return getenv("CLAUDE_CONFIG_DIR")
	case home != "":
		return filepath.Join(home, ".claude")
	}
	return ""
}

func shellOf(getenv func(string) string) string {
	if s := getenv("SHELL"); s != "" {
		return filepath.Base(s)
	}
	return "sh"
}

func (d *discovery) note(path, msg string) { d.noteKind("context", path, msg) }

func (d *discovery) noteKind(kind, path, msg string) {
	d.notes = append(d.notes, Note{Kind: kind, Path: shortPath(path, d.workspace, d.home), Msg: msg})
}

// real returns dir with its symbolic links resolved (dir itself when
// that fails), cached for the discovery.
func (d *discovery) real(dir string) string {
	if r, ok := d.reals[dir]; ok {
		return r
	}
	r, err := d.fsys.EvalSymlinks(dir)
	if err != nil {
		r = dir
	}
	if d.reals == nil {
		d.reals = map[string]string{}
	}
	d.reals[dir] = r
	return r
}

// isAbsent reports whether err means there is nothing at the path.
func isAbsent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
