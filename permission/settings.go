package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// SettingsFile is one settings file: rein's (.rein/settings.json,
// .rein/settings.local.json, ~/.config/rein/settings.json) or Claude
// Code's (.claude/settings.json, .claude/settings.local.json,
// ~/.claude/settings.json). Both have the same shape; fields rein does
// not use are ignored.
type SettingsFile struct {
	Path string
	// Project is set for files inside the workspace: their allow rules,
	// permissive mode and hooks apply only in a trusted workspace.
	Project bool
	// Claude is set for Claude Code's files.
	Claude bool
	// Trusted is set by LoadSettings for the user's files and the
	// project files the user trusts: only their hooks may run.
	Trusted bool `json:"-"`

	Permissions struct {
		Allow       []string `json:"allow"`
		Ask         []string `json:"ask"`
		Deny        []string `json:"deny"`
		DefaultMode string   `json:"defaultMode"`
		// ApprovalTimeout is rein's: how long a request waits ("2m");
		// "0" or "none" waits until the run ends.
		ApprovalTimeout string `json:"approvalTimeout"`
	} `json:"permissions"`
	// Hooks is the hooks object, read by package hook.
	Hooks json.RawMessage `json:"hooks"`
	// Enforce is rein's: the blocker, sensors and commit gate.
	Enforce *Enforce `json:"enforce"`
}

// Enforce configures the checks built on permissions and hooks.
type Enforce struct {
	// Blocker is deny (the default), ask or off.
	Blocker BlockerMode `json:"blocker"`
	// Sensors run after write and edit calls on matching files.
	Sensors []Sensor `json:"sensors"`
	// DefaultSensors, when false, turns off the built-in sensors.
	DefaultSensors *bool `json:"defaultSensors"`
	// CommitGate runs tests before a git commit made through bash.
	CommitGate *CommitGate `json:"commitGate"`
}

// Settings is what the settings files of a workspace say, merged.
type Settings struct {
	Files []*SettingsFile
	// Rules are the rules of every file that applies.
	Rules []Rule
	// Mode is the defaultMode of the most specific file that sets one,
	// or "" when none does.
	Mode Mode
	// ApprovalTimeout is the most specific setting; zero when none.
	ApprovalTimeout time.Duration
	// Enforce merges the files' enforce objects, later winning field by
	// field.
	Enforce Enforce
	// Warnings are problems that do not stop the load: rules that match
	// no tool, rules in both allow and deny, parts skipped because the
	// workspace is not trusted.
	Warnings []string
}

// SettingsPaths lists the settings files of a workspace, least specific
// first: the user's (Claude Code's, then rein's) and the project's.
func SettingsPaths(workspace, home, configDir string) []SettingsFile {
	var out []SettingsFile
	if home != "" {
		out = append(out, SettingsFile{Path: filepath.Join(home, ".claude", "settings.json"), Claude: true})
	}
	if configDir != "" {
		out = append(out, SettingsFile{Path: filepath.Join(configDir, "settings.json")})
	}
	if workspace != "" {
		out = append(out,
			SettingsFile{Path: filepath.Join(workspace, ".claude", "settings.json"), Project: true, Claude: true},
			SettingsFile{Path: filepath.Join(workspace, ".claude", "settings.local.json"), Project: true, Claude: true},
			SettingsFile{Path: filepath.Join(workspace, ".rein", "settings.json"), Project: true},
			SettingsFile{Path: filepath.Join(workspace, ".rein", "settings.local.json"), Project: true},
		)
	}
	return out
}

// LoadOptions say where a workspace's settings are and how to read them.
type LoadOptions struct {
	Workspace string
	// Home is the user's home; ConfigDir is rein's user config directory
	// (~/.config/rein).
	Home, ConfigDir string
	// Trusted says whether the workspace is trusted (package trust).
	Trusted bool
	// TrustedFile, when set, says per file whether a project settings
	// file is trusted, in place of Trusted: trust follows each file's
	// content (package trust).
	TrustedFile func(path string) bool
	// Tools are rein's names of the tools on offer, to warn about rules
	// that match none.
	Tools []string
}

