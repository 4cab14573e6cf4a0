package coding

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/permission"
)

// ConfigDir is rein's user config directory (~/.config/rein), or "" when
// the environment names no home.
func ConfigDir(getenv func(string) string) string {
	if p := catalog.UserConfigPath(getenv); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// TrustStore is the user's list of trusted workspaces; its Path is ""
// without a user config directory.
func TrustStore(getenv func(string) string) permission.Trust {
	d := ConfigDir(getenv)
	if d == "" {
		return permission.Trust{}
	}
	return permission.Trust{Path: filepath.Join(d, "trusted.json")}
}

// trusted reports whether the user trusts the workspace, so that its
// own settings may run commands.
func (s *setup) trusted() bool {
	t := TrustStore(s.o.Getenv)
	return t.Path != "" && t.Trusted(s.ws.Root)
}

// UntrustedFeatures describes what the project's settings would do that
// needs trust, or "" when nothing does.
func UntrustedFeatures(root string) string {
	var parts []string
	for _, f := range permission.SettingsPaths(root, "", "") {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		var doc struct {
			Hooks       map[string]json.RawMessage `json:"hooks"`
			Permissions struct {
				Allow       []string `json:"allow"`
				DefaultMode string   `json:"defaultMode"`
			} `json:"permissions"`
			Enforce *struct {
				Sensors    []json.RawMessage `json:"sensors"`
				CommitGate *json.RawMessage  `json:"commitGate"`
			} `json:"enforce"`
		}
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		rel, _ := filepath.Rel(root, f.Path)
		var what []string
		if len(doc.Hooks) > 0 {
			what = append(what, "run hooks")
		}
		if len(doc.Permissions.Allow) > 0 || doc.Permissions.DefaultMode != "" {
			what = append(what, "allow tool calls")
		}
		if doc.Enforce != nil && (len(doc.Enforce.Sensors) > 0 || doc.Enforce.CommitGate != nil) {
			what = append(what, "run checks")
		}
		if len(what) > 0 {
			parts = append(parts, "("+rel+") "+strings.Join(what, ", "))
		}
	}
	if pc, err := mcp.LoadFiles(mcp.Paths("", root)...); err == nil && len(pc.Servers) > 0 {
		parts = append(parts, "(MCP) start servers "+strings.Join(pc.Names(), ", "))
	}
	return strings.Join(parts, "; ")
}
