package coding

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// tiers orders rein's packages from the ground up, as the architecture
// page's table does: a package may import its own tier and those below,
// never one above. Packages not listed (added since) are not checked
// beyond the cmd rule.
var tiers = [][]string{
	{"internal/jsonread", "internal/proc", "internal/sse", "redact", "sandbox", "trust"},
	{"llm"},
	// Helpers only providers use; internal/wire moves under llm/internal.
	{"internal/wire", "llm/internal/sse", "llm/internal/wire"},
	{"llm/faux", "llm/textcall", "llm/llmtest", "llm/failover", "llm/anthropic", "llm/openai", "llm/gemini"},
	{"llm/catalog"},
	{"tool", "session", "injection", "hook", "compact", "interop"},
	{"agent", "tool/builtin", "guard", "trajectory", "mcp", "permission", "hook/command"},
	{"prompt", "guard/replay", "subagent"},
	{"harness"},
	{"coding/claudecode"},
	{"coding", "coding/demo"},
	{"tui"},
	{"cmd/rein"},
}

// avoids names imports that the tiers allow but that would bring in code
// a package has no use for: the permission gate runs commands through
// internal/proc, not the hook packages, and prompt reads allowed-tools
// lists with tool.SplitList, not with the permission gate's shell parser.
var avoids = map[string][]string{
	"permission": {"hook", "hook/command"},
	"prompt":     {"permission"},
}

// The import graph has no arrow pointing up the tiers, nothing imports a
// command, and coding knows nothing of terminals or HTTP servers.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/reinhq/rein/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, mod+"...").Output()
	if err != nil {
		t.Fatal(err)
	}
	tier := map[string]int{}
	for i, ps := range tiers {
		for _, p := range ps {
			tier[p] = i
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	checked := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(f[0], mod)
		from, known := tier[pkg]
		for _, imp := range f[1:] {
			if pkg == "coding" && (strings.HasPrefix(imp, "charm.land/") || imp == mod+"tui" || imp == "net/http") {
				t.Errorf("coding imports %s: it must not know about terminals or HTTP", imp)
			}
			dep, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if slices.Contains(avoids[pkg], dep) {
				t.Errorf("%s imports %s", pkg, dep)
			}
			if strings.HasPrefix(dep, "cmd/") {
				t.Errorf("%s imports the command %s", pkg, dep)
			}
			to, depKnown := tier[dep]
			if !known || !depKnown {
				continue
			}
			checked++
			if to > from {
				t.Errorf("%s (tier %d) imports %s (tier %d), which sits above it", pkg, from, dep, to)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d imports checked: the tiers no longer name the packages", checked)
	}
}
