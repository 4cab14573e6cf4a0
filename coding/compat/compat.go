// Package compat finds what a Claude Code setup holds that rein does not
// honour — settings keys it does not read, hook events it does not run,
// hook types other than commands, output styles — so that a front-end
// can say so once at start-up instead of ignoring it silently. It reads
// files and acts on nothing; what rein does honour (CLAUDE.md, commands,
// skills, agents, permissions, hooks, env) is not reported.
package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinhq/rein/hook"
)

// DocLink is where the differences are explained.
const DocLink = "docs/claude-code.md#what-rein-does-not-honour"

// Finding is one thing rein does not honour.
type Finding struct {
	// File is the settings file or folder it is in.
	File string
	// Key names it inside File: a settings key ("statusLine",
	// "permissions.additionalDirectories", "hooks.Setup",
	// "hooks.PreToolUse[0].hooks[1]"), or "" for a whole folder.
	Key string
	// Why says what rein does instead.
	Why string
}

// Options say where to look.
type Options struct {
	// Workspace is the project root: its .claude/settings.json,
	// .claude/settings.local.json and .claude/output-styles/.
	Workspace string
	// Home is the user's home: ~/.claude/settings.json and
	// ~/.claude/output-styles/. Empty skips the user's files.
	Home string
}

// settingsKeys are the top-level keys of Claude Code's settings files
// that rein reads ($schema only names the schema; enforce is rein's own).
var settingsKeys = []string{"$schema", "permissions", "hooks", "env", "enforce"}

// permissionKeys are the keys of "permissions" rein reads.
var permissionKeys = []string{"allow", "ask", "deny", "defaultMode", "approvalTimeout"}

// reasons say what rein does instead of known keys it does not read;
// other keys get a general reason.
var reasons = map[string]string{
	"statusLine":                               "the terminal UI shows its own status line",
	"outputStyle":                              "output styles are not supported",
	"enabledPlugins":                           "plugins are not supported",
	"extraKnownMarketplaces":                   "plugins are not supported",
	"apiKeyHelper":                             "rein reads keys from the environment and its config (rein models)",
	"awsAuthRefresh":                           "rein reads keys from the environment and its config",
	"awsCredentialExport":                      "rein reads keys from the environment and its config",
	"model":                                    "choose the model with --model or .rein/config.json",
	"disableAllHooks":                          "rein still runs the hooks; remove them to stop them",
	"allowManagedHooksOnly":                    "rein runs the hooks of every settings file",
	"sandbox":                                  "rein's sandbox is set in .rein/security.json",
	"enableAllProjectMcpServers":               "rein asks to trust .mcp.json instead (rein trust)",
	"enabledMcpjsonServers":                    "rein asks to trust .mcp.json instead (rein trust)",
	"disabledMcpjsonServers":                   "rein asks to trust .mcp.json instead (rein trust)",
	"cleanupPeriodDays":                        "rein keeps sessions until you remove them",
	"includeCoAuthoredBy":                      "rein adds no attribution to commits",
	"attribution":                              "rein adds no attribution to commits",
	"forceLoginMethod":                         "rein has no login",
	"permissions.additionalDirectories":        "rein's tools keep to the workspace",
	"permissions.disableBypassPermissionsMode": "bypassPermissions (auto_all) stays available",
}

// Scan reads the Claude Code settings files and folders of o and returns
// what rein does not honour, in a stable order: the user's files first,
// then the workspace's. Files that are missing or not valid JSON are
// passed over (loading the settings reports the latter).
func Scan(o Options) []Finding {
	var out []Finding
	var files, styles []string
	if o.Home != "" {
		files = append(files, filepath.Join(o.Home, ".claude", "settings.json"))
		styles = append(styles, filepath.Join(o.Home, ".claude", "output-styles"))
	}
	if o.Workspace != "" {
		files = append(files, filepath.Join(o.Workspace, ".claude", "settings.json"), filepath.Join(o.Workspace, ".claude", "settings.local.json"))
		styles = append(styles, filepath.Join(o.Workspace, ".claude", "output-styles"))
	}
	files, styles = unique(files), unique(styles)
	for _, f := range files {
		out = append(out, scanSettings(f)...)
	}
	for _, d := range styles {
		if hasMarkdown(d) {
			out = append(out, Finding{File: d, Why: "output styles are not supported"})
		}
	}
	return out
}

func scanSettings(path string) []Finding {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []Finding
	add := func(key, why string) {
		if why == "" {
			why = reasons[key]
		}
		if why == "" {
			why = "not read by rein"
		}
		out = append(out, Finding{File: path, Key: key, Why: why})
	}
	for _, k := range sortedKeys(doc) {
		if !slices.Contains(settingsKeys, k) {
			add(k, "")
		}
	}
	var perms map[string]json.RawMessage
	if json.Unmarshal(doc["permissions"], &perms) == nil {
		for _, k := range sortedKeys(perms) {
			if !slices.Contains(permissionKeys, k) {
				add("permissions."+k, "")
			}
		}
	}
	var hooks map[string][]struct {
		Hooks []struct {
			Type string `json:"type"`
		} `json:"hooks"`
	}
	if json.Unmarshal(doc["hooks"], &hooks) == nil {
		known := hook.CommandEvents()
		for _, ev := range sortedKeys(hooks) {
			if !slices.Contains(known, hook.CommandEvent(ev)) {
				add("hooks."+ev, fmt.Sprintf("rein runs no %s hooks", ev))
				continue
			}
			for gi, g := range hooks[ev] {
				for hi, h := range g.Hooks {
					if h.Type != "" && h.Type != "command" {
						add(fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev, gi, hi), fmt.Sprintf("rein runs only command hooks, not %q ones", h.Type))
					}
				}
			}
		}
	}
	return out
}

// hasMarkdown reports whether dir holds a .md file.
func hasMarkdown(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			return true
		}
	}
	return false
}

// unique drops repeated paths (a workspace that is the home folder).
func unique(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Notice is the one start-up line about the findings, naming each file
// (relative to o.Workspace, or under ~ for o.Home) and key with what rein
// does instead; "" when there are none.
func Notice(fs []Finding, o Options) string {
	if len(fs) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(fs); {
		file := fs[i].File
		var items []string
		for ; i < len(fs) && fs[i].File == file; i++ {
			if fs[i].Key == "" {
				items = append(items, fs[i].Why)
			} else {
				items = append(items, fs[i].Key+" ("+fs[i].Why+")")
			}
		}
		parts = append(parts, display(file, o)+": "+strings.Join(items, ", "))
	}
	return "note: rein does not honour part of the Claude Code setup (" + DocLink + "): " + strings.Join(parts, "; ")
}

// display shortens path for the notice.
func display(path string, o Options) string {
	if o.Workspace != "" {
		if rel, err := filepath.Rel(o.Workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	if o.Home != "" {
		if rel, err := filepath.Rel(o.Home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + rel
		}
	}
	return path
}
