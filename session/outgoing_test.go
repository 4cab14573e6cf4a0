package session

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
)

func TestWriterRefusesTooLarge(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(Options{Dir: dir, Cwd: dir, MaxLineBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	small := llm.UserText(strings.Repeat("a", 1000))
	if _, err := s.Append(Entry{Type: TypeMessage, Message: &small}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	big := llm.UserText(strings.Repeat("b", 5000))
	_, err = s.Append(Entry{Type: TypeMessage, Message: &big})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "could not be read back") {
		t.Fatalf("err = %v, want ErrTooLarge with a reason", err)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(before, after) {
		t.Fatal("the refused entry changed the file")
	}
	// The session still works after a refusal.
	if _, err := s.Append(Entry{Type: TypeMessage, Message: &small}); err != nil {
		t.Fatal(err)
	}
}

func TestWriterRedacts(t *testing.T) {
	dir := t.TempDir()
	secret := "ghp_" + strings.Repeat("Q1", 18)
	s, err := Create(Options{Dir: dir, Cwd: dir, Redact: func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(secret), []byte("[REDACTED]"))
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := llm.UserText("my token is " + secret)
	if _, err := s.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("[REDACTED]")) {
		t.Fatalf("file: %s", data)
	}
	r, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Issues()) != 0 {
		t.Fatalf("issues after redaction: %v", r.Issues())
	}
}

// A fork made without its own redaction masks what is appended to it as
// the session it came from does.
func TestForkKeepsRedaction(t *testing.T) {
	dir := t.TempDir()
	secret := "ghp_" + strings.Repeat("Z9", 18)
	s, err := Create(Options{Dir: dir, Cwd: dir, Redact: func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(secret), []byte("[REDACTED]"))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := llm.UserText("hello")
	e, err := s.Append(Entry{Type: TypeMessage, Message: &m})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Fork(e.ID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m = llm.UserText("my token is " + secret)
	if _, err := f.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, _ := os.ReadFile(f.Path())
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("[REDACTED]")) {
		t.Fatalf("fork file: %s", data)
	}
}
