package coding

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/permission"
)

// LocalSettings is where "allow always" answers for one project are
// kept, relative to the workspace root: private (git-ignored) and the
// user's own, so it never asks for trust.
const LocalSettings = ".rein/settings.local.json"

// rememberLocal stores an "allow always" rule in LocalSettings. The
// file's new content is recorded as trusted when its old content was
// (or it did not exist), so the next run does not ask about the user's
// own answer; and .rein/.gitignore keeps it out of commits.
func (s *setup) rememberLocal(rule string) error {
	path := filepath.Join(s.ws.Root, filepath.FromSlash(LocalSettings))
	if _, err := TrustStore(s.o.Getenv).Update(s.ws.Root, LocalSettings, func() error {
		return permission.RememberRule(path, rule)
	}); err != nil {
		return err
	}
	return ignoreLocalSettings(s.ws.Root)
}

// ignoreLocalSettings makes .rein/.gitignore ignore settings.local.json:
// it writes the file when there is none, and adds the line to one an
// earlier rein wrote. A .gitignore the user wrote is left alone.
func ignoreLocalSettings(root string) error {
	if err := ensureGitignore(root, true); err != nil {
		return err
	}
	p := filepath.Join(root, ".rein", ".gitignore")
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte("# Written by rein.")) {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l == "settings.local.json" || l == "/settings.local.json" {
			return nil
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return os.WriteFile(p, append(data, "settings.local.json\n"...), 0o644)
}
