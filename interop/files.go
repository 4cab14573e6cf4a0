package interop

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// HomeEnv is the Env of a process whose environment getenv reads: the
// home directory is $HOME, else the user's home directory.
func HomeEnv(getenv func(string) string) Env {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return Env{Home: home, Getenv: getenv}
}

// SessionFiles is what an import of arg reads: arg itself when it is a
// file, else the *.jsonl and *.json files directly in the directory
// arg. A directory without any is an error naming it.
func SessionFiles(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	var out []string
	for _, pat := range []string{"*.jsonl", "*.json"} {
		m, _ := filepath.Glob(filepath.Join(arg, pat))
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no .jsonl or .json files in %s", arg)
	}
	return out, nil
}

// DetectFile names the format of the recording at path from its first
// 64 KiB (see Detect); "" when it fits none.
func DetectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	return Detect(head[:n]), nil
}

// WriteNew writes data to a new file at path (mode 0600, missing
// directories 0700). A file that exists is left as it is and is an
// error: an export never replaces anything.
func WriteNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// OpenHint is the command that opens s, exported in format f to path,
// in the harness that reads f; path itself for formats no harness
// resumes.
func OpenHint(f Format, s *Session, path string) string {
	switch f {
	case Pi:
		return "pi --session " + path + "  (or pi -c in " + s.Header.Cwd + ")"
	case Claude:
		return "claude --resume " + ClaudeSessionID(s.Header.ID) + "  (in " + s.Header.Cwd + ")"
	case Codex:
		id := CodexThreadID(s.Header.ID)
		return "codex resume " + id + "  (codex migrate-rollouts --apply --thread " + id + " shows its commands in codex's app)"
	}
	return path
}

// ExportFile reads the rein session at path (see LoadSession) and
// returns it written in format f (see Export), with the session read
// and the report of what f could not hold. Nothing is written anywhere:
// a caller that fails to place the bytes has lost nothing.
func ExportFile(path string, f Format, o Options) ([]byte, *Session, *Report, error) {
	s, err := LoadSession(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var buf bytes.Buffer
	rep, err := Export(&buf, s, f, o)
	if err != nil {
		return nil, nil, nil, err
	}
	return buf.Bytes(), s, rep, nil
}