// LoadSettings reads the settings files that exist. A file that is not
// valid JSON, or holds a rule or mode that cannot be parsed, is an error
// naming the file (and the rule): a rule silently dropped could allow
// what the user meant to deny.
func LoadSettings(o LoadOptions) (*Settings, error) {
	st := &Settings{}
	// untrusted notes what an untrusted file loses; with TrustedFile the
	// caller names it all in one notice instead.
	untrusted := func(format string, a ...any) {
		if o.TrustedFile == nil {
			st.Warnings = append(st.Warnings, fmt.Sprintf(format, a...))
		}
	}
	seen := map[string]Effect{}
	var untrustedAllow, untrustedHooks []string
	for _, f := range SettingsPaths(o.Workspace, o.Home, o.ConfigDir) {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading settings %s: %w", f.Path, err)
		}
		file := f
		if err := decodeSettings(&file, data); err != nil {
			return nil, err
		}
		trusted := o.Trusted
		if o.TrustedFile != nil {
			trusted = o.TrustedFile(f.Path)
		}
		file.Trusted = !f.Project || trusted
		st.Files = append(st.Files, &file)
		base := PathBase{Root: settingsRoot(f.Path), Cwd: o.Workspace, Home: o.Home}
		lists := []struct {
			eff   Effect
			rules []string
		}{{Deny, file.Permissions.Deny}, {Ask, file.Permissions.Ask}, {Allow, file.Permissions.Allow}}
		for _, l := range lists {
			for _, text := range l.rules {
				r, err := ParseRule(text, l.eff, f.Path, base)
				if err != nil {
					return nil, err
				}
				if l.eff == Allow && f.Project && !trusted {
					untrustedAllow = append(untrustedAllow, text)
					continue
				}
				if !r.Known(o.Tools) && o.Tools != nil {
					st.Warnings = append(st.Warnings, fmt.Sprintf("%s: the rule %q matches none of rein's tools (%s); it has no effect", f.Path, text, strings.Join(o.Tools, ", ")))
				}
				key := strings.TrimSpace(text)
				if prev, ok := seen[key]; ok && prev != l.eff {
					st.Warnings = append(st.Warnings, fmt.Sprintf("%s: the rule %q is both %s and %s; %s wins", f.Path, text, prev, l.eff, stronger(prev, l.eff)))
				}
				seen[key] = l.eff
				st.Rules = append(st.Rules, r)
			}
		}
		if m := file.Permissions.DefaultMode; m != "" {
			mode, err := ParseMode(m)
			if err != nil {
				return nil, fmt.Errorf("settings %s: permissions.defaultMode: %w", f.Path, err)
			}
			if f.Project && !trusted && mode != ModePlan && mode != ModeAsk && mode != ModeAutoRead && mode != ModeDontAsk {
				untrusted("%s: defaultMode %q is ignored until you trust this workspace (rein trust)", f.Path, m)
			} else {
				st.Mode = mode
			}
		}
		if t := file.Permissions.ApprovalTimeout; t != "" {
			d, err := parseTimeout(t)
			if err != nil {
				return nil, fmt.Errorf("settings %s: permissions.approvalTimeout: %w", f.Path, err)
			}
			st.ApprovalTimeout = d
		}
		if len(bytes.TrimSpace(file.Hooks)) > 0 && f.Project && !trusted && string(bytes.TrimSpace(file.Hooks)) != "{}" {
			untrustedHooks = append(untrustedHooks, f.Path)
		}
		if e := file.Enforce; e != nil {
			if e.Blocker != "" {
				switch e.Blocker {
				case BlockerDeny, BlockerAsk, BlockerOff:
				default:
					return nil, fmt.Errorf("settings %s: enforce.blocker %q: use deny, ask or off", f.Path, e.Blocker)
				}
				if f.Project && !trusted && e.Blocker != BlockerDeny {
					untrusted("%s: enforce.blocker %q is ignored until you trust this workspace (rein trust)", f.Path, e.Blocker)
				} else {
					st.Enforce.Blocker = e.Blocker
				}
			}
			if e.Sensors != nil {
				if f.Project && !trusted {
					untrusted("%s: sensors run commands and are skipped until you trust this workspace (rein trust)", f.Path)
				} else {
					for i, s := range e.Sensors {
						if err := s.check(); err != nil {
							return nil, fmt.Errorf("settings %s: enforce.sensors[%d]: %w", f.Path, i, err)
						}
					}
					st.Enforce.Sensors = append(st.Enforce.Sensors, e.Sensors...)
				}
			}
			if e.DefaultSensors != nil {
				if f.Project && !trusted && !*e.DefaultSensors {
					untrusted("%s: defaultSensors false is ignored until you trust this workspace (rein trust)", f.Path)
				} else {
					st.Enforce.DefaultSensors = e.DefaultSensors
				}
			}
			if e.CommitGate != nil {
				if f.Project && !trusted && e.CommitGate.Command != "" {
					untrusted("%s: the commit gate runs a command and is skipped until you trust this workspace (rein trust)", f.Path)
				} else {
					st.Enforce.CommitGate = e.CommitGate
				}
			}
		}
	}
	if len(untrustedAllow) > 0 {
		untrusted("this workspace is not trusted, so its allow rules (%s) are ignored; rein trust applies them", strings.Join(untrustedAllow, ", "))
	}
	if len(untrustedHooks) > 0 {
		untrusted("this workspace is not trusted, so the hooks in %s do not run; rein trust runs them", strings.Join(untrustedHooks, ", "))
	}
	return st, nil
}

