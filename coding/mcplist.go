package coding

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/mcp"
)

// MCPServers starts every MCP server configured for workspace (see
// MCPConfig) as an agent opened with o would, waits until each started
// or failed (each within timeout; 0 is mcp.DefaultStartTimeout), stops
// them all and returns their states, tools and errors. o's Getenv,
// Warn and Version apply. looked lists the files read when no server
// is configured, so that the caller can say where to add one.
func MCPServers(ctx context.Context, o Options, workspace string, timeout time.Duration) (sts []mcp.Status, looked []string, err error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	cfg, err := MCPConfig(o, workspace, nil)
	if err != nil {
		return nil, nil, err
	}
	m := mcp.New(cfg, mcp.Options{Workdir: workspace, Getenv: o.Getenv, Version: o.Version, StartTimeout: timeout,
		BaseEnv: ChildEnv(Options{Getenv: o.Getenv}, workspace)})
	m.Start(ctx)
	m.WaitStarted(ctx)
	defer m.Close()
	sts = m.Status()
	if len(sts) == 0 {
		user := ""
		if p := catalog.UserConfigPath(o.Getenv); p != "" {
			user = filepath.Dir(p)
		}
		looked = mcp.Paths(user, workspace)
		if home := o.Getenv("HOME"); home != "" {
			looked = append(looked, filepath.Join(home, ".claude.json"))
		}
	}
	return sts, looked, nil
}
