package permission

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/tool/builtin"
)

// run passes a call to t through the gate, as the tool chain does.
func run(g *Gate, t *tool.Tool, args any) tool.Result {
	b, _ := json.Marshal(args)
	h := g.Middleware()(func(ctx context.Context, c *tool.Call) tool.Result { return c.Tool.Run(ctx, c) })
	return h(context.Background(), &tool.Call{ID: "c1", Name: t.Name, Args: b, Tool: t})
}

// TestReadDenyCoversGrepAndFind: Read(./secrets/**) stops the grep tool
// searching the whole workspace or a glob into the denied directory, with
// either backend, and find; each says what it left out.
func TestReadDenyCoversGrepAndFind(t *testing.T) {
	ws := bypassWorkspace(t)
	w, err := builtin.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Mode: ModeAutoRead, Workdir: ws, Rules: rules(t, ws, nil, nil, []string{"Read(./secrets/**)"})})
	backends := map[string]builtin.GrepOptions{"go": {NoRipgrep: true}}
	if _, err := exec.LookPath("rg"); err == nil {
		backends["ripgrep"] = builtin.GrepOptions{}
	} else if os.Getenv("CI") != "" {
		t.Fatal("ripgrep is needed")
	}
	for name, o := range backends {
		grep := builtin.Grep(w, o)
		for _, args := range []map[string]any{
			{"pattern": "TOPSECRET"},
			{"pattern": "TOPSECRET", "glob": "secrets/*"},
			{"pattern": "TOPSECRET", "glob": "*.txt"},
			{"pattern": "TOPSECRET", "path": "."},
		} {
			res := run(g, grep, args)
			out := res.Text()
			if strings.Contains(out, "TOPSECRET=") {
				t.Errorf("%s grep %v showed the secret:\n%s", name, args, out)
			}
			if !strings.Contains(out, "permission rule denies reading") {
				t.Errorf("%s grep %v: no note of what was left out:\n%s", name, args, out)
			}
		}
		if res := run(g, grep, map[string]any{"pattern": "TOPSECRET", "path": "secrets"}); !res.IsError {
			t.Errorf("%s grep path=secrets was not denied: %s", name, res.Text())
		}
	}
	res := run(g, builtin.Find(w), map[string]any{"pattern": "**/*.txt"})
	out := res.Text()
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "[") && (strings.Contains(l, "key.txt") || strings.Contains(l, "notes.txt")) {
			t.Errorf("find listed a denied file: %s", l)
		}
	}
	if !strings.Contains(out, "permission rule") {
		t.Errorf("find gave no note of what it left out:\n%s", out)
	}
	// The hard link notes.txt is the secret under another name.
	if res := run(g, builtin.Read(w), map[string]any{"path": "notes.txt"}); !res.IsError || strings.Contains(res.Text(), "TOPSECRET=") {
		t.Errorf("read of a hard link to a denied file: %s", res.Text())
	}
	if res := run(g, builtin.Read(w), map[string]any{"path": "data.txt"}); res.IsError {
		t.Errorf("read of an ordinary file: %s", res.Text())
	}
}

// TestReadDenyCoversBash: a Claude Code user's Read(./secret.txt) deny
// stops cat secret.txt, grep -r and cp in bash.
func TestReadDenyCoversBash(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "secret.txt"), []byte("TOPSECRET\n"), 0o644)
	g := New(Options{Mode: ModeAutoAll, Workdir: ws, Rules: rules(t, ws, nil, nil, []string{"Read(./secret.txt)"})})
	for _, cmd := range []string{"cat secret.txt", "grep -r TOPSECRET .", "cp secret.txt /tmp/x", "head -c 100 ./secret.txt"} {
		if v := decide(g, bashCall(cmd)); v.Effect != Deny || v.Rule != "Read(./secret.txt)" {
			t.Errorf("%q: %+v", cmd, v)
		}
	}
	if v := decide(g, bashCall("cat other.txt")); v.Effect != Allow {
		t.Errorf("cat other.txt: %+v", v)
	}
}

// TestProtectedForEveryTool: files that run code or steer the agent ask
// before write, edit or bash change them, whatever the mode or allow
// rules say.
func TestProtectedForEveryTool(t *testing.T) {
	ws := bypassWorkspace(t)
	g := New(Options{Mode: ModeAutoAll, Workdir: ws, Rules: rules(t, ws, []string{"Edit", "Write", "Bash"}, nil, nil)})
	for _, p := range []string{".mcp.json", "AGENTS.md", "CLAUDE.md", "src/CLAUDE.md", ".claude/settings.json", ".claude/agents/x.md", ".rein/security.json", ".git/config", ".git/hooks/pre-commit"} {
		for _, tl := range []string{"write", "edit"} {
			if v := decide(g, call(tl, map[string]string{"path": p})); v.Effect != Ask || v.By != "protected" {
				t.Errorf("%s %s: %+v", tl, p, v)
			}
		}
	}
	for _, cmd := range []string{"mv .git x", "mv .claude y", "mv src old", "python3 -c 'open(\".claude/settings.json\",\"w\")'", "git config core.fsmonitor x", "echo {} > .mcp.json"} {
		if v := decide(g, bashCall(cmd)); v.Effect != Ask {
			t.Errorf("%q: %+v", cmd, v)
		}
	}
}

// TestUnknownHeadless: a command whose program is only known at run time
// asks; with no one to ask it is denied, and the model reads why.
func TestUnknownHeadless(t *testing.T) {
	g := New(Options{Mode: ModeAutoAll, Workdir: t.TempDir()})
	b := &tool.Tool{Name: "bash", Run: func(context.Context, *tool.Call) tool.Result {
		t.Error("the command ran")
		return tool.Result{}
	}}
	for _, cmd := range []string{"$(echo rm) -rf x", "`printf rm` x", "${X:-rm} x", "$'\\x72\\x6d' x", "echo \"$CMD\" | sh"} {
		res := run(g, b, map[string]string{"command": cmd})
		if !res.IsError || !strings.Contains(res.Text(), "cannot be known before it runs") {
			t.Errorf("%q: %s", cmd, res.Text())
		}
	}
	if v := decide(New(Options{Mode: ModeAutoAll, Workdir: "/w", Blocker: BlockerOff}), bashCall("$(echo ls)")); v.Effect != Allow {
		t.Errorf("with the blocker off and no rules, unknown is the mode's to decide: %+v", v)
	}
}
