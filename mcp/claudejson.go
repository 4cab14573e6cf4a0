package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// ClaudeJSON is what Claude Code's ~/.claude.json holds of MCP servers:
// the user's (its top-level mcpServers, "user" scope) and those it keeps
// for one project directory (projects[dir].mcpServers, "local" scope).
type ClaudeJSON struct {
	User, Local *Config
	// Skipped says which servers were left out and why (a name rein
	// cannot use, a transport it does not speak): Claude Code's file is
	// read leniently, since rein did not write it.
	Skipped []string
}

// LoadClaudeJSON reads the MCP servers of Claude Code's user file for
// workspace. A missing file gives empty configs; a file that is not JSON
// is an error. Each usable server is parsed as rein's own config files
// are; one that is not is skipped with the reason in Skipped.
func LoadClaudeJSON(path, workspace string) (*ClaudeJSON, error) {
	out := &ClaudeJSON{User: &Config{Servers: map[string]ServerConfig{}}, Local: &Config{Servers: map[string]ServerConfig{}}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Servers  map[string]json.RawMessage `json:"mcpServers"`
		Projects map[string]struct {
			Servers map[string]json.RawMessage `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", path, err)
	}
	out.User = out.lenient(path, "mcpServers", doc.Servers)
	if workspace != "" {
		dirs := []string{workspace}
		if real, err := filepath.EvalSymlinks(workspace); err == nil && real != workspace {
			dirs = append(dirs, real)
		}
		for _, d := range dirs {
			if p, ok := doc.Projects[d]; ok {
				out.Local = out.lenient(path, "projects["+d+"].mcpServers", p.Servers)
				break
			}
		}
	}
	return out, nil
}

// lenient parses each server on its own, keeping the ones rein can run.
func (c *ClaudeJSON) lenient(path, where string, servers map[string]json.RawMessage) *Config {
	cfg := &Config{Servers: map[string]ServerConfig{}}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		one, _ := json.Marshal(map[string]map[string]json.RawMessage{"mcpServers": {name: servers[name]}})
		sc, err := Parse(path, one)
		if err != nil {
			c.Skipped = append(c.Skipped, fmt.Sprintf("%s %s: %s skipped: %v", path, where, name, err))
			continue
		}
		cfg.merge(sc)
	}
	if len(cfg.Servers) > 0 {
		cfg.Files = []string{path}
	} else {
		cfg.Files = nil
	}
	return cfg
}

// Merge adds o's servers to c, o's winning per name, as LoadFiles merges
// files in order.
func (c *Config) Merge(o *Config) {
	if o != nil {
		c.merge(o)
	}
}
