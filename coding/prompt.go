package coding

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinhq/rein/injection"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/prompt"
)

// discover finds the context files, skills, templates and guard
// configuration of the workspace, sending the notes (what was skipped,
// cut or shadowed) and injection warnings to Warn when warn is set.
// Extra skill folders come from the config's "skills" list.
func (s *setup) discover(warn bool) *prompt.Found {
	getenv := s.o.Getenv
	o := prompt.DiscoverOptions{Workspace: s.ws.Root, Getenv: getenv, Home: getenv("HOME")}
	if o.Home == "" {
		o.Home, o.ConfigDir, o.ClaudeDir = "-", "-", "-"
	}
	if s.o.Workdir == "" {
		// Started without a workspace named: the folder rein runs in may be
		// below the workspace (the project root); its context files and
		// its parents' are loaded up front, as Claude Code does.
		o.Cwd, _ = os.Getwd()
	}
	for _, d := range s.cfg.Skills {
		switch {
		case strings.HasPrefix(d, "~/") && o.Home != "-":
			d = filepath.Join(o.Home, d[2:])
		case !filepath.IsAbs(d):
			d = filepath.Join(s.ws.Root, d)
		}
		o.SkillDirs = append(o.SkillDirs, d)
	}
	o.Filter = s.injectionFilter(warn)
	f := prompt.Discover(o)
	if warn {
		for _, n := range f.Notes {
			s.o.warnf("note: %v", n)
		}
	}
	return f
}

// injectionFilter scans each context file for prompt injection before it
// enters the prompt: a flagged file is shown to the model with a warning,
// or withheld when .rein/security.json says "context_files": "withhold",
// and the user is told once per file when warn is set.
func (s *setup) injectionFilter(warn bool) func(path, text string) string {
	policy, _ := injection.ParsePolicy(s.sec.ContextFiles)
	var told sync.Map
	return func(path, text string) string {
		out, r := injection.ContextFile(path, text, policy)
		if _, seen := told.LoadOrStore(path, true); r.Flagged() && warn && !seen {
			s.o.Warn("warning: " + r.Summary())
		}
		return out
	}
}

// builder is the system prompt builder: Options.SystemPrompt replaces
// the stable tier and Options.AppendSystem is added below the session
// tier; context files, skills and the environment stay. With MCP
// servers, the rule about their untrusted output comes first in the
// appended part.
func (s *setup) builder(f *prompt.Found, withMCP bool) *prompt.Builder {
	add := s.o.AppendSystem
	if withMCP {
		add = strings.TrimSpace(mcp.SystemNote + "\n\n" + add)
	}
	return prompt.NewBuilder(prompt.Options{Found: f, Stable: s.o.SystemPrompt, Append: add, Volatile: s.volatile})
}

// Discover returns what the workspace of o offers the prompt — context
// files, skills, templates, guard config — without starting anything.
// With warn, the notes go to o.Warn.
func Discover(o Options, warn bool) (*prompt.Found, error) {
	s, err := newSetup(o)
	if err != nil {
		return nil, err
	}
	return s.discover(warn), nil
}
