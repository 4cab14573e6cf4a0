package work

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/sandbox"
)

// gitRepo makes a git repository with one committed file.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, "a.txt", "one\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTreeHashFollowsContent(t *testing.T) {
	for _, repo := range []bool{true, false} {
		dir := t.TempDir()
		if repo {
			dir = gitRepo(t)
		} else {
			write(t, dir, "a.txt", "one\n")
		}
		var h TreeHasher
		ctx := context.Background()
		h1, err := h.Hash(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		write(t, dir, ".rein/sessions/x.jsonl", "{}\n")
		if h2, _ := h.Hash(ctx, dir); h2 != h1 {
			t.Fatalf("git=%v: a file under .rein changed the hash", repo)
		}
		write(t, dir, "a.txt", "two\n")
		h3, _ := h.Hash(ctx, dir)
		if h3 == h1 {
			t.Fatalf("git=%v: an edit kept the hash", repo)
		}
		write(t, dir, "a.txt", "one\n")
		if h4, _ := h.Hash(ctx, dir); h4 != h1 {
			t.Fatalf("git=%v: the same content gives another hash", repo)
		}
		write(t, dir, "new.go", "package x\n")
		if h5, _ := h.Hash(ctx, dir); h5 == h1 {
			t.Fatalf("git=%v: a new file kept the hash", repo)
		}
		if repo {
			write(t, dir, ".gitignore", "ignored/\n")
			h6, _ := h.Hash(ctx, dir)
			write(t, dir, "ignored/big.bin", "x")
			if h7, _ := h.Hash(ctx, dir); h7 != h6 {
				t.Fatal("an ignored file changed the hash")
			}
		}
	}
}

func TestRunCommandEvidence(t *testing.T) {
	dir := gitRepo(t)
	ctx := context.Background()
	o := CommandOptions{Dir: dir, Sandbox: &sandbox.Policy{Mode: sandbox.Off}}
	ev, err := RunCommand(ctx, o, "grep -q one a.txt && echo found")
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Passed(0) || !strings.Contains(ev.Output, "found") || ev.Tree == "" {
		t.Fatalf("evidence: %+v", ev)
	}
	ev2, err := RunCommand(ctx, o, "exit 3")
	if err != nil || ev2.ExitCode != 3 || ev2.Passed(0) || !ev2.Passed(3) {
		t.Fatalf("exit 3: %+v %v", ev2, err)
	}
	if !ev2.Fresh(ev.Tree) {
		t.Fatal("the same tree is not fresh")
	}
	write(t, dir, "a.txt", "changed\n")
	var h TreeHasher
	now, _ := h.Hash(ctx, dir)
	if ev.Fresh(now) {
		t.Fatal("evidence from before an edit is still fresh")
	}
}

func TestRunCommandTimeout(t *testing.T) {
	dir := t.TempDir()
	o := CommandOptions{Dir: dir, Timeout: 200 * time.Millisecond, Sandbox: &sandbox.Policy{Mode: sandbox.Off}}
	ev, err := RunCommand(context.Background(), o, "echo started; sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	if !ev.TimedOut || ev.Passed(0) || !strings.Contains(ev.Summary(), "timed out after 200ms") || !strings.Contains(ev.Output, "started") {
		t.Fatalf("a hanging command: %+v (%s)", ev, ev.Summary())
	}
}

func TestRunCommandCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunCommand(ctx, CommandOptions{Dir: t.TempDir(), Sandbox: &sandbox.Policy{Mode: sandbox.Off}}, "sleep 600")
	if err == nil {
		t.Fatal("a cancelled run reported no error")
	}
}

func TestRunCommandInSandbox(t *testing.T) {
	if sandbox.Effective(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: "/"}) == sandbox.None {
		t.Skip("no sandbox mechanism on this machine (CI installs bubblewrap)")
	}
	dir := t.TempDir()
	outside := t.TempDir()
	ev, err := RunCommand(context.Background(), CommandOptions{Dir: dir}, "touch ok && touch "+filepath.Join(outside, "escaped"))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Sandbox == "none" || ev.ExitCode == 0 {
		t.Fatalf("the command was not confined: %+v", ev)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Fatal("the command wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, "ok")); err != nil {
		t.Fatal("the command could not write in the workspace")
	}
}

func TestRunCommandBadInput(t *testing.T) {
	if _, err := RunCommand(context.Background(), CommandOptions{Dir: "relative"}, "true"); err == nil {
		t.Fatal("a relative workspace was accepted")
	}
	if _, err := RunCommand(context.Background(), CommandOptions{Dir: filepath.Join(t.TempDir(), "missing")}, "true"); err == nil {
		t.Fatal("a missing workspace was accepted")
	}
}
