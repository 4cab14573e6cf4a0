package coding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/trust"
)

// Open refuses a workspace it cannot use with a *WorkspaceError that
// says why, and leaves nothing behind.
func TestOpenBadWorkspace(t *testing.T) {
	e := newTestEnv(t)
	file := filepath.Join(t.TempDir(), "notes.txt")
	write(t, filepath.Dir(file), map[string]string{"notes.txt": "x"})
	unreadable := filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(unreadable, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(unreadable, 0o755) })
	cases := []struct {
		name, dir, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "nope"), "does not exist"},
		{"file", file, "is a file, not a directory"},
	}
	if os.Geteuid() != 0 { // root reads any directory
		cases = append(cases, struct{ name, dir, want string }{"unreadable", unreadable, "permission denied"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Open(context.Background(), e.options(c.dir, faux.Text("hi")))
			var we *WorkspaceError
			if !errors.As(err, &we) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.dir) {
				t.Fatalf("Open(%s) = %v, %v; want a WorkspaceError saying %q", c.dir, a, err, c.want)
			}
		})
	}
}

// A malformed config file is a *ConfigError naming the file and the
// line; the session directory stays empty and no MCP server (which would
// write a marker file) starts.
func TestOpenMalformedConfig(t *testing.T) {
	for _, c := range []struct {
		name, file, body string
		line             int
	}{
		{"security", ".rein/security.json", "{\n  \"sandbox\": \"off\",\n  \"network\": nope\n}\n", 3},
		{"security type", ".rein/security.json", "{\n  \"writable\": 7\n}\n", 2},
		{"context", ".rein/context.json", "{\n  \"soft\": 0.5,\n  \"sofft\": 1\n}\n", 3},
		{"model config", ".rein/config.json", "{\n  \"model\": [\n}\n", 3},
		{"settings", ".rein/settings.json", "{\n  \"permissions\": {\n    \"allow\": [\"Bash(\"\n  }\n}\n", 4},
		{"mcp", ".mcp.json", "{\"mcpServers\": {\n  \"x\": {\"command\": 1}}}\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t)
			ws := t.TempDir()
			marker := filepath.Join(t.TempDir(), "started")
			files := map[string]string{c.file: c.body}
			if c.file != ".mcp.json" {
				// A server that would leave a marker if it were started.
				files[".mcp.json"] = `{"mcpServers": {"m": {"command": "sh", "args": ["-c", "touch ` + marker + `"]}}}`
			}
			write(t, ws, files)
			// Trusted, so that the workspace's settings and servers count.
			snap, err := trust.Scan(ws)
			if err != nil {
				t.Fatal(err)
			}
			if err := TrustStore(e.getenv).Accept(snap); err != nil {
				t.Fatal(err)
			}
			a, err := Open(context.Background(), e.options(ws, faux.Text("hi")))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				if a != nil {
					a.Close()
				}
				t.Fatalf("Open = %v; want a *ConfigError", err)
			}
			if want := filepath.Join(ws, c.file); ce.File != want {
				t.Errorf("File = %q, want %q (%v)", ce.File, want, err)
			}
			if c.line > 0 && ce.Line != c.line {
				t.Errorf("Line = %d, want %d (%v)", ce.Line, c.line, err)
			}
			if !strings.Contains(err.Error(), c.file) {
				t.Errorf("the message does not name the file: %v", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("an MCP server was started although the config was rejected")
			}
			if infos, _ := session.List(session.DefaultDir(ws)); len(infos) != 0 {
				t.Errorf("a session log was created: %v", infos)
			}
		})
	}
}

// A second agent on a session another agent holds gets the lock error;
// once the first closes, the session opens.
func TestTwoAgentsOnOneSession(t *testing.T) {
	e := newTestEnv(t)
	ws := t.TempDir()
	first, err := Open(context.Background(), e.options(ws, faux.Text("one")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Submit(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	path := first.Session().Path()
	o := e.options("", faux.Text("two"))
	o.Session = path
	second, err := Open(context.Background(), o)
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second Open = %v; want *session.LockedError", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("after Close the session does not open: %v", err)
	}
	defer third.Close()
	if third.Workspace() != ws {
		t.Errorf("the resumed agent works in %s, want the session's %s", third.Workspace(), ws)
	}
	if n := len(third.Session().Context().Messages); n != 2 {
		t.Errorf("resumed conversation has %d messages, want 2", n)
	}
}
