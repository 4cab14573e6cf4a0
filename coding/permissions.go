package coding

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/tool"
)

// perms is the permission gate, command hooks and enforcement of one
// agent, as the settings files and options configure them.
type perms struct {
	settings *permission.Settings
	cmds     *hook.Commands
	broker   *permission.Broker // nil when no one answers
	mode     permission.Mode
}

// loadPermissions reads the settings files (.claude/ and .rein/, the
// user's and the workspace's) and the command hooks they declare; the
// workspace's own hooks, allow rules and loosening count only from the
// files whose content the user trusts.
func (s *setup) loadPermissions(reg *tool.Registry) (*perms, error) {
	home := s.o.Getenv("HOME")
	cfgDir := ConfigDir(s.o.Getenv)
	ps := &perms{}
	st, err := permission.LoadSettings(permission.LoadOptions{Workspace: s.ws.Root, Home: home, ConfigDir: cfgDir, TrustedFile: s.trusted, Tools: reg.Names()})
	if err != nil {
		var files []string
		for _, f := range permission.SettingsPaths(s.ws.Root, home, cfgDir) {
			files = append(files, f.Path)
		}
		return nil, configError(err, files...)
	}
	ps.settings = st
	base := permission.PathBase{Root: s.ws.Root, Cwd: s.ws.Root, Home: home}
	for _, set := range []struct {
		rules  []string
		effect permission.Effect
		source string
	}{{s.o.AllowRules, permission.Allow, "--allowedTools"}, {s.o.DenyRules, permission.Deny, "--disallowedTools"}} {
		for _, text := range set.rules {
			r, err := permission.ParseRule(text, set.effect, set.source, base)
			if err != nil {
				return nil, err
			}
			st.Rules = append(st.Rules, r)
		}
	}
	for _, w := range st.Warnings {
		s.o.warnf("warning: %v", w)
	}
	// The mode: the option, else the settings, else auto_read (Claude
	// Code's default): on a terminal what would ask asks, and where no one
	// can answer it is denied with the reason returned to the model, as
	// `claude -p` does.
	switch {
	case s.o.PermissionMode != "":
		m, err := permission.ParseMode(s.o.PermissionMode)
		if err != nil {
			return nil, err
		}
		ps.mode = m
	case st.Mode != "":
		ps.mode = st.Mode
	case s.o.DefaultMode != "":
		m, err := permission.ParseMode(s.o.DefaultMode)
		if err != nil {
			return nil, err
		}
		ps.mode = m
	default:
		ps.mode = permission.ModeAutoRead
	}
	cfg := hook.CommandConfig{}
	for _, f := range st.Files {
		if !f.Trusted {
			continue
		}
		warns, err := cfg.AddFile(f.Path, f.Hooks)
		if err != nil {
			return nil, configError(err, f.Path)
		}
		if f.Claude {
			// Claude Code's hook events and types rein does not run are
			// in the one start-up notice (noticeClaudeSetup).
			continue
		}
		for _, w := range warns {
			s.o.warnf("warning: %v", w)
		}
	}
	ps.cmds = &hook.Commands{Config: cfg, ProjectDir: s.ws.Root, Env: s.childEnv(), Exec: s.hookExec(), ContextEnv: traceEnv, AgentID: s.o.agentID(), AgentType: s.o.agentType(),
		EnvFileDir: sessionEnvDir,
		Report: func(r hook.Report) {
			if r.Error {
				s.o.warnf("hook: %v", r)
			} else {
				s.o.Warn("hook: " + r.Message)
			}
		}}
	s.env.setHooks(ps.cmds)
	return ps, nil
}

// hookExec runs command hooks, sensors and the commit gate, in the
// sandbox when the security settings confine "hooks".
func (s *setup) hookExec() *hook.Exec {
	x := &hook.Exec{}
	if wrap := s.confiner("hooks"); wrap != nil {
		x.Wrap = func(cmd *exec.Cmd) *exec.Cmd {
			w, err := wrap(cmd)
			if err == nil {
				return w
			}
			// The sandbox refused: the hook fails with the reason
			// rather than running unconfined.
			return exec.Command("/bin/sh", "-c", `printf '%s\n' "$1" >&2; exit 1`, "sh", "rein: the sandbox cannot confine this hook: "+err.Error())
		}
	}
	return x
}

// apply fills the permission, approval and tool middleware options of
// the harness.
func (ps *perms) apply(s *setup, opts *harness.Options) {
	st := ps.settings
	cfgDir := ConfigDir(s.o.Getenv)
	root := s.ws.Root
	po := &permission.Options{
		Mode: ps.mode, Rules: st.Rules, Workdir: root, Home: s.o.Getenv("HOME"), Blocker: st.Enforce.Blocker,
		Remember: func(rule string, scope permission.Scope) error {
			if scope == permission.ScopeUser {
				if cfgDir == "" {
					return errors.New("no user config directory (HOME is not set)")
				}
				return permission.RememberRule(filepath.Join(cfgDir, "settings.json"), permission.UserRule(rule, root))
			}
			return s.rememberLocal(rule)
		},
	}
	if ps.cmds.Has(hook.PreToolUse) {
		po.PreToolUse = func(ctx context.Context, call *tool.Call, mode permission.Mode) permission.HookVerdict {
			v := ps.cmds.PreToolUse(ctx, call, mode.ClaudeName())
			return permission.HookVerdict{Effect: permission.Effect(v.Decision), Reason: v.Reason, Args: v.Args, Context: v.Context, Stop: v.Stop}
		}
	}
	opts.Permissions = po
	if s.o.Interactive {
		ps.broker = &permission.Broker{Timeout: st.ApprovalTimeout}
		opts.Approvals = ps.broker
	}
	sensors := st.Enforce.Sensors
	if st.Enforce.DefaultSensors == nil || *st.Enforce.DefaultSensors {
		sensors = append(permission.DefaultSensors(), sensors...)
	}
	enf := &permission.Enforcer{Workdir: root, Sensors: sensors, Gate: st.Enforce.CommitGate, Env: ps.cmds.Env, Exec: ps.cmds.Exec}
	opts.Middleware = append(opts.Middleware, enf.Middleware())
}

// install registers the Stop and PreCompact command hooks and runs the
// SessionStart hooks, whose context reaches the model with the first
// prompt.
func (ps *perms) install(ctx context.Context, h *harness.Harness, source string) {
	ps.cmds.Mode = func() string {
		if g := h.Permission(); g != nil {
			return g.Mode().ClaudeName()
		}
		return ""
	}
	ps.cmds.Install(h.Hooks())
	if v := ps.cmds.SessionStart(ctx, source); v.Context != "" {
		_ = h.NextTurn(v.Context)
	}
}

// end runs the SessionEnd hooks.
func (ps *perms) end(reason string) {
	if ps.cmds.Has(hook.SessionEnd) {
		ps.cmds.SessionEnd(context.Background(), reason)
	}
}
