package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reinhq/rein/session"
)

// Errors a read can fail with, wrapped with the details.
var (
	// ErrUnrecognised: the input is in none of the formats Read knows.
	ErrUnrecognised = errors.New("not a session of rein, pi, Claude Code, codex or opencode")
	errNotFormat    = errors.New("not in the format asked for")
	// ErrTooNew: the recording's format version is newer than this
	// program reads.
	ErrTooNew = errors.New("format version too new")
	errTooNew = ErrTooNew
	errTooOld = errors.New("format version too old")
)

// headerError explains a recording whose header never came.
func headerError(name string, f Format, r *Report) error {
	if len(r.Dropped) > 0 {
		return fmt.Errorf("%s: %w: no %s header; first problem: %s", name, ErrUnrecognised, f, r.Dropped[0])
	}
	return fmt.Errorf("%s: %w: no %s header", name, ErrUnrecognised, f)
}

// ReadFile reads the recording at path in format from ("" detects it).
// The file is only read.
func ReadFile(path string, from Format) (*Conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f, path, from)
	if err == nil && c.Source.Format == string(Claude) {
		c.Children = claudeChildren(path, &c.Report)
	}
	return c, err
}

// Read reads a recording in format from ("" detects it from the
// content); name labels it in the report (file:line). Lines that cannot
// be read are skipped and listed in Report.Dropped; a recording of which
// nothing can be read is an error. The recording is read twice (see
// the import pipeline): r is read into memory first unless it can seek.
func Read(r io.Reader, name string, from Format) (*Conversation, error) {
	rs, err := seekable(r)
	if err != nil {
		return nil, err
	}
	im, err := prepare(rs, name, from)
	if err != nil {
		return nil, err
	}
	if im.plan == nil {
		return im.readRein()
	}
	var entries []session.Entry
	c, err := im.run(func(e *session.Entry) error {
		entries = append(entries, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Entries = entries
	return c, nil
}

// readRein reads a rein session or bundle whole.
func (im *importer) readRein() (*Conversation, error) {
	if im.from != Rein {
		return nil, fmt.Errorf("%s cannot be imported (it is an export format)", im.from)
	}
	if _, err := im.rs.Seek(im.start, io.SeekStart); err != nil {
		return nil, err
	}
	c, err := readRein(bufio.NewReaderSize(im.rs, 256<<10), im.name)
	if err != nil {
		return nil, readError(im.name, err)
	}
	if len(c.Entries) == 0 {
		return nil, fmt.Errorf("%s: nothing to import: %s", im.name, c.Report.Summary())
	}
	return c, nil
}

// Detect names the format of a recording from its first bytes, or ""
// when it fits none.
func Detect(head []byte) Format {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	line := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		line = head[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return ""
	}
	if isBundle(line) {
		return Rein // a bundle is one long line, often longer than head
	}
	var p struct {
		Type        string          `json:"type"`
		Created     json.RawMessage `json:"created"`
		Version     json.RawMessage `json:"version"`
		Timestamp   json.RawMessage `json:"timestamp"`
		SessionID   json.RawMessage `json:"sessionId"`
		ParentUUID  json.RawMessage `json:"parentUuid"`
		LeafUUID    json.RawMessage `json:"leafUuid"`
		Payload     json.RawMessage `json:"payload"`
		Info        json.RawMessage `json:"info"`
		Messages    json.RawMessage `json:"messages"`
		IsSidechain json.RawMessage `json:"isSidechain"`
	}
	if json.Unmarshal(line, &p) != nil {
		// A pretty-printed document: opencode's export.
		if bytes.Contains(head, []byte(`"info"`)) && bytes.Contains(head, []byte(`"messages"`)) {
			return OpenCode
		}
		return ""
	}
	switch {
	case p.Type == "session" && len(p.Created) > 0:
		return Rein
	case p.Type == "session" && len(p.Timestamp) > 0:
		return Pi
	case len(p.Payload) > 0 && len(p.Timestamp) > 0:
		return Codex
	case len(p.SessionID) > 0 || len(p.ParentUUID) > 0 || len(p.LeafUUID) > 0 || len(p.IsSidechain) > 0 ||
		p.Type == "summary" || p.Type == "file-history-snapshot":
		return Claude
	case len(p.Info) > 0 && len(p.Messages) > 0:
		return OpenCode
	}
	return ""
}

// readRein reads a rein session (a copy of one, moved between
// machines) or a rein bundle.
func readRein(br *bufio.Reader, name string) (*Conversation, error) {
	head, _ := br.Peek(64)
	if isBundle(head) {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, err
		}
		c, children, err := readBundle(data, name)
		if err != nil {
			return nil, err
		}
		if len(children) > 0 {
			c.Report.drop(name, fmt.Sprintf("%d forked and sub-agent sessions in the bundle", len(children)), "only the main session is read here; RestoreBundle (rein sessions import) restores them all")
		}
		return c, nil
	}
	return readReinLog(br, name)
}

// Import writes c as a new rein session (opts.Dir or the default
// directory of opts.Cwd, which defaults to the recording's working
// directory) whose header records where it came from.
func Import(c *Conversation, opts session.Options) (*session.Session, error) {
	if opts.Cwd == "" {
		opts.Cwd = c.Cwd
	}
	return session.CreateImported(opts, c.Source, c.Entries)
}
