package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func agentsWorkspace(t *testing.T) (ws, home string) {
	t.Helper()
	ws, home = t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(ws, ".claude/agents/reviewer.md"): "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Frobnicate\nmodel: haiku\n---\nYou review.\n",
		filepath.Join(ws, ".rein/agents/reviewer.md"):   "---\nname: reviewer\ndescription: rein's reviewer.\n---\nYou review too.\n",
		filepath.Join(ws, ".claude/agents/broken.md"):   "---\nname: broken\ndescription: d\nmaxTurns: -1\n---\n",
		filepath.Join(home, ".claude/agents/mine.md"):   "---\nname: mine\ndescription: Mine.\ndisallowedTools: Bash\n---\nBody.\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, home
}

func withHome(home string) func(*env) {
	return func(e *env) {
		e.getenv = func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
	}
}

// rein agents lists what was found and from where, what a clash hid and
// what was skipped, with the line and the reason.
func TestAgentsCommand(t *testing.T) {
	ws, home := agentsWorkspace(t)
	code, out, errOut := runCLIEnv(t, "", withHome(home), "agents", "-C", ws)
	if code != 0 {
		t.Fatalf("agents: %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"reviewer  project",
		filepath.Join(".rein", "agents", "reviewer.md"),
		"mine", filepath.Join("~", ".claude", "agents", "mine.md"), "−Bash",
		"explore", "read, grep, find, ls", "general", "(parent's)",
		"shadowed:\n  reviewer from .claude/agents/reviewer.md, hidden by the one from .rein/agents/reviewer.md",
		"skipped:\n  .claude/agents/broken.md:4: maxTurns is -1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "hidden by") != 1 {
		t.Errorf("the clash should be said once:\n%s", out)
	}
	// The winner is rein's file, whose tools are the parent's: the
	// unknown tool of the hidden file is no warning.
	if strings.Contains(out, "Frobnicate") {
		t.Errorf("warned about a hidden definition:\n%s", out)
	}

	code, out, errOut = runCLIEnv(t, "", withHome(home), "agents", "-C", ws, "--json",
		"--agents", `{"reviewer": {"description": "from the flag", "prompt": "p", "tools": "Read, Frobnicate", "maxCostUsd": 0.5}}`)
	if code != 0 {
		t.Fatalf("agents --json: %d\n%s\n%s", code, out, errOut)
	}
	var got struct {
		Agents []struct {
			Name, Description, Scope, Source string
			Tools                            []string
			Warnings                         []string
			MaxCostUsd                       float64
		}
		Shadowed []struct{ Name, Winner, Loser string }
		Skipped  []struct {
			Path   string
			Line   int
			Reason string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	names := []string{}
	for _, a := range got.Agents {
		names = append(names, a.Name)
		if a.Name == "reviewer" && (a.Scope != "cli" || a.Source != "--agents" || a.Description != "from the flag" ||
			len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "Frobnicate") || a.MaxCostUsd != 0.5) {
			t.Errorf("reviewer from the flag: %+v", a)
		}
	}
	if strings.Join(names, ",") != "explore,general,mine,reviewer" {
		t.Errorf("agents %v", names)
	}
	if len(got.Shadowed) != 2 || len(got.Skipped) != 1 || got.Skipped[0].Line != 4 || got.Skipped[0].Path != ".claude/agents/broken.md" {
		t.Errorf("shadowed %+v skipped %+v", got.Shadowed, got.Skipped)
	}
}

// A malformed --agents value stops the command before anything starts,
// naming the problem.
func TestAgentsFlagMalformed(t *testing.T) {
	ws := t.TempDir()
	for _, args := range [][]string{
		{"agents", "-C", ws, "--agents", `{"a": {"description": "x"`},
		{"run", "-C", ws, "--model", "faux", "--agents", `{"a": {"description": "x"`, "hi"},
		{"-p", "-C", ws, "--agents", `{"a": {"description": "x"`, "hi"},
	} {
		code, out, errOut := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "--agents: not a valid JSON object of agent definitions") || !strings.Contains(errOut, `want {"NAME"`) {
			t.Errorf("%v: %d\n%s\n%s", args, code, out, errOut)
		}
	}
	code, _, errOut := runCLI(t, "", "run", "-C", ws, "--model", "faux", "--agents", `{"a": {"description": "x", "maxTurns": -1}}`, "hi")
	if code != 2 || !strings.Contains(errOut, `--agents: agent "a" maxTurns is -1`) {
		t.Errorf("maxTurns -1: %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "", "agents", "-C", ws, "--agents", "@"+filepath.Join(ws, "missing.json"))
	if code != 2 || !strings.Contains(errOut, "--agents") || !strings.Contains(errOut, "missing.json") {
		t.Errorf("@missing: %d %s", code, errOut)
	}
}
