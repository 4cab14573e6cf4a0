package command

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEnvLine(t *testing.T) {
	base := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin"}
	look := func(n string) string { return base[n] }
	for _, tc := range []struct {
		line string
		want [][2]string
		bad  string // part of the error; "" means none
	}{
		{"", nil, ""},
		{"   # a comment", nil, ""},
		{"export FOO=bar", [][2]string{{"FOO", "bar"}}, ""},
		{"FOO=bar", [][2]string{{"FOO", "bar"}}, ""},
		{"declare -x FOO=bar", [][2]string{{"FOO", "bar"}}, ""},
		{"export A=1 B=2 # two", [][2]string{{"A", "1"}, {"B", "2"}}, ""},
		{`export P="x:$HOME"`, [][2]string{{"P", "x:/home/u"}}, ""},
		{`export PATH="$HOME/bin:${PATH}"`, [][2]string{{"PATH", "/home/u/bin:/usr/bin"}}, ""},
		{`export A=1 B=$A`, [][2]string{{"A", "1"}, {"B", "1"}}, ""},
		{`export Q='a $HOME "b"'`, [][2]string{{"Q", `a $HOME "b"`}}, ""},
		{`export E="a \"q\" \$x \n"`, [][2]string{{"E", `a "q" $x \n`}}, ""},
		{`export S=a\ b`, [][2]string{{"S", "a b"}}, ""},
		{`export T=~/bin`, [][2]string{{"T", "/home/u/bin"}}, ""},
		{`export EMPTY=`, [][2]string{{"EMPTY", ""}}, ""},
		{`export D=cost$`, [][2]string{{"D", "cost$"}}, ""},
		{"export ONLY", nil, ""},
		{"export FOO=$(whoami)", nil, "shell command"},
		{"export FOO=`whoami`", nil, "shell command"},
		{`export FOO="$(whoami)"`, nil, "only $NAME"},
		{`export FOO="${X:-y}"`, nil, "${NAME}"},
		{`export FOO=$1`, nil, "only $NAME"},
		{"export FOO=bar; rm -rf x", nil, "shell command"},
		{"source ~/.nvm/nvm.sh", nil, "not an assignment"},
		{"this is garbage(", nil, "shell command"},
		{"1X=2", nil, "not an assignment"},
		{`export FOO="open`, nil, "not closed"},
		{`export FOO='open`, nil, "not closed"},
		{`export FOO=a\`, nil, "continuation"},
	} {
		got, err := parseEnvLine(tc.line, look)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: error %v, want one saying %q", tc.line, err, tc.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The files apply in Claude Code's order (by event, then by index, 10
// after 2), a later assignment wins, a bad line is a note naming file
// and line while the others apply, an unreadable file is a note, and
// files of other names are not read.
func TestReadEnvDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sessionstart-hook-10.sh"), "export ORDER=ten\n")
	writeFile(t, filepath.Join(dir, "sessionstart-hook-2.sh"), "export ORDER=two LATE=$ORDER\nexport BAD=$(id)\r\nexport AFTER=yes\n")
	writeFile(t, filepath.Join(dir, "setup-hook-0.sh"), "export ORDER=setup FIRST=1")
	writeFile(t, filepath.Join(dir, "other.sh"), "export OTHER=1\n")
	if err := os.Mkdir(filepath.Join(dir, "sessionstart-hook-3.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	vars, notes := ReadEnvDir(dir, []string{"HOME=/h"})
	want := []string{"ORDER=ten", "FIRST=1", "LATE=two", "AFTER=yes"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if len(notes) != 2 {
		t.Fatalf("notes %v, want 2", notes)
	}
	if n := notes[0]; n.File != filepath.Join(dir, "sessionstart-hook-2.sh") || n.Line != 2 || n.Text != "export BAD=$(id)" {
		t.Errorf("note %+v", n)
	}
	if n := notes[1].String(); !strings.Contains(n, "sessionstart-hook-3.sh: cannot read: not a regular file") {
		t.Errorf("note %q", n)
	}
	if vars, notes := ReadEnvDir(filepath.Join(dir, "missing"), nil); vars != nil || notes != nil {
		t.Errorf("a missing folder gave %v %v", vars, notes)
	}
	if vars, notes := ReadEnvDir("", nil); vars != nil || notes != nil {
		t.Errorf("no folder gave %v %v", vars, notes)
	}
}

// The preset file is read before the hooks' files, so a hook's
// assignment wins; a preset that does not exist is no file, one that
// cannot be read is a note.
func TestReadEnvFilesPreset(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	preset := filepath.Join(other, "preset.sh")
	writeFile(t, preset, "export PRESET=1 SHARED=preset\nexport BASED=$HOME/x\n")
	writeFile(t, filepath.Join(dir, "sessionstart-hook-0.sh"), "export SHARED=hook SEEN=$PRESET\n")
	vars, notes := ReadEnvFiles(preset, dir, []string{"HOME=/h"})
	want := []string{"PRESET=1", "SHARED=hook", "BASED=/h/x", "SEEN=1"}
	if diff := cmp.Diff(want, vars); diff != "" || notes != nil {
		t.Errorf("vars (-want +got):\n%s\nnotes %v", diff, notes)
	}
	if vars, notes := ReadEnvFiles(preset, "", nil); len(vars) != 3 || notes != nil {
		t.Errorf("the preset alone gave %v %v", vars, notes)
	}
	if vars, notes := ReadEnvFiles(filepath.Join(other, "missing.sh"), dir, nil); len(vars) != 2 || notes != nil {
		t.Errorf("a missing preset gave %v %v", vars, notes)
	}
	if _, notes := ReadEnvFiles(other, dir, nil); len(notes) != 1 || !strings.Contains(notes[0].String(), "cannot read: not a regular file") {
		t.Errorf("a folder as the preset gave %v", notes)
	}
}

// A file larger than the bound is read up to it, with a note.
func TestReadEnvDirLargeFile(t *testing.T) {
	dir := t.TempDir()
	big := "export A=1\n" + strings.Repeat("# padding\n", maxEnvFile/10+10)
	writeFile(t, filepath.Join(dir, "sessionstart-hook-0.sh"), big)
	vars, notes := ReadEnvDir(dir, nil)
	if !slices.Equal(vars, []string{"A=1"}) || len(notes) != 1 || !strings.Contains(notes[0].Reason, "only its start") {
		t.Errorf("vars %v notes %v", vars, notes)
	}
}

// SessionStart hooks get CLAUDE_ENV_FILE, one file per hook named as
// Claude Code names it, in the current session's folder; other events
// get none; what the hooks write is what ReadEnvDir returns.
func TestSessionStartEnvFile(t *testing.T) {
	root := t.TempDir()
	c, reports := commands(t, `{
		"SessionStart": [{"hooks": [
			{"type": "command", "command": "echo export FIRST=1 >> \"$CLAUDE_ENV_FILE\"; echo \"$CLAUDE_ENV_FILE\" > \"$CLAUDE_PROJECT_DIR/one\""},
			{"type": "command", "command": "echo export SECOND=2 >> \"$CLAUDE_ENV_FILE\""}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo \"[$CLAUDE_ENV_FILE]\" > \"$CLAUDE_PROJECT_DIR/ups\""}]}]}`)
	c.EnvFileDir = func(id, transcript string) string { return filepath.Join(root, id) }
	c.SessionStart(context.Background(), "startup")
	c.UserPromptSubmit(context.Background(), "hi")
	if len(*reports) > 0 {
		t.Fatalf("reports %v", *reports)
	}
	dir := filepath.Join(root, "s1")
	if c.EnvDir() != dir {
		t.Errorf("EnvDir %q, want %q", c.EnvDir(), dir)
	}
	one, _ := os.ReadFile(filepath.Join(c.ProjectDir, "one"))
	if got := strings.TrimSpace(string(one)); got != filepath.Join(dir, "sessionstart-hook-0.sh") {
		t.Errorf("CLAUDE_ENV_FILE %q", got)
	}
	if ups, _ := os.ReadFile(filepath.Join(c.ProjectDir, "ups")); strings.TrimSpace(string(ups)) != "[]" {
		t.Errorf("UserPromptSubmit got CLAUDE_ENV_FILE %s", ups)
	}
	vars, notes := ReadEnvDir(c.EnvDir(), nil)
	if !slices.Equal(vars, []string{"FIRST=1", "SECOND=2"}) || notes != nil {
		t.Errorf("vars %v notes %v", vars, notes)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder %v %v", fi, err)
	}
	// A new session has a folder of its own.
	c.SetSession("s2", "")
	if vars, _ := ReadEnvDir(c.EnvDir(), nil); vars != nil {
		t.Errorf("a new session starts with %v", vars)
	}
	var none *Runner
	if none.EnvDir() != "" {
		t.Error("nil Runner has an env folder")
	}
}

func FuzzParseEnvLine(f *testing.F) {
	for _, s := range []string{"export A=1", `export P="$HOME:${X}"`, "x=$(y)", `a='b`, "export A=1 B=$A # c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		as, err := parseEnvLine(line, func(string) string { return "v" })
		if err != nil && as != nil {
			t.Fatalf("%q: assignments with an error", line)
		}
		for _, a := range as {
			if !validName(a[0]) {
				t.Fatalf("%q: name %q", line, a[0])
			}
		}
	})
}
