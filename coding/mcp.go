package coding

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/trust"
)

// MCPConfig reads the MCP servers of the user and of workspace, with
// the servers named in disable (or all, for "all") turned off. The
// workspace's own files (.mcp.json, the mcpServers of .rein/config.json)
// count only when the user trusts their content (and Warn says which
// wait).
func MCPConfig(o Options, workspace string, disable []string) (*mcp.Config, error) {
	o.defaults()
	var st *trust.Status
	if workspace != "" {
		var err error
		if st, err = WorkspaceTrust(o, workspace); err != nil {
			return nil, err
		}
	}
	return mcpConfig(o, workspace, disable, st, true)
}

// mcpConfig is MCPConfig with the workspace's trust known; warn says
// whether to name the servers left out.
func mcpConfig(o Options, workspace string, disable []string, st *trust.Status, warn bool) (*mcp.Config, error) {
	dir := ConfigDir(o.Getenv)
	paths := mcp.Paths(dir, "")
	if workspace != "" {
		for _, p := range mcp.Paths("", workspace) {
			if st.Trusted(p) {
				paths = append(paths, p)
				continue
			}
			// A cloned repository must not start commands by being
			// opened: its own servers wait until the user trusts them.
			if pc, err := mcp.LoadFiles(p); err == nil && len(pc.Servers) > 0 && warn {
				o.Warn("the MCP servers of " + p + " (" + strings.Join(pc.Names(), ", ") + ") start once you trust it: rein trust")
			}
		}
	}
	files, err := mcp.LoadFiles(paths...)
	if err != nil {
		return nil, configError(err, paths...)
	}
	// Claude Code's ~/.claude.json: its user servers rank below rein's
	// files, the ones it keeps for this directory above (as its local
	// scope ranks above a project's .mcp.json). It is the user's own
	// file, so no trust is needed.
	cfg := &mcp.Config{Servers: map[string]mcp.ServerConfig{}}
	if home := o.Getenv("HOME"); home != "" {
		claudeFile := filepath.Join(home, ".claude.json")
		cj, err := mcp.LoadClaudeJSON(claudeFile, workspace)
		if err != nil {
			return nil, configError(err, claudeFile)
		}
		if warn {
			for _, sk := range cj.Skipped {
				o.Warn("warning: " + sk)
			}
		}
		cfg.Merge(cj.User)
		cfg.Merge(files)
		cfg.Merge(cj.Local)
	} else {
		cfg = files
	}
	for _, name := range disable {
		if name == "all" {
			return cfg, cfg.Disable(cfg.Names()...)
		}
	}
	return cfg, cfg.Disable(disable...)
}

// newMCP returns a manager for the configured servers, not yet started,
// or nil when none is configured or no tools are offered at all. Servers
// inherit the environment without the model API keys, as bash does.
func (s *setup) newMCP(cfg *mcp.Config, onChange func()) *mcp.Manager {
	if cfg == nil || len(cfg.Servers) == 0 || s.noTools() {
		return nil
	}
	var wrap mcp.CommandWrapper
	if w := s.confiner("mcp"); w != nil {
		wrap = func(_ string, cmd *exec.Cmd) (*exec.Cmd, error) { return w(cmd) }
	}
	return mcp.New(cfg, mcp.Options{
		Workdir:  s.ws.Root,
		BaseEnv:  s.childEnv(),
		Getenv:   s.o.Getenv,
		Version:  s.o.Version,
		OnChange: onChange,
		Wrap:     wrap,
		Meta:     traceMeta,
	})
}

// reportMCP warns once for every server that is not ready.
func (s *setup) reportMCP(m *mcp.Manager) {
	l := s.o.Logs.Logger("mcp")
	for _, st := range m.Status() {
		l.Info("server", "name", st.Name, "state", st.State, "error", st.Error)
		switch {
		case st.State == mcp.StateReady, st.State == mcp.StateDisabled, st.Remembered:
		default:
			s.o.warnf("mcp: server %s is %s: %s (rein mcp list shows details)", st.Name, st.State, st.Error)
		}
	}
}

// mcpTools is the bridge between the MCP manager and the harness: it
// builds the registry of the base tools plus MCP tools, and hands a new
// one to the harness when a server's tools change; the harness uses it
// from the next turn on.
type mcpTools struct {
	base *tool.Registry
	mu   sync.Mutex
	m    *mcp.Manager
	h    *harness.Harness
	// keep, when set, says which of the servers' tools are offered (a
	// sub-agent's policy: its definition's tools and both deny lists).
	keep func(name string) bool
}

func (b *mcpTools) registry() (*tool.Registry, error) {
	if b.m == nil {
		return b.base, nil
	}
	reg, err := b.m.Registry(b.base)
	if err != nil || b.keep == nil {
		return reg, err
	}
	var kept []*tool.Tool
	for _, t := range reg.Tools() {
		if !strings.HasPrefix(t.Name, "mcp__") || b.keep(t.Name) {
			kept = append(kept, t)
		}
	}
	return tool.NewRegistry(kept...)
}

// close stops the servers, when there are any.
func (b *mcpTools) close() {
	if b.m != nil {
		b.m.Close()
	}
}

// changed is the manager's OnChange.
func (b *mcpTools) changed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == nil || b.m == nil {
		return
	}
	if reg, err := b.registry(); err == nil {
		_ = b.h.SetTools(reg, nil)
	}
}

func (b *mcpTools) attach(h *harness.Harness) {
	b.mu.Lock()
	b.h = h
	b.mu.Unlock()
	b.changed()
}
