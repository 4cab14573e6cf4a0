package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadFilesMerges(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "mcp.json"), `{"mcpServers": {
		"db": {"command": "db-server", "args": ["--ro"]},
		"web": {"type": "http", "url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`)
	write(filepath.Join(ws, ".mcp.json"), `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"A": "1"}},
		"db": {"disabled": true}}}`)
	write(filepath.Join(ws, ".rein", "config.json"), `{"model": "sonnet", "mcpServers": {"fs2": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"}}}`)
	cfg, err := LoadFiles(Paths(home, ws)...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"db", "fs", "fs2", "web"}, cfg.Names()); diff != "" {
		t.Error(diff)
	}
	if db := cfg.Servers["db"]; !db.Disabled || db.Command != "db-server" {
		t.Errorf("db = %+v", db)
	}
	if cfg.Servers["fs2"].transport() != "http" || cfg.Servers["fs"].transport() != "stdio" {
		t.Errorf("transports: %+v", cfg.Servers)
	}
	if len(cfg.Files) != 3 {
		t.Errorf("files = %v", cfg.Files)
	}
	if err := cfg.Disable("web"); err != nil || !cfg.Servers["web"].Disabled {
		t.Errorf("disable: %v", err)
	}
	if err := cfg.Disable("nope"); err == nil || !strings.Contains(err.Error(), "db, fs, fs2, web") {
		t.Errorf("disable unknown: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		`{"mcpServers": {"a": {"args": ["x"]}}}`:               `give a "command"`,
		`{"mcpServers": {"a": {"type": "sse", "url": "x"}}}`:   `type "sse" is not supported`,
		`{"mcpServers": {"a": {"type": "http"}}}`:              `needs a "url"`,
		`{"mcpServers": {"a b": {"command": "x"}}}`:            `server name "a b"`,
		`{"mcpServers": {"a": {"command": 5}}}`:                `mcpServers.a`,
		`{"mcpServers": `:                                      `not valid JSON`,
		`{"mcpServers": {"a": {"type": "stdio", "url": "u"}}}`: `needs a "command"`,
	}
	for in, want := range cases {
		_, err := Parse("x.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "B": "two"}
	var missing []string
	got := expand("${A}-${B}-${C:-three}-${D}-$A", func(k string) string { return env[k] }, &missing)
	if got != "1-two-three--$A" || len(missing) != 1 || missing[0] != "D" {
		t.Errorf("got %q missing %v", got, missing)
	}
}

func TestToolName(t *testing.T) {
	cases := map[[2]string]string{
		{"fs", "read_file"}:   "mcp__fs__read_file",
		{"gh", "issues.list"}: "mcp__gh__issues_list",
		{"x", "naïve tool"}:   "mcp__x__na_ve_tool",
	}
	for in, want := range cases {
		if got := ToolName(in[0], in[1]); got != want {
			t.Errorf("%v: %q, want %q", in, got, want)
		}
	}
	long := ToolName("server", strings.Repeat("a", 100))
	if len(long) != 64 || long == ToolName("server", strings.Repeat("a", 101)) {
		t.Errorf("long names: %q", long)
	}
	if s, r, ok := SplitName("mcp__fs__read_file"); !ok || s != "fs" || r != "read_file" {
		t.Errorf("split: %q %q %v", s, r, ok)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "${B:-c}"}}, "h": {"type": "http", "url": "http://x/mcp", "headers": {"K": "v"}}, "d": {"disabled": true}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"type": "sse", "url": "x"}}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.json", data)
		if err != nil {
			if c != nil {
				t.Fatal("a config with an error")
			}
			return
		}
		for name, s := range c.Servers {
			if !serverName().MatchString(name) {
				t.Fatalf("accepted server name %q", name)
			}
			if !(s.Disabled && s.Command == "" && s.URL == "") && s.transport() == "" {
				t.Fatalf("accepted a server without a transport: %+v", s)
			}
		}
	})
}
