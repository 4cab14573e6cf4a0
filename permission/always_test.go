package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// "Allow always" stores rules that allow, from the file, the very
// command it was offered for: with arguments, paths, compound commands
// and pipes, in ask mode where nothing else allows anything.
func TestAllowAlwaysCoversTheCommand(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "scripts"), 0o755)
	for _, cmd := range []string{
		"git status",
		"git log --oneline -5",
		"go test -race ./permission/...",
		"go build ./... && go test ./...",
		"cat go.mod | grep module",
		"make -C sub test",
		"./scripts/build.sh --fast out/",
		"python3 -m pytest tests/unit -k 'not slow'",
		"cd sub && npm run build",
		"FOO=1 go vet ./x",
		"timeout 60 go test ./...",
		"bash -c 'ls -la'",
		"grep -rn TODO src/ | sort | uniq -c",
		"sed -i s/a/b/ internal/x.go",
	} {
		settings := filepath.Join(ws, ".rein", "settings.local.json")
		os.Remove(settings)
		g := New(Options{Mode: ModeAsk, Workdir: ws, Asker: answering(Answer{Kind: AllowAlways}),
			Remember: func(rule string, s Scope) error { return RememberRule(settings, rule) }})
		var did bool
		res := g.Middleware()(ran(&did))(context.Background(), bashCall(cmd))
		if !did || res.IsError {
			t.Errorf("%q: not run after allow always: %s", cmd, res.Text())
			continue
		}
		st, err := LoadSettings(LoadOptions{Workspace: ws, Trusted: true})
		if err != nil {
			t.Fatal(err)
		}
		var stored []string
		for _, r := range st.Rules {
			stored = append(stored, r.Text)
		}
		g2 := New(Options{Mode: ModeAsk, Workdir: ws, Rules: st.Rules})
		if v := decide(g2, bashCall(cmd)); v.Effect != Allow {
			t.Errorf("%q: the stored rules %v do not allow it: %s by %s", cmd, stored, v.Effect, v.By)
		}
	}
}

// A path suggestion covers the path it was offered for.
func TestAllowAlwaysCoversThePath(t *testing.T) {
	ws := t.TempDir()
	settings := filepath.Join(ws, ".rein", "settings.local.json")
	g := New(Options{Mode: ModeAsk, Workdir: ws, Asker: answering(Answer{Kind: AllowAlways}),
		Remember: func(rule string, s Scope) error { return RememberRule(settings, rule) }})
	c := call("write", map[string]string{"path": "src/pkg/a.go", "content": "x"})
	var did bool
	g.Middleware()(ran(&did))(context.Background(), c)
	st, err := LoadSettings(LoadOptions{Workspace: ws, Trusted: true})
	if err != nil || !did {
		t.Fatal(err, did)
	}
	g2 := New(Options{Mode: ModeAsk, Workdir: ws, Rules: st.Rules})
	for _, p := range []string{"src/pkg/a.go", "src/pkg/b.go"} {
		if v := decide(g2, call("write", map[string]string{"path": p, "content": "x"})); v.Effect != Allow {
			t.Errorf("%s: %s by %s", p, v.Effect, v.By)
		}
	}
	if v := decide(g2, call("write", map[string]string{"path": "other/a.go", "content": "x"})); v.Effect == Allow {
		t.Error("the rule allows more than the directory it was offered for")
	}
}
