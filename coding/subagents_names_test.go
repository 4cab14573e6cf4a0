package coding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// A model that calls the agent tool by Claude Code's names, Task or
// Agent, is held to Agent(x)/Task(x) permission rules and seen by hooks
// whose matcher is Agent or Task, as a call named agent is.
func TestAgentToolAliasesMeetRulesAndHooks(t *testing.T) {
	for _, name := range []string{"Task", "Agent", "agent"} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			log := filepath.Join(t.TempDir(), "hook.log")
			write(t, e.home, map[string]string{".claude/settings.json": `{
  "permissions": {"deny": ["Task(deployer)"], "allow": ["Agent(worker)"]},
  "hooks": {"PreToolUse": [{"matcher": "Agent", "hooks": [{"type": "command",
    "command": "cat >> ` + log + `; echo >> ` + log + `"}]}]}}`})
			call := func(typ string) llm.Content {
				b, _ := json.Marshal(map[string]any{"subagent_type": typ, "description": "d", "prompt": "go " + typ})
				return faux.Call(name, string(b))
			}
			parent := faux.New(faux.Calls("", call("deployer")), faux.Calls("", call("worker")), faux.Text("done"))
			a := openParent(t, e, parent, echo, defs{worker("worker"), worker("deployer")}, func(o *Options) { o.PermissionMode = "ask" })
			if _, err := a.Submit(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			calls, results := toolResults(t, a.Session().Path())
			if len(calls) != 2 {
				t.Fatalf("calls %v", calls)
			}
			if got := results[calls[0]]; !strings.Contains(got, "Task(deployer)") || strings.Contains(got, "child says") {
				t.Errorf("a %s call of deployer under deny Task(deployer): %q", name, got)
			}
			if got := results[calls[1]]; !strings.HasPrefix(got, "child says: go worker") {
				t.Errorf("a %s call of worker under allow Agent(worker) (mode ask, no one to ask): %q", name, got)
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatalf("the PreToolUse hook matching Agent did not run for a call named %s: %v", name, err)
			}
			if n := strings.Count(string(b), `"tool_name":"Agent"`); n < 1 {
				t.Errorf("the hook saw %d calls with tool_name Agent:\n%s", n, b)
			}
		})
	}
}
