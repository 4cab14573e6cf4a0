package interop

import (
	"bufio"
	"bytes"
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

// bundle is a rein session with its family — the sessions forked from
// it and its sub-agents' sessions, and theirs in turn — and the run
// records of them all, as one JSON document to move between machines.
// Work items, verification evidence and everything else a session logs
// travel in its entries.
type bundle struct {
	Bundle   int             `json:"rein_bundle"`
	Session  bundleSession   `json:"session"`
	Children []bundleSession `json:"children,omitempty"`
	// Runs are the run records (telemetry.Record) of the sessions.
	Runs []json.RawMessage `json:"runs,omitempty"`
}

type bundleSession struct {
	Header  session.Header    `json:"header"`
	Entries []json.RawMessage `json:"entries"`
}

// family returns the sessions beside s's file that descend from it, by
// fork or as sub-agents, parents before children.
func family(s *Session, r *Report) []*Session {
	if s.Path == "" {
		return nil
	}
	infos, _ := session.List(filepath.Dir(s.Path))
	var out []*Session
	seen := map[string]bool{s.Header.ID: true}
	for queue := []string{s.Header.ID}; len(queue) > 0; queue = queue[1:] {
		for _, in := range infos {
			if seen[in.ID] || in.Parent != queue[0] && (in.Agent == nil || in.Agent.ParentSession != queue[0]) {
				continue
			}
			seen[in.ID] = true
			child, err := LoadSession(in.Path)
			if err != nil {
				r.drop(in.Path, "a forked or sub-agent session", err.Error())
				continue
			}
			out = append(out, child)
			queue = append(queue, in.ID)
		}
	}
	return out
}

// runsDir is the run store of the workspace whose sessions directory
// holds path (.rein/sessions → .rein/runs), or "".
func runsDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "sessions" {
		return ""
	}
	return filepath.Join(filepath.Dir(dir), "runs")
}

// writeBundle writes s, its family and their run records as a bundle:
// one JSON document, written an entry at a time (as one Encode of the
// bundle would write it), never whole in memory.
func writeBundle(w *bufio.Writer, s *Session, o Options, r *Report) error {
	out := newJSONOut(w)
	if err := out.str(fmt.Sprintf(`{"rein_bundle":%d,"session":`, bundleVersion)); err != nil {
		return err
	}
	if err := writeBundleSession(out, s); err != nil {
		return err
	}
	ids := map[string]bool{s.Header.ID: true}
	children := family(s, r)
	for i, child := range children {
		sep := ","
		if i == 0 {
			sep = `,"children":[`
		}
		if err := out.str(sep); err != nil {
			return err
		}
		if err := writeBundleSession(out, child); err != nil {
			return err
		}
		ids[child.Header.ID] = true
	}
	if len(children) > 0 {
		if err := out.str("]"); err != nil {
			return err
		}
	}
	if dir := runsDir(s.Path); dir != "" {
		runs, err := readRuns(dir, r)
		if err != nil {
			r.drop(dir, "the run records", err.Error())
		}
		n := 0
		for _, run := range runs {
			if !ids[run.Session] {
				continue
			}
			sep := ","
			if n == 0 {
				sep = `,"runs":[`
			}
			n++
			if err := out.str(sep); err != nil {
				return err
			}
			if err := out.value(run.Line); err != nil {
				return err
			}
		}
		if n > 0 {
			if err := out.str("]"); err != nil {
				return err
			}
		}
	}
	for i := range s.Entries {
		if m := s.Entries[i].Message; m != nil {
			r.Messages++
			r.Calls += len(m.ToolCalls())
		}
	}
	return out.str("}\n")
}

