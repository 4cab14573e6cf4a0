package coding

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed; if that is intended, go test -run %s -update rewrites it.\n--- got:\n%s", path, t.Name(), got)
	}
}

// The first request of each provider for a fresh workspace — the system
// prompt in its tiers, the tool schemas, the prompt — pinned byte for
// byte (the workspace path and the date normalised), so that any change
// of what every request starts with shows in review.
func TestFirstRequestGolden(t *testing.T) {
	for _, c := range []struct{ name, model, key string }{
		{"anthropic", "anthropic/claude-sonnet-5-5", "ANTHROPIC_API_KEY"},
		{"openai", "openai/gpt-6.2-sol", "OPENAI_API_KEY"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.vars[c.key] = "test-key"
			e.vars["SHELL"] = "/bin/sh"
			ws := t.TempDir()
			o := Options{Workdir: ws, Model: c.model, BaseURL: "http://127.0.0.1:9/v1", Getenv: e.getenv, Warn: e.warned}
			body, err := FirstRequest(context.Background(), o, "read hello.txt")
			if err != nil {
				t.Fatal(err)
			}
			body = bytes.ReplaceAll(body, []byte(ws), []byte("/WORKSPACE"))
			body = regexp.MustCompile(`Session started \d{4}-\d\d-\d\d`).ReplaceAll(body, []byte("Session started DATE"))
			var out bytes.Buffer
			if err := json.Indent(&out, body, "", "  "); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, body)
			}
			out.WriteByte('\n')
			golden(t, "first_request_"+c.name+".json", out.Bytes())
		})
	}
}
