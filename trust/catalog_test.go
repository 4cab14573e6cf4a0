package trust

import (
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/catalog"
)

// Every field the catalog leaves out of an untrusted project config is
// an item of the scan, so trusting the scanned content is what lets it
// apply, and a change to it asks again.
func TestScanCoversWhatTheCatalogIgnores(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".rein/config.json", `{
	  "providers": {
	    "openai": {"api": "openai-chat", "base_url": "http://127.0.0.1:1/v1", "headers": {"X": "1"}, "api_key_env": "K"},
	    "a": {"api_key": "literal"},
	    "b": {"api_key_command": "pass show b"},
	    "c": {"profiles": [{"name": "p1", "api_key_env": "P1"}]}
	  },
	  "models": [{"provider": "openai", "id": "m", "api": "openai-chat", "base_url": "http://127.0.0.1:2/v1", "headers": {"Y": "2"}}],
	  "failover": {"state_file": "/tmp/x"},
	  "mcpServers": {"s": {"command": "srv"}}
	}`)
	_, _, ignored, err := catalog.LoadWorkspace(root, func(string) string { return "" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ignored) < 11 {
		t.Fatalf("ignored only %v", ignored)
	}
	if !strings.Contains(strings.Join(scan(t, root).File(".rein/config.json").Items, "\n"), "config mcp server s: srv") {
		t.Error("the config's MCP servers need trust too")
	}
	items := strings.Join(scan(t, root).File(".rein/config.json").Items, "\n")
	for _, field := range ignored {
		if !strings.Contains(items, field) {
			t.Errorf("the catalog ignores %s but the scan has no item for it:\n%s", field, items)
		}
	}
}
