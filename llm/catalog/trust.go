package catalog

import (
	"fmt"
	"sort"
)

// LoadWorkspace reads the user-level and project-level config files as
// LoadConfig does. Unless projectTrusted, the project file's fields that
// decide where requests and keys go or run a command are left out, and
// named in ignored: a cloned repository must not send the user's key to
// its own server, name a variable to send, or run a key command. They
// are, per provider, api, base_url, headers, api_key, api_key_env,
// api_key_command and profiles; per model, api, base_url and headers;
// and failover.state_file (a file rein writes). (An mcpServers block is
// package mcp's to read, and to leave alone before trust.) The model,
// fallbacks, aliases, skills, limits, timeouts and compatibility
// switches apply either way. The user's own file is always read whole.
func LoadWorkspace(workspace string, getenv func(string) string, projectTrusted bool) (cfg *Config, warns []Warning, ignored []string, err error) {
	cfg = &Config{}
	if p := UserConfigPath(getenv); p != "" {
		c, w, err := LoadFiles(p)
		warns = append(warns, w...)
		if err != nil {
			return nil, warns, nil, err
		}
		cfg.merge(c)
	}
	if workspace == "" {
		return cfg, warns, nil, nil
	}
	c, w, err := LoadFiles(ProjectConfigPath(workspace))
	warns = append(warns, w...)
	if err != nil {
		return nil, warns, nil, err
	}
	if !projectTrusted {
		ignored = c.withoutRouting()
	}
	cfg.merge(c)
	return cfg, warns, ignored, nil
}

// withoutRouting clears the fields that need trust (see LoadWorkspace)
// and names those that were set.
func (c *Config) withoutRouting() []string {
	var out []string
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := c.Providers[name]
		at := "providers." + name + "."
		for _, f := range []struct {
			set   bool
			field string
		}{
			{p.API != "", "api"}, {p.BaseURL != "", "base_url"}, {len(p.Headers) > 0, "headers"},
			{p.APIKey != "", "api_key"}, {p.APIKeyEnv != "", "api_key_env"}, {p.APIKeyCommand != "", "api_key_command"},
			{len(p.Profiles) > 0, "profiles"},
		} {
			if f.set {
				out = append(out, at+f.field)
			}
		}
		p.API, p.BaseURL, p.Headers, p.Profiles = "", "", nil, nil
		p.APIKey, p.APIKeyEnv, p.APIKeyCommand = "", "", ""
		c.Providers[name] = p
	}
	for i := range c.Models {
		m := &c.Models[i]
		at := fmt.Sprintf("models[%s/%s].", m.Provider, m.ID)
		if m.API != "" {
			out = append(out, at+"api")
		}
		if m.BaseURL != "" {
			out = append(out, at+"base_url")
		}
		if len(m.Headers) > 0 {
			out = append(out, at+"headers")
		}
		m.API, m.BaseURL, m.Headers = "", "", nil
	}
	if c.Failover.StateFile != "" {
		out = append(out, "failover.state_file")
		c.Failover.StateFile = ""
	}
	return out
}
