package coding

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

// A Claude Code session with a sub-agent becomes a session with a
// linked child session; garbage is refused and leaves nothing behind.
func TestImportFile(t *testing.T) {
	root := t.TempDir()
	src := "../interop/testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666.jsonl"
	im, err := ImportFile(src, "", root, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	if im.Bundle != nil || im.Conversation == nil || im.Conversation.Source.Format != string(interop.Claude) {
		t.Fatalf("imported: %+v", im)
	}
	if len(im.Children) != 1 || im.Children[0].Conversation.Link.Type != "Explore" {
		t.Fatalf("children: %+v", im.Children)
	}
	infos, err := session.List(session.DefaultDir(root))
	if err != nil || len(infos) != 2 {
		t.Fatalf("sessions: %v %+v", err, infos)
	}
	nested := session.Nest(infos)
	if nested[0].ID != im.ID || nested[0].Path != im.Path || nested[1].ID != im.Children[0].ID || nested[1].Depth != 1 {
		t.Errorf("nesting: %+v", nested)
	}

	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte("hello\n"), 0o600)
	empty := t.TempDir()
	if im, err := ImportFile(junk, "", empty, redact.New()); err == nil || im != nil {
		t.Errorf("junk: %+v %v", im, err)
	}
	if infos, _ := session.List(session.DefaultDir(empty)); len(infos) != 0 {
		t.Errorf("junk left sessions: %+v", infos)
	}
}
