package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileRepo is a repository whose configuration names a program for
// every hook git offers: each writes a marker file into pwned/ when it
// runs. The work tree has an uncommitted change to a filtered file.
func hostileRepo(t *testing.T) (dir, pwned string) {
	t.Helper()
	dir = gitWorkspace(t)
	pwned = filepath.Join(t.TempDir(), "pwned")
	if err := os.Mkdir(pwned, 0o755); err != nil {
		t.Fatal(err)
	}
	mark := func(name string) string {
		script := filepath.Join(pwned, "..", name+".sh")
		body := "#!/bin/sh\ntouch " + filepath.Join(pwned, name) + "\ncat\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return script
	}
	set := func(k, v string) {
		cmd := exec.Command("git", "config", k, v)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config %s: %v %s", k, err, out)
		}
	}
	set("core.fsmonitor", mark("fsmonitor"))
	set("core.sshCommand", mark("ssh"))
	set("core.pager", mark("pager"))
	set("diff.external", mark("external"))
	set("diff.evil.textconv", mark("textconv"))
	set("filter.evil.clean", mark("clean"))
	set("filter.evil.smudge", mark("smudge"))
	set("filter.evil.required", "true")
	set("alias.status", "!"+mark("alias"))
	set("core.editor", mark("editor"))
	hooks := filepath.Join(dir, ".git", "hooks")
	for _, h := range []string{"post-index-change", "pre-commit", "post-checkout"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+filepath.Join(pwned, h)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.go filter=evil diff=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, pwned
}

// TestBlockerRunsNoRepositoryConfig plants a repository whose config
// runs a program from core.fsmonitor, filters, diff drivers, the pager,
// ssh, an alias, the editor and hooks, and shows the blocker's git probe
// runs none of them while still seeing the uncommitted change.
func TestBlockerRunsNoRepositoryConfig(t *testing.T) {
	dir, pwned := hostileRepo(t)
	g := New(Options{Workdir: dir})
	for _, cmd := range []string{"git checkout -- .", "git restore .", "cd sub && git -C " + dir + " checkout ."} {
		if why := g.Block(cmd); why == "" {
			t.Errorf("%q: the uncommitted change was not seen", cmd)
		}
	}
	// The planted programs do run for an ordinary git status, so the test
	// shows they would have run.
	ents, _ := os.ReadDir(pwned)
	var ran []string
	for _, e := range ents {
		ran = append(ran, e.Name())
	}
	if len(ran) > 0 {
		t.Fatalf("the blocker ran repository-controlled programs: %s", strings.Join(ran, ", "))
	}
	plain := exec.Command("git", "status", "--porcelain")
	plain.Dir = dir
	_ = plain.Run()
	if _, err := os.Stat(filepath.Join(pwned, "fsmonitor")); err != nil {
		t.Fatalf("an ordinary git status did not run the planted fsmonitor, so the test proves nothing: %v", err)
	}
}

// TestGitProbeCleanTree checks the hardened probe still tells a clean
// tree from a dirty one, filters configured or not.
func TestGitProbeCleanTree(t *testing.T) {
	dir, pwned := hostileRepo(t)
	if !dirty(dir) {
		t.Fatal("dirty tree reported clean")
	}
	restore := exec.Command("git", "-c", "filter.evil.smudge=cat", "-c", "filter.evil.clean=cat", "-c", "core.fsmonitor=false", "checkout", "--", "main.go")
	restore.Dir = dir
	restore.Env = gitEnv(nil)
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.RemoveAll(pwned)
	os.Mkdir(pwned, 0o755)
	os.Remove(filepath.Join(dir, ".gitattributes"))
	if dirty(dir) {
		t.Error("clean tree reported dirty")
	}
	if ents, _ := os.ReadDir(pwned); len(ents) > 0 {
		t.Errorf("the probe ran %s", ents[0].Name())
	}
}
