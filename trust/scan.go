package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File is one workspace file whose content can act.
type File struct {
	// Path is the file's path relative to the workspace root, with
	// slashes (".mcp.json", ".claude/settings.json").
	Path string `json:"-"`
	// Items are what the file would do, one line each, sorted.
	Items []string `json:"items"`
	// Hash is "sha256:" and the hex digest of the items.
	Hash string `json:"hash"`
}

// Snapshot is what a workspace's files would do, as Scan found it.
type Snapshot struct {
	// Root is the workspace root, absolute with links resolved.
	Root string
	// Files are the files with at least one item, by path.
	Files []File
}

// File returns the snapshot's entry for rel (a path relative to the
// root, or absolute inside it), or nil when the file has nothing that
// needs trust.
func (s *Snapshot) File(path string) *File {
	rel := s.rel(path)
	for i := range s.Files {
		if s.Files[i].Path == rel {
			return &s.Files[i]
		}
	}
	return nil
}

func (s *Snapshot) rel(path string) string {
	if filepath.IsAbs(path) {
		if r, err := filepath.Rel(s.Root, canonical(path)); err == nil {
			path = r
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// kind is how a workspace file is read.
type kind int

const (
	settingsFile kind = iota
	mcpFile
	configFile
	securityFile
)

// watched are the workspace files Scan reads.
var watched = []struct {
	path string
	kind kind
}{
	{".claude/settings.json", settingsFile},
	{".claude/settings.local.json", settingsFile},
	{".rein/settings.json", settingsFile},
	{".rein/settings.local.json", settingsFile},
	{".mcp.json", mcpFile},
	{".rein/config.json", configFile},
	{".rein/security.json", securityFile},
}

// Watched lists the workspace files Scan reads, relative to the root.
func Watched() []string {
	out := make([]string, len(watched))
	for i, w := range watched {
		out[i] = w.path
	}
	return out
}

// Scan reads the workspace's watched files and the scripts their
// commands name. A file that is not a JSON object has no items: it can
// do nothing, since the code that reads it stops with the syntax error.
// Only an unreadable file is an error.
func Scan(root string) (*Snapshot, error) {
	s := &Snapshot{Root: canonical(root)}
	for _, w := range watched {
		f, err := ScanFile(s.Root, w.path)
		if err != nil {
			return nil, err
		}
		if f != nil {
			s.Files = append(s.Files, *f)
		}
	}
	return s, nil
}

// ScanFile reads one watched file of the workspace at root (rel is one
// of Watched). It returns nil when the file is missing or holds nothing
// that needs trust.
func ScanFile(root, rel string) (*File, error) {
	i := slices.IndexFunc(watched, func(w struct {
		path string
		kind kind
	}) bool {
		return w.path == rel
	})
	if i < 0 {
		return nil, fmt.Errorf("trust: %s is not a watched file", rel)
	}
	root = canonical(root)
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	var items []string
	if len(bytes.TrimSpace(data)) > 0 {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err == nil {
			sc := &scanner{root: root}
			switch watched[i].kind {
			case settingsFile:
				sc.settings(doc)
			case mcpFile:
				sc.mcpServers("", doc["mcpServers"])
			case configFile:
				sc.config(doc)
			case securityFile:
				sc.security(doc)
			}
			items = sc.items
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	slices.Sort(items)
	items = slices.Compact(items)
	return &File{Path: rel, Items: items, Hash: "sha256:" + digest([]byte(strings.Join(items, "\n")))}, nil
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// scanner collects the items of one file.
type scanner struct {
	root  string
	items []string
}

func (sc *scanner) add(format string, a ...any) {
	sc.items = append(sc.items, fmt.Sprintf(format, a...))
}

// compact is raw JSON on one line, for items of shapes Scan does not
// know in detail.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// script adds an item for each file inside the workspace that a
// command line names, with its content's hash, so that changing the
// script asks again like changing the command would.
func (sc *scanner) script(words ...string) {
	for _, line := range words {
		line = strings.NewReplacer("${CLAUDE_PROJECT_DIR}", sc.root, "$CLAUDE_PROJECT_DIR", sc.root,
			"${REIN_PROJECT_DIR}", sc.root, "$REIN_PROJECT_DIR", sc.root).Replace(line)
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t\n;&|<>()`'\"=", r) }) {
			if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "*?$") {
				continue
			}
			if rel, sum, ok := workspaceFile(sc.root, w); ok {
				sc.add("script %s sha256:%s", rel, sum)
			}
		}
	}
}

// workspaceFile returns the path relative to root and the content hash
// of w when w names a regular file inside root (following links only
// as far as they stay inside).
func workspaceFile(root, w string) (string, string, bool) {
	p := w
	if strings.HasPrefix(p, "~") {
		return "", "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", "", false
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", false
	}
	f, err := os.Open(real)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", false
	}
	return filepath.ToSlash(rel), hex.EncodeToString(h.Sum(nil)), true
}

func canonical(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}
