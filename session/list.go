package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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
	// Source is where an imported session came from (nil otherwise).
	Source *Source
	// Agent links a sub-agent's session to its parent (nil otherwise).
	Agent *AgentLink
	// Name is from the latest session_info entry.
	Name string
	// Entries counts the valid entries; Messages the message entries.
	Entries  int
	Messages int
	// FirstMessage is the start of the first user message's text (at
	// most PreviewLen runes, on one line).
	FirstMessage string
	// Issues counts the damaged lines the listing noticed: a torn last
	// line and lines that are not JSON objects. (Entries that are valid
	// JSON but not valid entries are found by ReadFile and Open.)
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

// Stat describes one session file (see List). It reads the whole file
// but decodes only what it needs: the header, the type of each entry, the
// first user message and session_info entries; other lines are only
// checked to be JSON objects.
func Stat(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	info := Info{Path: path, Modified: fi.ModTime()}
	first := true
	err = eachLine(f, func(line []byte, _, _ int64, complete, tooLong bool) error {
		if first {
			first = false
			h, err := decodeHeader(line, path)
			if err != nil {
				return err
			}
			info.ID, info.Created, info.Cwd, info.Parent, info.Source, info.Agent = h.ID, h.Created, h.Cwd, h.Parent, h.Source, h.Agent
			return nil
		}
		if tooLong {
			info.Issues++
			return nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		typ, ok := peekType(line)
		if ok && complete {
			ok = jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		}
		if !ok || !complete {
			e, err := DecodeEntry(line)
			if err != nil {
				info.Issues++
				return nil
			}
			typ = e.Type
		}
		info.Entries++
		switch {
		case typ == TypeMessage:
			info.Messages++
			if info.FirstMessage == "" {
				if e, err := DecodeEntry(line); err == nil && e.Message.Role == llm.RoleUser {
					info.FirstMessage = preview(e.Message.Text())
				}
			}
		case typ == TypeSessionInfo:
			if e, err := DecodeEntry(line); err == nil {
				info.Name = e.Name
			}
		}
		return nil
	})
	if err != nil {
		return Info{}, err
	}
	if first {
		return Info{}, &FormatError{Path: path, Detail: "the file is empty: it holds no session header", Err: ErrNotSession}
	}
	return info, nil
}

// peekType reads the type of a line written in this package's layout,
// which starts with the type field.
func peekType(line []byte) (EntryType, bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	i := bytes.IndexByte(rest, '"')
	if i <= 0 || bytes.IndexByte(rest[:i], '\\') >= 0 || !bytes.HasSuffix(bytes.TrimRight(line, "\r"), []byte("}")) {
		return "", false
	}
	return EntryType(rest[:i]), true
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
