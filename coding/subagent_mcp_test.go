package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/subagent"
)

// everythingServer is the reference MCP server the mcp package's tests
// start over stdio, installed from npm by .ci/run (REIN_MCP_NPM_DIR
// names another install). Without it the test is skipped, except under
// CI, where it fails.
func everythingServer(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("REIN_MCP_NPM_DIR")
	if dir == "" {
		dir = filepath.Join("..", "mcp", "testdata", "npm")
	}
	p, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything"))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("mcp-server-everything is not installed: run (cd mcp/testdata/npm && npm ci), as .ci/run does")
	}
	t.Skip("mcp-server-everything is not installed (CI installs it)")
	return ""
}

// A definition's mcpServers start for its child when the file is the
// user's, or a workspace's that the user trusts for the run; otherwise
// the child runs without them and a warning names the file.
func TestSubagentMCPServersFromTrustedSources(t *testing.T) {
	bin := everythingServer(t)
	cfg, _ := json.Marshal(map[string]any{"command": bin, "args": []string{"stdio"}})
	for _, tc := range []struct {
		name, scope string
		trustAll    bool
		named       bool // the server is the user's, named by the definition
		want        bool
	}{
		{"user", subagent.ScopeUser, false, false, true},
		{"project untrusted", subagent.ScopeProject, false, false, false},
		{"project trusted for the run", subagent.ScopeProject, true, false, true},
		{"project naming a configured server", subagent.ScopeProject, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			if tc.trustAll {
				e.vars["REIN_TRUST_WORKSPACE"] = "1"
			}
			def := worker("mcpuser")
			def.Scope, def.Source = tc.scope, "/defs/"+tc.scope+"/mcpuser.md"
			def.MCPServers = []string{"ev", "nosuch"}
			if tc.named {
				// The user's own server, which the parent does not run.
				write(t, e.home, map[string]string{".config/rein/mcp.json": `{"mcpServers": {"ev": ` + string(cfg) + `}}`})
			} else {
				def.MCPConfigs = map[string]json.RawMessage{"ev": cfg}
			}
			var mu sync.Mutex
			offered := false
			child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
				if r := lastResult(req); r != "" {
					return text("tool said: " + r), nil
				}
				mu.Lock()
				offered = hasTool(req, "mcp__ev__echo")
				mu.Unlock()
				if !hasTool(req, "mcp__ev__echo") {
					return text("no echo tool"), nil
				}
				return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{faux.Call("mcp__ev__echo", `{"message":"hello from the child"}`)}}, nil
			}
			parent := faux.New(faux.Calls("", agentCall("mcpuser", "echo", false)), faux.Text("done"))
			a := openParent(t, e, parent, child, defs{def}, func(o *Options) { o.PermissionMode = "auto_all" })
			if _, err := a.Submit(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			calls, results := toolResults(t, a.Session().Path())
			got := results[calls[0]]
			mu.Lock()
			defer mu.Unlock()
			warn := strings.Join(e.warnings(), "\n")
			if tc.want {
				if !offered || !strings.Contains(got, "tool said:") || !strings.Contains(got, "hello from the child") {
					t.Fatalf("the child had no working echo tool (offered %v): %q\nwarnings: %s", offered, got, warn)
				}
			} else {
				if offered || !strings.HasPrefix(got, "no echo tool") {
					t.Fatalf("an untrusted project definition's server started (offered %v): %q", offered, got)
				}
				if !strings.Contains(warn, def.Source) || !strings.Contains(warn, "MCP server ev") || !strings.Contains(warn, "rein trust") {
					t.Errorf("no warning naming the file: %s", warn)
				}
			}
			if !strings.Contains(warn, `mcpServers names "nosuch", which is not a configured MCP server`) {
				t.Errorf("no warning for the unknown server name: %s", warn)
			}
			// The parent never started the child's inline server.
			if hasServer := a.bridge.m != nil; hasServer && !tc.named {
				t.Errorf("the parent runs MCP servers of its own")
			}
		})
	}
}

// A definition that denies one tool of its MCP server
// (disallowedTools: mcp__server__tool) gets the server's other tools, not
// that one.
func TestSubagentMCPToolDenied(t *testing.T) {
	bin := everythingServer(t)
	cfg, _ := json.Marshal(map[string]any{"command": bin, "args": []string{"stdio"}})
	e := newTestEnv(t)
	def := worker("mcpuser")
	def.Scope, def.Source = subagent.ScopeUser, "/defs/user/mcpuser.md"
	def.MCPServers = []string{"ev"}
	def.MCPConfigs = map[string]json.RawMessage{"ev": cfg}
	def.DisallowedTools = []string{"mcp__ev__echo"}
	var mu sync.Mutex
	var offered []string
	child := func(_ context.Context, req *llm.Request) (llm.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, tl := range req.Tools {
			if strings.HasPrefix(tl.Name, "mcp__ev__") {
				offered = append(offered, tl.Name)
			}
		}
		return text("looked"), nil
	}
	parent := faux.New(faux.Calls("", agentCall("mcpuser", "look", false)), faux.Text("done"))
	a := openParent(t, e, parent, child, defs{def}, func(o *Options) { o.PermissionMode = "auto_all" })
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(offered) == 0 || slices.Contains(offered, "mcp__ev__echo") {
		t.Fatalf("the child was offered %v: want the server's tools without mcp__ev__echo", offered)
	}
}
