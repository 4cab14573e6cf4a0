package interop

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.jsonl", "b.json", "c.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("{}\n"), 0o600)
	}
	got, err := SessionFiles(dir)
	if err != nil || len(got) != 2 || filepath.Base(got[0]) != "a.jsonl" || filepath.Base(got[1]) != "b.json" {
		t.Fatalf("directory: %v %v", got, err)
	}
	one := filepath.Join(dir, "c.txt")
	if got, err := SessionFiles(one); err != nil || len(got) != 1 || got[0] != one {
		t.Errorf("file: %v %v", got, err)
	}
	empty := t.TempDir()
	if _, err := SessionFiles(empty); err == nil || !strings.Contains(err.Error(), "no .jsonl or .json files in "+empty) {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := SessionFiles(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestDetectFile(t *testing.T) {
	if f, err := DetectFile(testdata("pi/session-read-tool-error.jsonl")); err != nil || f != Pi {
		t.Errorf("pi: %q %v", f, err)
	}
	if f, err := DetectFile(sample(t)); err != nil || f != Rein {
		t.Errorf("rein: %q %v", f, err)
	}
	junk := filepath.Join(t.TempDir(), "junk")
	os.WriteFile(junk, []byte("not json"), 0o600)
	if f, err := DetectFile(junk); err != nil || f != "" {
		t.Errorf("junk: %q %v", f, err)
	}
	if _, err := DetectFile(junk + "-missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestWriteNewNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "out.jsonl")
	if err := WriteNew(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(path, []byte("two")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write: %v", err)
	}
	data, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if string(data) != "one" || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("content %q, modes %v %v", data, fi.Mode(), di.Mode())
	}
}

func TestOpenHintAndHomeEnv(t *testing.T) {
	s, err := LoadSession(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	if h := OpenHint(Claude, s, "/x.jsonl"); h != "claude --resume "+ClaudeSessionID(s.Header.ID)+"  (in /home/ana/shop)" {
		t.Errorf("claude: %q", h)
	}
	if h := OpenHint(Pi, s, "/x.jsonl"); !strings.HasPrefix(h, "pi --session /x.jsonl") {
		t.Errorf("pi: %q", h)
	}
	if h := OpenHint(HTML, s, "/x.html"); h != "/x.html" {
		t.Errorf("html: %q", h)
	}
	e := HomeEnv(func(k string) string { return map[string]string{"HOME": "/h", "CODEX_HOME": "/c"}[k] })
	if e.Home != "/h" || e.CodexDir() != "/c/sessions" {
		t.Errorf("env: %+v %s", e, e.CodexDir())
	}
}

func TestExportFile(t *testing.T) {
	path := sample(t)
	data, s, rep, err := ExportFile(path, Pi, Options{})
	if err != nil || len(data) == 0 || s.Path != path || rep == nil {
		t.Fatalf("export: %d bytes, %+v, %v", len(data), rep, err)
	}
	if f := Detect(data); f != Pi {
		t.Errorf("the export reads as %q", f)
	}
	if _, _, _, err := ExportFile(path+"-missing", Pi, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
