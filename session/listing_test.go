package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUnlistedSaysWhy(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "empty.jsonl"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "other.jsonl"), []byte(`{"type":"message"}`+"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700)
	s, err := Create(Options{Dir: dir, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	infos, err := List(dir)
	if err != nil || len(infos) != 1 {
		t.Fatalf("List: %v %+v", err, infos)
	}
	got := Unlisted(dir, infos)
	if len(got) != 2 {
		t.Fatalf("unlisted: %+v", got)
	}
	want := map[string]string{"empty.jsonl": "empty file", "other.jsonl": "not a session"}
	for _, u := range got {
		if w := want[filepath.Base(u.Path)]; w == "" || !strings.HasPrefix(u.Why, w) {
			t.Errorf("%s: %q, want it to start with %q", u.Path, u.Why, w)
		}
	}
	if u := Unlisted(filepath.Join(dir, "missing"), nil); u != nil {
		t.Errorf("a missing directory: %+v", u)
	}
}

func TestNestOrdersChildrenUnderParents(t *testing.T) {
	t0 := time.Unix(1000, 0)
	kid := func(id, parent string, sec int) Info {
		return Info{ID: id, Created: t0.Add(time.Duration(sec) * time.Second), Agent: &AgentLink{ParentSession: parent, Type: "general"}}
	}
	infos := []Info{
		{ID: "b", Created: t0.Add(9 * time.Second)},
		kid("b2", "b", 5), kid("b1", "b", 3), kid("b1x", "b1", 4),
		kid("orphan", "gone", 1),
		{ID: "a", Created: t0},
		kid("c1", "c2", 1), kid("c2", "c1", 2), // a damaged cycle
	}
	var got []string
	for _, n := range Nest(infos) {
		got = append(got, strings.Repeat(">", n.Depth)+n.ID)
	}
	want := "b >b1 >>b1x >b2 orphan a c1 >c2"
	if strings.Join(got, " ") != want {
		t.Errorf("Nest: %q, want %q", strings.Join(got, " "), want)
	}
}
