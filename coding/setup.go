package coding

import (
	"context"
	"slices"
	"strings"

	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/telemetry"
	"github.com/reinhq/rein/tool/builtin"
	"github.com/reinhq/rein/trust"
)

// setup is what Open reads of a workspace before it starts anything:
// the options with their defaults, the workspace, and the config files
// every later step shares, each read once.
type setup struct {
	o   Options
	ws  builtin.Workspace
	sec securityConfig
	// settingsEnv is the settings files' env, KEY=VALUE (childEnv).
	settingsEnv []string
	// cfg is the merged model config of the user and the workspace
	// (never nil after newSetup).
	cfg    *catalog.Config
	secret map[string]bool
	// tel observes every prompt: records, budget, traces; stopTraces
	// flushes the tracer Tracing started.
	tel        *telemetry.Telemetry
	stopTraces func(context.Context) error
	// trust says which of the workspace's own files may act.
	trust *trust.Status
	// work holds the work items and the contract (work.go); volatile is
	// the prompt's volatile tier (the open work items when they changed).
	work     *workState
	volatile func(prompt.Turn) string
	// env gives bash what SessionStart hooks exported (sessionenv.go).
	env sessionEnv
	// notice is the start-up line about the Claude Code setup rein does
	// not honour (claudenotice.go).
	notice string
}

// newSetup applies the defaults, resolves the workspace and reads the
// security and model config; a malformed file is a *ConfigError and a
// bad workspace a *WorkspaceError.
func newSetup(o Options) (*setup, error) {
	o.defaults()
	ws, err := OpenWorkspace(o.Workdir)
	if err != nil {
		return nil, err
	}
	s := &setup{o: o, ws: ws}
	s.env.s = s
	// Trust first: nothing the workspace's files say acts before it. A
	// sub-agent trusts what its parent settled.
	if c := o.child; c != nil {
		s.trust = c.parent.s.trust
	} else if err := s.settleTrust(); err != nil {
		return nil, err
	}
	if s.sec, err = readSecurity(o.Getenv, ws.Root, s.trusted(SecurityFile)); err != nil {
		return nil, err
	}
	if err := s.readSettingsEnv(); err != nil {
		return nil, err
	}
	cfg, warnings, _, err := catalog.LoadWorkspace(ws.Root, o.Getenv, s.trusted(".rein/config.json"))
	if err != nil {
		return nil, configError(err, catalog.UserConfigPath(o.Getenv), catalog.ProjectConfigPath(ws.Root))
	}
	for _, w := range warnings {
		o.warnf("warning: %v", w)
	}
	if cfg == nil {
		cfg = &catalog.Config{}
	}
	s.cfg = cfg
	s.secret = secretEnvNames(cfg)
	if err := s.newTelemetry(); err != nil {
		return nil, err
	}
	return s, nil
}

// secretEnvNames lists the environment variables that hold model API
// keys: those of the built-in providers and those the config names.
func secretEnvNames(cfg *catalog.Config) map[string]bool {
	names := map[string]bool{}
	for _, p := range catalog.BuiltinProviders() {
		for _, k := range p.KeyEnv {
			names[k] = true
		}
	}
	if cfg == nil {
		return names
	}
	for _, pc := range cfg.Providers {
		if pc.APIKeyEnv != "" {
			names[pc.APIKeyEnv] = true
		}
		for _, pr := range pc.Profiles {
			if pr.APIKeyEnv != "" {
				names[pr.APIKeyEnv] = true
			}
		}
	}
	return names
}

// withoutSecrets returns environ without the variables in secret.
func withoutSecrets(environ []string, secret map[string]bool) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !secret[name] {
			out = append(out, kv)
		}
	}
	return out
}

// childEnv is the environment of the commands rein starts (bash before
// its own filtering, hooks, MCP servers): rein's own without the model
// API keys.
func (s *setup) childEnv() []string {
	return withoutSecrets(slices.Concat(s.o.Environ(), s.settingsEnv), s.secret)
}

// readSettingsEnv reads the env objects of the settings files (Claude
// Code's "env"), which the commands rein starts get on top of its own
// environment; a workspace's own only once its content is trusted.
func (s *setup) readSettingsEnv() error {
	env, warnings, err := permission.SettingsEnv(permission.LoadOptions{Workspace: s.ws.Root, Home: s.o.Getenv("HOME"),
		ConfigDir: ConfigDir(s.o.Getenv), TrustedFile: s.trusted})
	if err != nil {
		var files []string
		for _, f := range permission.SettingsPaths(s.ws.Root, s.o.Getenv("HOME"), ConfigDir(s.o.Getenv)) {
			files = append(files, f.Path)
		}
		return configError(err, files...)
	}
	for _, w := range warnings {
		s.o.warnf("warning: %s", w)
	}
	s.settingsEnv = env
	return nil
}

// ChildEnv is the environment the commands an agent opened with o would
// start get (hooks, MCP servers): the environment without the model API
// keys of the built-in providers and of the config files of workspace.
func ChildEnv(o Options, workspace string) []string {
	o.defaults()
	cfg, _, _ := catalog.LoadConfig(workspace, o.Getenv)
	return withoutSecrets(o.Environ(), secretEnvNames(cfg))
}
