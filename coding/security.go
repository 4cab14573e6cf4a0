package coding

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/injection"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/tool/builtin"
)

// SecurityFile is the workspace's security settings, beside its other
// config.
const SecurityFile = ".rein/security.json"

// securityConfig is the content of SecurityFile. Every field is
// optional.
type securityConfig struct {
	// Sandbox is read-only, workspace-write (the default) or off; the
	// REIN_SANDBOX environment variable overrides it.
	Sandbox string `json:"sandbox,omitempty"`
	// Network allows commands to use the network (default true).
	Network *bool `json:"network,omitempty"`
	// Writable lists more directories commands may write in
	// workspace-write mode, such as a build cache ("~/.cache/go-build");
	// a leading ~/ is the home directory.
	Writable []string `json:"writable,omitempty"`
	// Unavailable is what happens when the sandbox is asked for and no
	// mechanism exists: "unconfined" (default, with a warning) or "refuse".
	Unavailable string `json:"unavailable,omitempty"`
	// EnvAllow names secret-looking environment variables that commands
	// may still see (e.g. "NPM_TOKEN").
	EnvAllow []string `json:"env_allow,omitempty"`
	// ContextFiles is what happens to a flagged context file: "warn"
	// (default) or "withhold".
	ContextFiles string `json:"context_files,omitempty"`
	// MaxReplyBytes bounds one model reply (llm.Options.MaxReplyBytes);
	// 0 means the default, 32 MiB.
	MaxReplyBytes int `json:"max_reply_bytes,omitempty"`
	// Confine names the other commands rein starts that run in the same
	// sandbox as bash: "hooks" (command hooks, sensors, the commit gate)
	// and "mcp" (stdio MCP servers). Off by default: such commands are
	// the user's own configuration and often need their caches.
	Confine []string `json:"confine,omitempty"`
}

// readSecurity reads and checks the workspace's security settings; a
// missing file gives the defaults. Unless trusted, only what tightens
// applies (see tightOnly).
func readSecurity(getenv func(string) string, workspace string, trusted bool) (securityConfig, error) {
	var c securityConfig
	path := filepath.Join(workspace, filepath.FromSlash(SecurityFile))
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, &ConfigError{File: path, Err: err}
	default:
		if err := json.Unmarshal(data, &c); err != nil {
			line := jsonErrorLine(data)
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				line = lineAt(data, te.Offset)
			}
			return c, &ConfigError{File: path, Line: line, Err: err}
		}
	}
	if !trusted {
		c = c.tightOnly()
	}
	if v := getenv("REIN_SANDBOX"); v != "" {
		c.Sandbox = v
	}
	bad := func(err error) error { return &ConfigError{File: path, Err: err} }
	if _, err := sandbox.ParseMode(c.Sandbox); err != nil {
		return c, bad(err)
	}
	if _, err := injection.ParsePolicy(c.ContextFiles); err != nil {
		return c, bad(err)
	}
	switch c.Unavailable {
	case "", string(sandbox.Unconfined), string(sandbox.Refuse):
	default:
		return c, bad(fmt.Errorf("unavailable %q is not unconfined or refuse", c.Unavailable))
	}
	return c, nil
}

// maxReplyDefault is the reply bound when the settings give none.
const maxReplyDefault = 32 << 20

// tightOnly keeps what a workspace's own security settings may say
// before the user trusts them: what confines more than the defaults (a
// read-only sandbox, no network, refusing to run unconfined, withheld
// context files, confined hooks and servers, a smaller reply bound). The
// sandbox turned off, more writable directories, secret variables let
// through and a larger reply bound are dropped; package trust lists the
// same fields as needing trust.
func (c securityConfig) tightOnly() securityConfig {
	if c.Sandbox == string(sandbox.Off) {
		c.Sandbox = ""
	}
	c.Writable, c.EnvAllow = nil, nil
	if c.MaxReplyBytes > maxReplyDefault {
		c.MaxReplyBytes = 0
	}
	return c
}

// confines reports whether the settings put kind ("hooks", "mcp") in
// the sandbox.
func (c securityConfig) confines(kind string) bool { return slices.Contains(c.Confine, kind) }

// policy returns the sandbox policy for bash in ws.
func (c securityConfig) policy(ws builtin.Workspace) *sandbox.Policy {
	mode, _ := sandbox.ParseMode(c.Sandbox)
	p := &sandbox.Policy{Mode: mode, Workspace: ws.Root, Fallback: sandbox.Fallback(c.Unavailable)}
	if c.Network != nil && !*c.Network {
		p.NoNetwork = true
	}
	home, _ := os.UserHomeDir()
	for _, d := range c.Writable {
		if rest, ok := strings.CutPrefix(d, "~/"); ok && home != "" {
			d = filepath.Join(home, rest)
		}
		p.Writable = append(p.Writable, d)
	}
	return p
}

// confiner returns the command wrapper that puts kind's commands in the
// workspace's sandbox, or nil when the settings leave them unconfined.
// A command the sandbox cannot wrap fails to start with the reason.
func (s *setup) confiner(kind string) func(*exec.Cmd) (*exec.Cmd, error) {
	if !s.sec.confines(kind) {
		return nil
	}
	p := s.sec.policy(s.ws)
	return func(cmd *exec.Cmd) (*exec.Cmd, error) {
		if _, err := sandbox.Wrap(cmd, *p); err != nil {
			return nil, err
		}
		return cmd, nil
	}
}

// bashOptions returns the bash options: the sandbox policy, and an
// environment without model keys and secret-looking variables, except
// those the settings allow (model keys never). It says once when the
// sandbox is weaker than asked.
func (s *setup) bashOptions(jobs *builtin.Jobs) builtin.BashOptions {
	p := s.sec.policy(s.ws)
	if p.Mode != sandbox.Off && sandbox.Guess() != sandbox.Bwrap {
		s.o.Warn(sandbox.Notice(*p))
	}
	kept, _ := redact.FilterEnv(s.childEnv(), s.sec.EnvAllow)
	// CLAUDECODE=1 tells scripts (and a nested Claude Code) that they run
	// under a coding agent, as Claude Code's bash does.
	kept = append(kept, "CLAUDECODE=1")
	return builtin.BashOptions{BaseEnv: kept, Sandbox: p, Jobs: jobs, Redact: s.o.Redactor, SessionEnv: s.env.vars}
}
