package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// ServerConfig is one entry of an mcpServers block. A server is either a
// command started over stdio (Command, Args, Env, Cwd) or a streamable
// HTTP endpoint (Type "http", URL, Headers). Values of Env and Headers,
// and the URL, may name environment variables as ${VAR} or
// ${VAR:-default}; they are expanded when the server starts.
type ServerConfig struct {
	// Type is "stdio" (the default when Command is set) or "http"
	// ("streamable-http" is accepted as a synonym).
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled keeps the server from starting. An entry holding only
	// "disabled": true disables a server of the same name declared in an
	// earlier file.
	Disabled bool `json:"disabled,omitempty"`
	// Timeout bounds one tool call, in milliseconds; zero means the tool
	// chain's default.
	Timeout int `json:"timeout,omitempty"`
}

// transport returns "stdio" or "http", or "" when the entry says neither.
func (s ServerConfig) transport() string {
	switch strings.ToLower(s.Type) {
	case "http", "streamable-http", "streamable_http", "streamablehttp":
		return "http"
	case "stdio":
		return "stdio"
	case "":
		if s.Command != "" {
			return "stdio"
		}
		if s.URL != "" {
			return "http"
		}
	}
	return ""
}

// Config is the merged set of servers, by name.
type Config struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
	// Files lists the files the config was read from, in merge order.
	Files []string `json:"-"`
}

// Names returns the server names, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Disable marks the named servers disabled. Unknown names are an error
// that lists the known ones.
func (c *Config) Disable(names ...string) error {
	for _, n := range names {
		s, ok := c.Servers[n]
		if !ok {
			return fmt.Errorf("no MCP server is named %q; configured: %s", n, strings.Join(c.Names(), ", "))
		}
		s.Disabled = true
		c.Servers[n] = s
	}
	return nil
}

// serverName is what a server may be called: it becomes part of tool
// names, which models accept only in [A-Za-z0-9_-].
var serverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`) })

// Parse reads the mcpServers block of one file (rein's config, .mcp.json
// or mcp.json); a file without the block yields an empty config. name is
// used in errors.
func Parse(name string, data []byte) (*Config, error) {
	var doc struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", name, err)
	}
	c := &Config{Servers: map[string]ServerConfig{}, Files: []string{name}}
	for n, raw := range doc.Servers {
		if !serverName().MatchString(n) {
			return nil, fmt.Errorf("%s: MCP server name %q: use 1 to 40 letters, digits, '-' or '_'", name, n)
		}
		var s ServerConfig
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: mcpServers.%s: %w", name, n, err)
		}
		onlyDisable := s.Disabled && s.Command == "" && s.URL == ""
		if !onlyDisable {
			switch s.transport() {
			case "stdio":
				if s.Command == "" {
					return nil, fmt.Errorf("%s: mcpServers.%s: a stdio server needs a \"command\"", name, n)
				}
			case "http":
				if s.URL == "" {
					return nil, fmt.Errorf("%s: mcpServers.%s: an http server needs a \"url\"", name, n)
				}
			default:
				if s.Type == "" {
					return nil, fmt.Errorf("%s: mcpServers.%s: give a \"command\" (a stdio server) or a \"url\" (an http server)", name, n)
				}
				return nil, fmt.Errorf("%s: mcpServers.%s: type %q is not supported; use \"stdio\" (with command) or \"http\" (with url)", name, n, s.Type)
			}
		}
		c.Servers[n] = s
	}
	return c, nil
}

// LoadFiles reads and merges the files in order; later files win per
// server name. Missing files are skipped.
func LoadFiles(paths ...string) (*Config, error) {
	out := &Config{Servers: map[string]ServerConfig{}}
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		out.merge(c)
	}
	return out, nil
}

func (c *Config) merge(o *Config) {
	for n, s := range o.Servers {
		if s.Disabled && s.Command == "" && s.URL == "" {
			prev, ok := c.Servers[n]
			if ok {
				prev.Disabled = true
				c.Servers[n] = prev
				continue
			}
		}
		c.Servers[n] = s
	}
	c.Files = append(c.Files, o.Files...)
}

// Paths returns the files rein reads MCP servers from, lowest precedence
// first: the user's mcp.json and config.json under configDir (such as
// ~/.config/rein), then the workspace's .mcp.json and .rein/config.json.
// Empty arguments leave their files out.
func Paths(configDir, workspace string) []string {
	var out []string
	if configDir != "" {
		out = append(out, filepath.Join(configDir, "mcp.json"), filepath.Join(configDir, "config.json"))
	}
	if workspace != "" {
		out = append(out, filepath.Join(workspace, ".mcp.json"), filepath.Join(workspace, ".rein", "config.json"))
	}
	return out
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`) })

// expand replaces ${VAR} and ${VAR:-default} in s with values from getenv.
// It reports the variables that were unset and had no default.
func expand(s string, getenv func(string) string, missing *[]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return envRef().ReplaceAllStringFunc(s, func(m string) string {
		sub := envRef().FindStringSubmatch(m)
		if v := getenv(sub[1]); v != "" {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		if missing != nil && !slices.Contains(*missing, sub[1]) {
			*missing = append(*missing, sub[1])
		}
		return ""
	})
}

func (s *ServerConfig) callTimeout() time.Duration {
	return time.Duration(s.Timeout) * time.Millisecond
}
