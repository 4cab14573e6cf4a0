package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reinhq/rein/llm"
)

// Info describes a session file for listings.
type Info struct {
	Path     string
	ID       string
	Created  time.Time
	Modified time.Time // the file's modification time
	Cwd      string
	// Parent is the ID of the session this one was forked from.
	Parent string
	// Name is from the latest session_info entry.
	Name string
	// Entries counts the valid entries; Messages the message entries.
	Entries  int
	Messages int
	// FirstMessage is the start of the first user message's text (at
	// most PreviewLen runes, on one line).
	FirstMessage string
	// Issues counts what loading set aside (torn or corrupt lines…).
	Issues int
}

// PreviewLen bounds Info.FirstMessage, in runes.
const PreviewLen = 100

// List describes the session files (*.jsonl) directly in dir, newest
// first: by modification time, then creation time, then path. Files that
// are not session files are skipped; a directory that does not exist
// lists nothing. Sessions of one workspace are in DefaultDir(workspace).
func List(dir string) ([]Info, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: listing %s: %w", dir, err)
	}
	var out []Info
	for _, de := range des {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		info, err := Stat(filepath.Join(dir, de.Name()))
		if err != nil {
			continue
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Modified.Equal(b.Modified) {
			return a.Modified.After(b.Modified)
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		return a.Path < b.Path
	})
	return out, nil
}

// Stat describes one session file (see List).
func Stat(path string) (Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	h, entries, issues, err := ReadFile(path)
	if err != nil {
		return Info{}, err
	}
	info := Info{Path: path, ID: h.ID, Created: h.Created, Modified: fi.ModTime(), Cwd: h.Cwd, Parent: h.Parent,
		Entries: len(entries), Issues: len(issues)}
	for i := range entries {
		e := &entries[i]
		switch e.Type {
		case TypeMessage:
			info.Messages++
			if info.FirstMessage == "" && e.Message.Role == llm.RoleUser {
				info.FirstMessage = preview(e.Message.Text())
			}
		case TypeSessionInfo:
			info.Name = e.Name
		}
	}
	return info, nil
}

// Find returns the session in dir whose ID is id or starts with id.
func Find(dir, id string) (Info, error) {
	list, err := List(dir)
	if err != nil {
		return Info{}, err
	}
	var found []Info
	for _, in := range list {
		if in.ID == id {
			return in, nil
		}
		if id != "" && strings.HasPrefix(in.ID, id) {
			found = append(found, in)
		}
	}
	switch len(found) {
	case 0:
		return Info{}, fmt.Errorf("%w: no session %q in %s", fs.ErrNotExist, id, dir)
	case 1:
		return found[0], nil
	}
	return Info{}, fmt.Errorf("session: %q matches %d sessions in %s; give more of the id", id, len(found), dir)
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= PreviewLen {
		return s
	}
	r := []rune(s)
	return string(r[:PreviewLen-1]) + "…"
}
