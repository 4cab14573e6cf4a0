package coding

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

const piFixture = "../interop/testdata/pi/session-read-tool-then-followup.jsonl"

// importPi imports the pi fixture into a new workspace and returns the
// workspace and the import.
func importPi(t *testing.T) (string, *Imported) {
	t.Helper()
	root := t.TempDir()
	im, err := ImportFile(piFixture, "", root, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	return root, im
}

// The report of an import names the source, its format and the new
// session; a sub-agent gets a line of its own.
func TestImportedLines(t *testing.T) {
	_, im := importPi(t)
	lines := im.Lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "imported "+piFixture+" (pi ") || !strings.HasSuffix(lines[0], " as session "+ShortID(im.ID)) || !strings.HasPrefix(lines[1], "  ") {
		t.Errorf("lines: %q", lines)
	}
	src := "../interop/testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666.jsonl"
	im, err := ImportFile(src, "", t.TempDir(), redact.New())
	if err != nil {
		t.Fatal(err)
	}
	lines = im.Lines()
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "  sub-agent ") || !strings.Contains(lines[2], "(Explore) as session "+ShortID(im.Children[0].ID)) {
		t.Errorf("lines with a sub-agent: %q", lines)
	}
}

// ImportForeign imports another harness's recording, says so first, and
// leaves rein sessions, unknown files and missing files alone.
func TestImportForeign(t *testing.T) {
	root := t.TempDir()
	var notes []string
	notify := func(s string) { notes = append(notes, s) }
	im, err := ImportForeign(root, piFixture, redact.New(), notify)
	if err != nil || im == nil {
		t.Fatalf("pi: %+v %v", im, err)
	}
	if len(notes) != 1 || notes[0] != piFixture+" is a pi session; importing it into a new rein session (the file is left as it is)" {
		t.Errorf("notes: %q", notes)
	}
	if h, err := session.Stat(im.Path); err != nil || h.Source == nil || filepath.Dir(im.Path) != session.DefaultDir(root) {
		t.Errorf("the new session %s: %+v %v", im.Path, h, err)
	}

	notes = nil
	if im, err := ImportForeign(root, im.Path, redact.New(), notify); err != nil || im != nil || notes != nil {
		t.Errorf("a rein session: %+v %v %q", im, err, notes)
	}
	junk := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(junk, []byte("just some text\n"), 0o600)
	if im, err := ImportForeign(root, junk, redact.New(), nil); err != nil || im != nil {
		t.Errorf("a file of no known format: %+v %v", im, err)
	}
	if _, err := ImportForeign(root, filepath.Join(root, "missing.jsonl"), redact.New(), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ImportForeign(junk, piFixture, redact.New(), nil); err == nil {
		t.Error("a file as the workspace gave no error")
	}
}

// ExportSession writes to the writer or to a new file, installs where
// the other program looks, and refuses what it cannot do without
// writing anything.
func TestExportSession(t *testing.T) {
	root, im := importPi(t)
	var buf bytes.Buffer
	x, err := ExportSession(&buf, im.Path, ExportOptions{Format: interop.Pi, Output: "-"})
	if err != nil || x.Path != "" || x.ID != im.ID || buf.Len() == 0 {
		t.Fatalf("to the writer: %+v %v (%d bytes)", x, err, buf.Len())
	}
	if lines := x.Lines(); len(lines) != 1 || !strings.HasPrefix(lines[0], "exported "+ShortID(im.ID)+" as pi: ") {
		t.Errorf("lines: %q", lines)
	}

	out := filepath.Join(t.TempDir(), "sub", "export.md")
	buf.Reset()
	x, err = ExportSession(&buf, im.Path, ExportOptions{Format: interop.Markdown, Output: out, Redact: func(s string) string { return strings.ReplaceAll(s, "hello", "*****") }})
	if err != nil || x.Path != out || buf.Len() != 0 {
		t.Fatalf("to a file: %+v %v", x, err)
	}
	if lines := x.Lines(); len(lines) != 2 || lines[0] != "wrote "+out {
		t.Errorf("lines: %q", lines)
	}
	before, _ := os.ReadFile(out)
	if !strings.Contains(string(before), "read *****.txt") || strings.Contains(string(before), "hello") {
		t.Errorf("the transcript was not passed through Redact:\n%s", before)
	}
	if _, err := ExportSession(&buf, im.Path, ExportOptions{Format: interop.Markdown, Output: out}); err == nil {
		t.Error("an existing file was replaced")
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("the existing file changed")
	}

	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	now := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	x, err = ExportSession(&buf, im.Path, ExportOptions{Format: interop.Claude, Install: true, Output: "ignored.jsonl", Getenv: getenv, Now: now})
	if err != nil || !strings.HasPrefix(x.Path, filepath.Join(home, ".claude")) || !strings.HasPrefix(x.Open, "claude --resume ") {
		t.Fatalf("install: %+v %v", x, err)
	}
	if _, err := os.Stat(x.Path); err != nil {
		t.Error(err)
	}
	if lines := x.Lines(); len(lines) != 3 || lines[1] != "open it with: "+x.Open {
		t.Errorf("lines: %q", lines)
	}

	var ie *InstallError
	if _, err := ExportSession(&buf, im.Path, ExportOptions{Format: interop.HTML, Install: true, Getenv: getenv}); !errors.As(err, &ie) {
		t.Errorf("install of a transcript: %v", err)
	}
	bare, err := session.Create(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	bare.Close()
	if _, err := ExportSession(&buf, bare.Path(), ExportOptions{Format: interop.Pi, Install: true, Getenv: getenv}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "records no workspace") {
		t.Errorf("install of a session without a workspace: %v", err)
	}
	if _, err := ExportSession(&buf, filepath.Join(root, "missing.jsonl"), ExportOptions{Format: interop.Pi}); err == nil || errors.As(err, &ie) {
		t.Errorf("a missing session: %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("failed exports wrote %d bytes", buf.Len())
	}
}

// LockedHint says how to read or copy a session another process holds,
// and nothing for other errors.
func TestLockedHint(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = session.Open(s.Path(), session.Options{})
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second open: %v", err)
	}
	ref := s.ID()
	want := "rein sessions show " + ShortID(ref) + " reads it meanwhile; rein sessions fork " + ShortID(ref) + " copies it into a new session to continue"
	if got := LockedHint(err, ref); got != want {
		t.Errorf("hint %q", got)
	}
	if got := LockedHint(errors.New("other"), ref); got != "" {
		t.Errorf("other error: %q", got)
	}
	if got := LockedHint(nil, ref); got != "" {
		t.Errorf("no error: %q", got)
	}
}

// LatestForeign finds the newest pi session of a directory, and says
// where it looked when there is none.
func TestLatestForeign(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	if _, err := LatestForeign(getenv, work, ""); err == nil || !strings.Contains(err.Error(), "no session of") {
		t.Fatalf("none: %v", err)
	}
	dir := interop.HomeEnv(getenv).PiDir(work)
	os.MkdirAll(dir, 0o700)
	data, _ := os.ReadFile(piFixture)
	os.WriteFile(filepath.Join(dir, "s.jsonl"), data, 0o600)
	found, err := LatestForeign(getenv, work, "")
	if err != nil || found.Format != interop.Pi || found.Path != filepath.Join(dir, "s.jsonl") {
		t.Errorf("found %+v %v", found, err)
	}
	if _, err := LatestForeign(getenv, work, interop.Codex); err == nil {
		t.Error("a codex session was found where there is only pi's")
	}
}

// ListSessions nests sub-agents and shows unreadable files; an empty
// workspace lists nothing.
func TestListSessions(t *testing.T) {
	ls, err := ListSessions(t.TempDir())
	if err != nil || len(ls.Sessions) != 0 || len(ls.Unreadable) != 0 {
		t.Fatalf("empty: %+v %v", ls, err)
	}
	root := t.TempDir()
	src := "../interop/testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666.jsonl"
	im, err := ImportFile(src, "", root, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(session.DefaultDir(root), "torn.jsonl"), nil, 0o600)
	ls, err = ListSessions(root)
	if err != nil || ls.Dir != session.DefaultDir(root) {
		t.Fatal(ls, err)
	}
	if len(ls.Sessions) != 2 || ls.Sessions[0].ID != im.ID || ls.Sessions[1].Depth != 1 {
		t.Errorf("sessions: %+v", ls.Sessions)
	}
	if len(ls.Unreadable) != 1 || filepath.Base(ls.Unreadable[0].Path) != "torn.jsonl" || !strings.Contains(ls.Unreadable[0].Why, "empty file") {
		t.Errorf("unreadable: %+v", ls.Unreadable)
	}
	if !strings.HasPrefix(ls.Sessions[1].Title(), "[agent Explore] ") {
		t.Errorf("sub-agent title %q", ls.Sessions[1].Title())
	}
}
