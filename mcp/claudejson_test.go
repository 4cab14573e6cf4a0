package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code's ~/.claude.json gives its user servers and the ones kept
// for this directory; a server rein cannot run is skipped with the
// reason, not an error; another project's servers stay out.
func TestLoadClaudeJSON(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, ".claude.json")
	body := `{"numStartups": 3, "mcpServers": {"userfs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"]}, "remote": {"type": "sse", "url": "http://127.0.0.1:9/sse"}},
"projects": {"` + ws + `": {"mcpServers": {"localtool": {"command": "tool", "env": {"K": "v"}}, "bad name!": {"command": "x"}}}, "/elsewhere": {"mcpServers": {"other": {"command": "x"}}}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cj, err := LoadClaudeJSON(path, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := cj.User.Names(); !slices.Equal(got, []string{"userfs"}) {
		t.Errorf("user servers %v", got)
	}
	if got := cj.Local.Names(); !slices.Equal(got, []string{"localtool"}) || cj.Local.Servers["localtool"].Env["K"] != "v" {
		t.Errorf("local servers %v %+v", got, cj.Local.Servers)
	}
	skipped := strings.Join(cj.Skipped, "\n")
	if len(cj.Skipped) != 2 || !strings.Contains(skipped, `remote skipped`) || !strings.Contains(skipped, `type "sse" is not supported`) ||
		!strings.Contains(skipped, `bad name! skipped`) {
		t.Errorf("skipped %q", cj.Skipped)
	}
	// No file: nothing, no error; a file that is not JSON: an error.
	if cj, err := LoadClaudeJSON(filepath.Join(dir, "none.json"), ws); err != nil || len(cj.User.Servers)+len(cj.Local.Servers) != 0 {
		t.Errorf("missing file: %+v %v", cj, err)
	}
	os.WriteFile(path, []byte("{oops"), 0o600)
	if _, err := LoadClaudeJSON(path, ws); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("broken file: %v", err)
	}
}
