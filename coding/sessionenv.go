package coding

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/reinhq/rein/hook/command"
	"github.com/reinhq/rein/redact"
)

// sessionEnvDir is the folder of a session's env files (CLAUDE_ENV_FILE):
// env/<session id> beside the session's log, so .rein/sessions/env/<id>
// for the workspace's sessions. Bash runs with .rein read-only, so
// commands cannot write there; hooks can.
func sessionEnvDir(id, transcript string) string {
	if id == "" || transcript == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(transcript), "env", id)
}

// sessionEnv gives bash the variables the session's SessionStart hooks
// exported through CLAUDE_ENV_FILE. The files are read before every
// command, so a hook's later write counts; a line that is not applied
// and a variable that is held back are said once each.
type sessionEnv struct {
	s  *setup
	mu sync.Mutex
	// cmds is the agent's command hooks (nil until they are loaded),
	// which know the current session.
	cmds *command.Runner
	said map[string]bool
}

// setHooks tells which hooks' session the env files follow.
func (e *sessionEnv) setHooks(c *command.Runner) {
	e.mu.Lock()
	e.cmds = c
	e.mu.Unlock()
}

// vars returns the variables to add to env for one bash command. Names
// that look like secrets stay out unless the security settings'
// env_allow lists them, as for the inherited environment; the model API
// keys never pass.
func (e *sessionEnv) vars(env []string) []string {
	e.mu.Lock()
	c := e.cmds
	e.mu.Unlock()
	// A CLAUDE_ENV_FILE in rein's own environment is read first, as
	// Claude Code reads its own; the session's hook files then win.
	preset, dir := e.s.o.Getenv(command.EnvFileVar), c.EnvDir()
	if dir == "" && preset == "" {
		return nil
	}
	vars, notes := command.ReadEnvFiles(preset, dir, env)
	for _, n := range notes {
		e.once("note: CLAUDE_ENV_FILE " + n.String())
	}
	kept, removed := redact.FilterEnv(vars, e.s.sec.EnvAllow)
	kept = withoutSecrets(kept, e.s.secret)
	for _, kv := range vars {
		if name, _, _ := strings.Cut(kv, "="); e.s.secret[name] && !slices.Contains(removed, name) {
			removed = append(removed, name)
		}
	}
	if len(removed) > 0 {
		from := strings.TrimPrefix(strings.TrimSuffix(preset+" and "+dir, " and "), " and ")
		e.once("note: CLAUDE_ENV_FILE in " + from + " sets " + strings.Join(removed, ", ") +
			", held back from bash because the names look like secrets; list them in env_allow of " + SecurityFile + " to pass them (model API keys never pass)")
	}
	return kept
}

// once warns msg the first time it is seen.
func (e *sessionEnv) once(msg string) {
	e.mu.Lock()
	if e.said == nil {
		e.said = map[string]bool{}
	}
	seen := e.said[msg]
	e.said[msg] = true
	e.mu.Unlock()
	if !seen {
		e.s.o.Warn(e.s.o.Redactor.String(msg))
	}
}
