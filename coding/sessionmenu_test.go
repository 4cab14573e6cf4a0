package coding

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

func TestSessionMenu(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(dir+"/.rein", 0o755)
	if _, _, err := SessionMenu(dir, 10); err == nil || !strings.Contains(err.Error(), "no sessions to resume") {
		t.Fatalf("no sessions: %v", err)
	}
	long := "fix the\nfailing test " + strings.Repeat("x", 80)
	for i, first := range []string{"first prompt", long, "third"} {
		at := time.Date(2026, 11, 1, 10, i, 0, 0, time.UTC)
		s, err := session.Create(session.Options{Cwd: dir, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendMessage(llm.UserText(first)); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	infos, menu, err := SessionMenu(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(menu, "\n"), "\n")
	if len(infos) != 2 || len(lines) != 2 {
		t.Fatalf("want the 2 newest, got %d sessions, menu:\n%s", len(infos), menu)
	}
	if !strings.HasPrefix(lines[0], " 1  "+ShortID(infos[0].ID)) || !strings.HasSuffix(lines[0], "  third") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], " 2  ") || !strings.Contains(lines[1], "fix the failing test xxx") || !strings.HasSuffix(lines[1], "…") {
		t.Errorf("second line %q (newlines folded, cut to 60 bytes)", lines[1])
	}
}
