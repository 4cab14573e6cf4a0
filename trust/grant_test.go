package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Grant trusts what a workspace's files do now and reports what is new;
// granting again reports nothing new; a workspace whose files do nothing
// says so.
func TestGrant(t *testing.T) {
	s := Store{Path: filepath.Join(t.TempDir(), "rein", "trusted.json")}
	root := t.TempDir()
	write(t, root, ".mcp.json", `{"mcpServers": {"db": {"command": "node", "args": ["srv.js"]}}}`)
	st, err := s.Grant(root)
	if err != nil {
		t.Fatal(err)
	}
	got := st.Granted()
	if !strings.HasPrefix(got, "trusted: "+st.Snapshot.Root+"\nwhat it may now do, from the next run:\n  .mcp.json (not trusted before):\n    + ") || !strings.HasSuffix(got, "\n") {
		t.Errorf("first grant:\n%s", got)
	}
	if now := check(t, s, root); !now.OK() {
		t.Errorf("not trusted after Grant: %+v", now.Changes)
	}
	st, err = s.Grant(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Granted(); got != "trusted: "+st.Snapshot.Root+"\n" {
		t.Errorf("second grant: %q", got)
	}

	bare := t.TempDir()
	st, err = s.Grant(bare)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Granted(); !strings.HasSuffix(got, "\n(its files do nothing that needs trust now; a file added later will ask)\n") {
		t.Errorf("a workspace with nothing to trust: %q", got)
	}
}

// A store that cannot be written trusts nothing and says why; a
// workspace that cannot be scanned is an error too.
func TestGrantFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o600)
	s := Store{Path: filepath.Join(blocker, "trusted.json")}
	root := t.TempDir()
	write(t, root, ".mcp.json", `{"mcpServers": {"db": {"command": "node"}}}`)
	if _, err := s.Grant(root); err == nil {
		t.Fatal("a store under a file was written")
	}
	ok := Store{Path: filepath.Join(dir, "ok.json")}
	if _, err := ok.Grant(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing workspace was trusted")
	}
	if _, err := ok.Grant(blocker); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as the workspace: %v", err)
	}
	if ents, _ := ok.List(); len(ents) != 0 {
		t.Errorf("failed grants recorded %+v", ents)
	}
}

// Describe tells the three kinds of entry apart.
func TestEntryDescribe(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		e    Entry
		want string
	}{
		{Entry{Path: "/w", Legacy: true}, "/w (trusted by folder with an earlier rein; recorded at its next run)"},
		{Entry{Path: "/w"}, "/w (only your own approvals)"},
		{Entry{Path: "/w", Time: at, Files: map[string]File{"a": {}, "b": {}}}, "/w (2 file(s), " + at.Local().Format("2006-01-02 15:04") + ")"},
	}
	for _, tc := range tests {
		if got := tc.e.Describe(); got != tc.want {
			t.Errorf("Describe() = %q, want %q", got, tc.want)
		}
	}
}
