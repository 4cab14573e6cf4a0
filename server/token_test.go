package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token comes from the named file, else from REIN_SERVER_TOKEN,
// trimmed; a missing or blank file stops the server from starting.
func TestToken(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == TokenEnv {
				return v
			}
			return ""
		}
	}
	if tok, err := Token(env(""), ""); err != nil || tok != "" {
		t.Errorf("no token: %q %v", tok, err)
	}
	if tok, err := Token(env("  s3cret\n"), ""); err != nil || tok != "s3cret" {
		t.Errorf("from the environment: %q %v", tok, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	os.WriteFile(file, []byte("from-file\n"), 0o600)
	if tok, err := Token(env("ignored"), file); err != nil || tok != "from-file" {
		t.Errorf("from the file: %q %v", tok, err)
	}
	missing := filepath.Join(dir, "none")
	if tok, err := Token(env("ignored"), missing); !errors.Is(err, fs.ErrNotExist) || tok != "" || !strings.HasPrefix(err.Error(), "--token-file: ") || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %q %v", tok, err)
	}
	blank := filepath.Join(dir, "blank")
	os.WriteFile(blank, []byte(" \n\t\n"), 0o600)
	if tok, err := Token(env("ignored"), blank); err == nil || tok != "" || err.Error() != "--token-file "+blank+" is empty" {
		t.Errorf("a blank file: %q %v", tok, err)
	}
}

func TestAccess(t *testing.T) {
	for _, tc := range []struct {
		token  string
		socket bool
		want   string
	}{
		{"t", false, "bearer token required"},
		{"t", true, "bearer token required"},
		{"", true, "no token: the socket's permissions decide"},
		{"", false, "no token: loopback clients only"},
	} {
		if got := Access(tc.token, tc.socket); got != tc.want {
			t.Errorf("Access(%q, %v) = %q, want %q", tc.token, tc.socket, got, tc.want)
		}
	}
}
