package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModesMatchClaudeCode: each mode answers the calls of the
// comparison with the real Claude Code (cmd/rein's
// TestClaudeCodePermissionModes) as Claude Code 2.1.328 did, headless:
// allow where it ran the call, and where it did not, ask (denied when no
// one answers) or deny. The columns are default, acceptEdits, plan,
// dontAsk, bypassPermissions; "a" allow, "-" anything else. Plan reads
// anywhere as Claude Code's plan mode does.
func TestModesMatchClaudeCode(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	for _, d := range []string{ws, out} {
		os.WriteFile(filepath.Join(d, "e.txt"), []byte("OLD\n"), 0o644)
		os.WriteFile(filepath.Join(d, "r.txt"), []byte("R\n"), 0o644)
	}
	modes := []Mode{ModeAutoRead, ModeAutoEdit, ModePlan, ModeDontAsk, ModeAutoAll}
	in, ex := func(f string) string { return filepath.Join(ws, f) }, func(f string) string { return filepath.Join(out, f) }
	cases := []struct {
		name string
		c    *toolCall
		want string
	}{
		{"Read inside", &toolCall{"read", map[string]any{"path": in("a.txt")}}, "aaaaa"},
		{"Read outside", &toolCall{"read", map[string]any{"path": ex("b.txt")}}, "--a-a"},
		{"Write inside", &toolCall{"write", map[string]any{"path": in("new.txt")}}, "-a--a"},
		{"Write outside", &toolCall{"write", map[string]any{"path": ex("new.txt")}}, "----a"},
		{"Edit inside", &toolCall{"edit", map[string]any{"path": in("e.txt")}}, "-a--a"},
		{"Edit outside", &toolCall{"edit", map[string]any{"path": ex("e.txt")}}, "----a"},
		{"Bash ls", bashArgs("ls"), "aaaaa"},
		{"Bash git status", bashArgs("git status"), "aaaaa"},
		{"Bash cat inside", bashArgs("cat a.txt"), "aaaaa"},
		{"Bash cat outside", bashArgs("cat " + ex("b.txt")), "----a"},
		{"Bash touch inside", bashArgs("touch t.txt"), "-a--a"},
		{"Bash touch outside", bashArgs("touch " + ex("t.txt")), "----a"},
		{"Bash mkdir inside", bashArgs("mkdir d"), "-a--a"},
		{"Bash rm inside", bashArgs("rm r.txt"), "-a--a"},
		{"Bash rm outside", bashArgs("rm " + ex("r.txt")), "----a"},
		{"Bash curl", bashArgs("curl -s http://127.0.0.1:1/ping"), "----a"},
		// Beyond the comparison: what the modes must not vouch for.
		{"Bash redirect", bashArgs("echo x > f.txt"), "----a"},
		{"Bash cd outside then ls", bashArgs("cd " + out + " && ls"), "----a"},
		{"Bash find -delete", bashArgs("find . -name '*.txt' -delete"), "----a"},
		{"Bash git -c", bashArgs("git -c core.pager=x log"), "----a"},
		{"Bash git commit", bashArgs("git commit -m x"), "----a"},
		{"Bash sort -o", bashArgs("sort -o out.txt a.txt"), "----a"},
		{"Bash variable path", bashArgs("cat $HOME/.ssh/id_rsa"), "----a"},
		{"Bash rm home", bashArgs("rm ~/x"), "----a"},
		{"Bash mv out", bashArgs("mv r.txt " + ex("moved")), "----a"},
		{"Bash pipe of reads", bashArgs("cat a.txt | grep x | wc -l"), "aaaaa"},
	}
	for _, tc := range cases {
		for i, m := range modes {
			g := New(Options{Mode: m, Workdir: ws, Home: "/home/u"})
			v := decide(g, call(tc.c.name, tc.c.args))
			got := "-"
			if v.Effect == Allow {
				got = "a"
			}
			if want := tc.want[i : i+1]; got != want {
				t.Errorf("%s in %s: %s by %s (%s), want %s", tc.name, m.ClaudeName(), v.Effect, v.By, v.Reason, map[string]string{"a": "allow", "-": "no allow"}[want])
			}
			if m == ModeDontAsk && v.Effect == Ask {
				t.Errorf("%s in dontAsk: asked, want a deny", tc.name)
			}
			if m == ModeDontAsk && v.Effect == Deny && v.By == "mode" && !strings.Contains(v.Reason, "dontAsk") {
				t.Errorf("%s in dontAsk: the reason does not name the mode: %q", tc.name, v.Reason)
			}
		}
	}
}

type toolCall struct {
	name string
	args map[string]any
}

func bashArgs(cmd string) *toolCall { return &toolCall{"bash", map[string]any{"command": cmd}} }

// TestParseModeClaudeNames: Claude Code's names and rein's name the same
// modes, and hooks receive Claude Code's.
func TestParseModeClaudeNames(t *testing.T) {
	for _, tc := range []struct{ in, claude string }{
		{"default", "default"}, {"auto_read", "default"}, {"acceptEdits", "acceptEdits"}, {"auto_edit", "acceptEdits"},
		{"plan", "plan"}, {"dontAsk", "dontAsk"}, {"dont_ask", "dontAsk"}, {"bypassPermissions", "bypassPermissions"}, {"auto_all", "bypassPermissions"},
	} {
		m, err := ParseMode(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if m.ClaudeName() != tc.claude {
			t.Errorf("%s: Claude name %s, want %s", tc.in, m.ClaudeName(), tc.claude)
		}
	}
	if _, err := ParseMode("dontask!"); err == nil || !strings.Contains(err.Error(), "dontAsk") {
		t.Errorf("a bad mode: %v, want an error listing the modes", err)
	}
}