func stronger(a, b Effect) Effect {
	rank := map[Effect]int{Deny: 3, Ask: 2, Allow: 1}
	if rank[a] >= rank[b] {
		return a
	}
	return b
}

func parseTimeout(s string) (time.Duration, error) {
	switch strings.TrimSpace(s) {
	case "0", "none", "never":
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration such as 90s or 5m", s)
	}
	return d, nil
}

// settingsRoot is what "/path" rules of a settings file are relative to:
// the directory above .claude/ or .rein/, else the file's directory.
func settingsRoot(file string) string {
	dir := filepath.Dir(file)
	if b := filepath.Base(dir); b == ".claude" || b == ".rein" {
		return filepath.Dir(dir)
	}
	return dir
}

// decodeSettings decodes one file, reporting the line of a syntax error.
func decodeSettings(f *SettingsFile, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("settings %s:%d: malformed JSON: %v", f.Path, line(data, se.Offset), se)
		case errors.As(err, &te):
			return fmt.Errorf("settings %s:%d: %s: cannot use a JSON %s here", f.Path, line(data, te.Offset), te.Field, te.Value)
		}
		return fmt.Errorf("settings %s: %w", f.Path, err)
	}
	return nil
}

func line(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// RememberRule adds rule to the allow list of the settings file at path,
// creating the file, keeping its other content, and writing it
// atomically. A rule already there is not added twice.
func RememberRule(path, rule string) error {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("settings %s is not a JSON object, so the rule was not stored: %w", path, err)
		}
	}
	perms := map[string]json.RawMessage{}
	if raw, ok := doc["permissions"]; ok {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return fmt.Errorf("settings %s: permissions is not an object: %w", path, err)
		}
	}
	var allow []string
	if raw, ok := perms["allow"]; ok {
		if err := json.Unmarshal(raw, &allow); err != nil {
			return fmt.Errorf("settings %s: permissions.allow is not a list of strings: %w", path, err)
		}
	}
	if slices.Contains(allow, rule) {
		return nil
	}
	allow = append(allow, rule)
	perms["allow"], _ = json.Marshal(allow)
	doc["permissions"], _ = json.Marshal(perms)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(out, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// UserRule rewrites a rule suggested for the project (paths relative to
// the workspace root, "/src/**") for the user's settings, where "/" would
// mean the user's config directory: project paths become absolute
// ("//home/me/proj/src/**").
func UserRule(rule, workspace string) string {
	i := strings.IndexByte(rule, '(')
	if i < 0 || !pathTools[rule[:i]] {
		return rule
	}
	spec := rule[i+1 : len(rule)-1]
	if strings.HasPrefix(spec, "/") && !strings.HasPrefix(spec, "//") {
		return rule[:i+1] + "/" + filepath.ToSlash(workspace) + spec + ")"
	}
	return rule
}
