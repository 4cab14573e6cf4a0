package interop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Env is what the locations of other harnesses' sessions depend on: the
// home directory and the environment variables that move them. Getenv
// nil means none are set.
type Env struct {
	Home   string
	Getenv func(string) string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// PiDir is where pi keeps the sessions of workspace cwd:
// $PI_CODING_AGENT_DIR (default ~/.pi/agent)/sessions/--<cwd with / as ->--.
func (e Env) PiDir(cwd string) string {
	agent := e.get("PI_CODING_AGENT_DIR")
	if agent == "" {
		agent = filepath.Join(e.Home, ".pi", "agent")
	}
	safe := strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(strings.TrimLeft(cwd, `/\`)[0:])
	return filepath.Join(agent, "sessions", "--"+safe+"--")
}

// ClaudeDir is where Claude Code keeps the sessions of workspace cwd:
// $CLAUDE_CONFIG_DIR (default ~/.claude)/projects/<cwd, non-alphanumerics as ->.
func (e Env) ClaudeDir(cwd string) string {
	base := e.get("CLAUDE_CONFIG_DIR")
	if base == "" {
		base = filepath.Join(e.Home, ".claude")
	}
	return filepath.Join(base, "projects", claudeDir(cwd))
}

// CodexDir is where codex keeps its rollouts: $CODEX_HOME (default
// ~/.codex)/sessions, by date.
func (e Env) CodexDir() string {
	base := e.get("CODEX_HOME")
	if base == "" {
		base = filepath.Join(e.Home, ".codex")
	}
	return filepath.Join(base, "sessions")
}

// Found is a recording of another harness found on disk.
type Found struct {
	Path     string
	Format   Format
	Modified time.Time
}

// Latest finds the newest session of workspace cwd that pi, Claude Code
// or codex wrote (only format's, when format is set).
func (e Env) Latest(cwd string, format Format) (Found, error) {
	var all []Found
	newest := func(dir string, f Format, keep func(path string) bool) {
		if format != "" && format != f {
			return
		}
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return nil
			}
			info, err := d.Info()
			if err != nil || (keep != nil && !keep(path)) {
				return nil
			}
			all = append(all, Found{Path: path, Format: f, Modified: info.ModTime()})
			return nil
		})
	}
	newest(e.PiDir(cwd), Pi, nil)
	newest(e.ClaudeDir(cwd), Claude, func(path string) bool { return filepath.Dir(path) == e.ClaudeDir(cwd) })
	newest(e.CodexDir(), Codex, func(path string) bool { return codexCwd(path) == cwd })
	if format == OpenCode {
		return Found{}, errors.New("opencode keeps sessions in its own database: run `opencode export SESSION_ID > FILE` and import the file")
	}
	if len(all) == 0 {
		return Found{}, fmt.Errorf("no session of %s found for %s (looked in %s, %s and %s)", orAll(format), cwd, e.PiDir(cwd), e.ClaudeDir(cwd), e.CodexDir())
	}
	best := all[0]
	for _, f := range all[1:] {
		if f.Modified.After(best.Modified) {
			best = f
		}
	}
	return best, nil
}

func orAll(f Format) string {
	if f == "" {
		return "pi, Claude Code or codex"
	}
	return string(f)
}

// codexCwd reads the working directory from a rollout's meta record.
func codexCwd(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	line, _ := br.ReadSlice('\n')
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" {
		return ""
	}
	return l.Payload.Cwd
}

// InstallPath is where format f's program looks for the exported
// session s: pi's and Claude Code's session directories for its
// workspace, codex's dated rollout directory. opencode reads sessions
// only through `opencode import FILE`, so its export goes to dir.
func (e Env) InstallPath(s *Session, f Format, now time.Time) (string, error) {
	cwd := s.Header.Cwd
	if cwd == "" && f != OpenCode {
		return "", errors.New("the session records no workspace (cwd), so the place to install it is unknown")
	}
	now = now.UTC()
	switch f {
	case Pi:
		return filepath.Join(e.PiDir(cwd), now.Format("2006-01-02T15-04-05-000Z")+"_"+uuidOf(s.Header.ID, s.Header.ID)+".jsonl"), nil
	case Claude:
		return filepath.Join(e.ClaudeDir(cwd), ClaudeSessionID(s.Header.ID)+".jsonl"), nil
	case Codex:
		return filepath.Join(e.CodexDir(), now.Format("2006/01/02"), "rollout-"+now.Format("2006-01-02T15-04-05")+"-"+CodexThreadID(s.Header.ID)+".jsonl"), nil
	}
	return "", fmt.Errorf("--install is for pi, claude and codex; for %s, write the file and open it there", f)
}
