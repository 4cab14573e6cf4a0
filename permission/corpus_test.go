package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bypassWorkspace is the workspace the bypass corpus runs in: a secret,
// a hard link and a symbolic link to it, a copy and a link of rm (and of
// curl when installed), and a directory holding an instruction file.
func bypassWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("secrets/key.txt", "TOPSECRET=1\n")
	write("data.txt", "a\n")
	write("f", "x\n")
	write("d/x", "x\n")
	write("list.txt", "f\n")
	write("src/main.go", "package main\n")
	write("src/CLAUDE.md", "# notes\n")
	write(".git/hooks/.keep", "")
	write(".git/config", "")
	if err := os.Link(filepath.Join(ws, "secrets/key.txt"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets", filepath.Join(ws, "sl")); err != nil {
		t.Fatal(err)
	}
	copyProg := func(name, as string) {
		p, err := exec.LookPath(name)
		if err != nil {
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, as), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyProg("rm", "myrm")
	copyProg("curl", "mycurl")
	if p, err := exec.LookPath("rm"); err == nil {
		if err := os.Symlink(p, filepath.Join(ws, "lnrm")); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestBypassCorpus runs every attempt of testdata/bypass against the
// rule it tries to get past (with the blocker off, so the rules hold on
// their own) and the blocker and protected-path attempts with no rules
// in auto_all. None may be allowed.
func TestBypassCorpus(t *testing.T) {
	ws := bypassWorkspace(t)
	home := t.TempDir()
	sets := []struct {
		file    string
		deny    []string
		blocker BlockerMode
	}{
		{"rm.txt", []string{"Bash(rm:*)"}, BlockerOff},
		{"curl.txt", []string{"Bash(curl:*)"}, BlockerOff},
		{"secrets.txt", []string{"Read(./secrets/**)"}, BlockerOff},
		{"protected.txt", nil, BlockerDeny},
		{"blocker.txt", nil, BlockerDeny},
	}
	total, allowed := 0, 0
	for _, set := range sets {
		g := New(Options{Mode: ModeAutoAll, Workdir: ws, Home: home, Blocker: set.blocker, Rules: rules(t, ws, nil, nil, set.deny)})
		cmds := readCorpus(t, filepath.Join("bypass", set.file))
		n := 0
		for _, cmd := range cmds {
			total++
			v := decide(g, bashCall(cmd))
			if v.Effect == Allow {
				allowed++
				n++
				t.Errorf("%s: allowed: %q", set.file, cmd)
			} else if v.Reason == "" && v.By != "rule" {
				t.Errorf("%s: %q stopped (%s) without a reason", set.file, cmd, v.By)
			}
		}
		t.Logf("%s: %d attempts, %d allowed", set.file, len(cmds), n)
	}
	t.Logf("bypass corpus: %d attempts, %d allowed", total, allowed)
	if total < 200 {
		t.Errorf("the bypass corpus has %d attempts, want at least 200", total)
	}
}

// TestHarmlessCorpus runs everyday commands under the corpus's rules in
// auto_all and reports how many ask or are denied.
func TestHarmlessCorpus(t *testing.T) {
	ws := bypassWorkspace(t)
	g := New(Options{Mode: ModeAutoAll, Workdir: ws, Home: t.TempDir(),
		Rules: rules(t, ws, nil, nil, []string{"Bash(rm:*)", "Bash(curl:*)", "Read(./secrets/**)"})})
	cmds := readCorpus(t, filepath.Join("bypass", "harmless.txt"))
	if len(cmds) < 150 {
		t.Fatalf("the harmless corpus has %d commands, want at least 150", len(cmds))
	}
	asked, denied := 0, 0
	for _, cmd := range cmds {
		switch v := decide(g, bashCall(cmd)); v.Effect {
		case Ask:
			asked++
			t.Logf("asks: %q (%s: %s)", cmd, v.By, v.Reason)
		case Deny:
			denied++
			t.Errorf("denied: %q (%s: %s)", cmd, v.By, v.Reason)
		}
	}
	t.Logf("harmless corpus: %d commands, %d ask, %d denied", len(cmds), asked, denied)
}