// writeBundleSession writes one session of a bundle (bundleSession's
// JSON): its header and its entries, each as its log line holds it.
func writeBundleSession(out *jsonOut, s *Session) error {
	if err := out.str(`{"header":`); err != nil {
		return err
	}
	if err := out.value(&s.Header); err != nil {
		return err
	}
	if err := out.str(`,"entries":[`); err != nil {
		return err
	}
	for i := range s.Entries {
		if i > 0 {
			if err := out.str(","); err != nil {
				return err
			}
		}
		e := &s.Entries[i]
		var err error
		if len(e.Raw) > 0 {
			err = out.value(e.Raw)
		} else {
			err = out.value(e)
		}
		if err != nil {
			return err
		}
	}
	return out.str("]}")
}

// Restored is what RestoreBundle wrote.
type Restored struct {
	// Paths are the session files, the bundle's main session first.
	Paths []string
	// IDs are their ids, in the same order (kept from the bundle).
	IDs []string
	// Runs counts the run records added to the run store, and
	// RunsKnown those it already held.
	Runs, RunsKnown int
	Report          Report
}

// RestoreBundle writes the sessions of the bundle data (read from name)
// into dir with their own ids — the main session, then its forks and
// sub-agents, their links pointing at the restored files — and adds its
// run records to the run store runs ("" for none). The sessions' working
// directory becomes cwd when it is not "". A session whose id is already
// in dir stops the restore before anything is written, with a
// *session.ExistsError.
func RestoreBundle(data []byte, name, dir, cwd, runs string, redact func([]byte) []byte) (*Restored, error) {
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: not a rein bundle: %v", name, err)
	}
	if b.Bundle > bundleVersion {
		return nil, fmt.Errorf("%s: %w: rein bundle version %d is newer than the %d this program reads", name, ErrTooNew, b.Bundle, bundleVersion)
	}
	all := append([]bundleSession{b.Session}, b.Children...)
	for _, bs := range all {
		if found, _ := filepath.Glob(filepath.Join(dir, "*_"+bs.Header.ID+".jsonl")); len(found) > 0 {
			return nil, &session.ExistsError{ID: bs.Header.ID, Path: found[0]}
		}
	}
	out := &Restored{}
	paths := map[string]string{}
	for _, bs := range all {
		c, err := bundleConversation(bs, name)
		if err != nil {
			return out, err
		}
		out.Report.Messages += c.Report.Messages
		out.Report.Calls += c.Report.Calls
		out.Report.Dropped = append(out.Report.Dropped, c.Report.Dropped...)
		h := bs.Header
		if cwd != "" {
			h.Cwd = cwd
		}
		if h.Parent != "" {
			h.ParentPath = paths[h.Parent]
		}
		if h.Agent != nil {
			link := *h.Agent
			link.ParentPath = paths[link.ParentSession]
			h.Agent = &link
		}
		s, err := session.Restore(session.Options{Dir: dir, Cwd: h.Cwd, Redact: redact}, h, c.Entries)
		if err != nil {
			return out, err
		}
		paths[h.ID] = s.Path()
		out.Paths = append(out.Paths, s.Path())
		out.IDs = append(out.IDs, h.ID)
		if err := s.Close(); err != nil {
			return out, err
		}
	}
	if runs == "" || len(b.Runs) == 0 {
		return out, nil
	}
	have, err := readRuns(runs, &out.Report)
	if err != nil {
		return out, err
	}
	known := map[string]bool{}
	for _, run := range have {
		known[run.ID] = true
	}
	for i, raw := range b.Runs {
		var run runLine
		if err := json.Unmarshal(raw, &run); err != nil || run.ID == "" || run.Start.IsZero() {
			out.Report.drop(fmt.Sprintf("%s: run record %d", name, i+1), "a run record", "it has no id or start")
			continue
		}
		if known[run.ID] {
			out.RunsKnown++
			continue
		}
		if err := appendRun(runs, run.Start, raw); err != nil {
			return out, err
		}
		known[run.ID] = true
		out.Runs++
	}
	return out, nil
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

// IsBundle reports whether data (the start of a file) is a rein bundle,
// which RestoreBundle reads whole.
func IsBundle(head []byte) bool { return isBundle(bytes.TrimLeft(head, " \t\r\n\ufeff")) }

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
