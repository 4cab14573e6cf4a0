package subagent

import (
	"os"
	"path/filepath"
	"testing"
)

// Any file text is either a definition or a skip with a reason; any
// --agents value is a catalog or a *JSONError. Nothing panics.
func FuzzDefinition(f *testing.F) {
	f.Add("---\nname: a\ndescription: d\ntools: Read, Agent(x)\nmaxTurns: 3\n---\nbody\n", `{"a": {"description": "d"}}`)
	f.Add("---\nname: [\n---\n", `{"a": {"description": "d", "maxTurns": 1.5}}`)
	f.Add("---\nmcpServers: [{x: {command: y}}, 3]\n---\n", `[]`)
	dir := f.TempDir()
	path := filepath.Join(dir, "a.md")
	known := knownTool(nil)
	f.Fuzz(func(t *testing.T, text, js string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		d, skip := readFile(path, known)
		if skip == nil && (d.Name == "" || d.Description == "" || d.MaxTurns < 0) {
			t.Fatalf("loaded an unusable definition: %+v", d)
		}
		if skip != nil && skip.Reason == "" {
			t.Fatal("skipped without a reason")
		}
		if _, err := Discover(DiscoverOptions{JSON: js}); err != nil {
			if _, ok := err.(*JSONError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
		}
	})
}
