package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/session"
)

// bundleVersion is the version of rein's bundle format.
const bundleVersion = 1

// bundle is a rein session with the sessions forked from it, as one JSON
// document to move between machines.
type bundle struct {
	Bundle   int             `json:"rein_bundle"`
	Session  bundleSession   `json:"session"`
	Children []bundleSession `json:"children,omitempty"`
}

type bundleSession struct {
	Header  session.Header    `json:"header"`
	Entries []json.RawMessage `json:"entries"`
}

func bundleOf(s *Session) (bundleSession, error) {
	b := bundleSession{Header: s.Header, Entries: make([]json.RawMessage, 0, len(s.Entries))}
	for i := range s.Entries {
		e := &s.Entries[i]
		if len(e.Raw) > 0 {
			b.Entries = append(b.Entries, e.Raw)
			continue
		}
		line, err := json.Marshal(e)
		if err != nil {
			return b, err
		}
		b.Entries = append(b.Entries, line)
	}
	return b, nil
}

// writeBundle writes s and the sessions forked from it (found beside
// its file) as a bundle.
func writeBundle(w *bufio.Writer, s *Session, o Options, r *Report) error {
	main, err := bundleOf(s)
	if err != nil {
		return err
	}
	b := bundle{Bundle: bundleVersion, Session: main}
	if s.Path != "" {
		infos, _ := session.List(filepath.Dir(s.Path))
		for _, in := range infos {
			if in.Parent != s.Header.ID {
				continue
			}
			child, err := LoadSession(in.Path)
			if err != nil {
				r.drop(in.Path, "a forked session", err.Error())
				continue
			}
			cb, err := bundleOf(child)
			if err != nil {
				return err
			}
			b.Children = append(b.Children, cb)
		}
	}
	for i := range s.Entries {
		if m := s.Entries[i].Message; m != nil {
			r.Messages++
			r.Calls += len(m.ToolCalls())
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// readBundle reads a bundle's main session; its children are reported
// (import them with ImportBundle).
func readBundle(data []byte, name string) (*Conversation, []bundleSession, error) {
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, nil, fmt.Errorf("%s: not a rein bundle: %v", name, err)
	}
	if b.Bundle > bundleVersion {
		return nil, nil, fmt.Errorf("%s: %w: rein bundle version %d is newer than the %d this program reads", name, ErrTooNew, b.Bundle, bundleVersion)
	}
	c, err := bundleConversation(b.Session, name)
	return c, b.Children, err
}

func bundleConversation(bs bundleSession, name string) (*Conversation, error) {
	var sb strings.Builder
	hl, _ := json.Marshal(bs.Header)
	sb.Write(hl)
	sb.WriteByte('\n')
	for _, e := range bs.Entries {
		sb.Write(e)
		sb.WriteByte('\n')
	}
	return readReinLog(strings.NewReader(sb.String()), name)
}

// isBundle reports whether data starts like a bundle.
func isBundle(head []byte) bool {
	return strings.HasPrefix(strings.TrimSpace(string(head[:min(len(head), 64)])), `{"rein_bundle"`)
}

// readReinFile copies r to a temporary file for session.ReadFile.
func readReinLog(r io.Reader, name string) (*Conversation, error) {
	f, err := os.CreateTemp("", "rein-import-*.jsonl")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := io.Copy(f, r); err != nil {
		return nil, err
	}
	h, entries, issues, err := session.ReadFile(f.Name())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &Conversation{Source: session.Source{Format: string(Rein), Version: fmt.Sprint(h.Version), Path: name, ID: h.ID}, Cwd: h.Cwd, Created: h.Created}
	if h.Source != nil {
		c.Source = *h.Source
	}
	for _, is := range issues {
		c.Report.drop(fmt.Sprintf("%s:%d", name, is.Line), string(is.Kind), is.Detail)
	}
	for i := range entries {
		if m := entries[i].Message; m != nil {
			c.Report.Messages++
			c.Report.Calls += len(m.ToolCalls())
		}
		if entries[i].Type == session.TypeSessionInfo {
			c.Name = entries[i].Name
		}
	}
	c.Entries = entries
	return c, nil
}
