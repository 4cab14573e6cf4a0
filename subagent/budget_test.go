package subagent

import (
	"path/filepath"
	"strings"
	"testing"
)

// The budget keys land in Definition.Budget without an unknown-key
// warning; a value that is not a positive amount skips the file with the
// key named.
func TestDiscoverBudgetKeys(t *testing.T) {
	w := t.TempDir()
	dir := filepath.Join(w, ".rein/agents")
	write(t, filepath.Join(dir, "cheap.md"), "---\nname: cheap\ndescription: d\nmaxCostUsd: 0.25\nmaxInputTokens: 40000\nmaxOutputTokens: \"2000\"\n---\nbody\n")
	write(t, filepath.Join(dir, "neg.md"), "---\nname: neg\ndescription: d\nmaxCostUsd: -1\n---\nbody\n")
	write(t, filepath.Join(dir, "frac.md"), "---\nname: frac\ndescription: d\nmaxInputTokens: 10.5\n---\nbody\n")
	write(t, filepath.Join(dir, "word.md"), "---\nname: word\ndescription: d\nmaxOutputTokens: lots\n---\nbody\n")
	c, err := Discover(DiscoverOptions{Workdir: w, ConfigDir: "-", ClaudeDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := c.Lookup("cheap")
	if !ok {
		t.Fatalf("cheap.md skipped: %v", c.Skipped)
	}
	if want := (Budget{CostUSD: 0.25, InputTokens: 40000, OutputTokens: 2000}); d.Budget != want {
		t.Errorf("budget %+v, want %+v", d.Budget, want)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings for the budget keys: %v", d.Warnings)
	}
	reasons := map[string]string{}
	for _, s := range c.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	for file, want := range map[string]string{"neg.md": "maxCostUsd is -1", "frac.md": "maxInputTokens is 10.5", "word.md": "maxOutputTokens is lots"} {
		if !strings.Contains(reasons[file], want) {
			t.Errorf("%s: skipped with %q, want %q", file, reasons[file], want)
		}
	}
	// --agents JSON takes the same keys.
	cat, err := Discover(DiscoverOptions{Workdir: w, ConfigDir: "-", ClaudeDir: "-",
		JSON: `{"j": {"description": "d", "prompt": "p", "maxCostUsd": 1.5, "maxOutputTokens": 300}}`})
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := cat.Lookup("j"); j.Budget != (Budget{CostUSD: 1.5, OutputTokens: 300}) || len(j.Warnings) != 0 {
		t.Errorf("--agents budget %+v, warnings %v", j.Budget, j.Warnings)
	}
}
