package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// IssueKind classifies what loading a session file set aside or changed.
type IssueKind string

// Issue kinds.
const (
	// IssueTornLine: the file ended in an incomplete line (a write cut by
	// a crash). It is not an entry. Open moves it to a sidecar file and
	// truncates the file before the line; ReadFile only reports it.
	IssueTornLine IssueKind = "torn_line"
	// IssueCorruptLine: a complete line that is not a valid entry. It
	// stays in the file and is skipped.
	IssueCorruptLine IssueKind = "corrupt_line"
	// IssueDuplicateID: an entry reuses the ID of an earlier one; the
	// later entry is skipped.
	IssueDuplicateID IssueKind = "duplicate_id"
	// IssueReparented: an entry's parent is missing (usually because the
	// parent's line is corrupt); the entry was attached to the nearest
	// known ancestor so that it and its descendants stay reachable.
	IssueReparented IssueKind = "reparented"
	// IssueBadTarget: a leaf entry names an entry that does not exist;
	// it is ignored.
	IssueBadTarget IssueKind = "bad_target"
	// IssueMissingNewline: the last line is a complete entry without its
	// newline (an edited file). It is kept; Open adds the newline.
	IssueMissingNewline IssueKind = "missing_newline"
	// IssueNewerVersion: the header names a newer format version. ReadFile
	// reads what it can; Open refuses to write to such a file.
	IssueNewerVersion IssueKind = "newer_version"
	// IssueBadCompaction: a compaction entry without a summary, or whose
	// first kept entry is not an entry before it. One without a summary
	// is ignored: the context is built as if it were not there (from the
	// last good compaction, or the whole path). One whose first kept entry
	// is missing is kept: the context starts from its summary.
	IssueBadCompaction IssueKind = "bad_compaction"
)

// LoadIssue is one thing loading set aside or changed.
type LoadIssue struct {
	Kind IssueKind
	// Line is the 1-based line number in the file (the header is line 1).
	Line int
	// Offset is the byte offset where the line starts.
	Offset int64
	// ID is the entry concerned, when known.
	ID string
	// Detail says what was wrong and what was done about it.
	Detail string
	// Sidecar is the file a torn line was moved to by Open.
	Sidecar string
}

func (i LoadIssue) String() string {
	s := fmt.Sprintf("line %d: %s: %s", i.Line, i.Kind, i.Detail)
	if i.Sidecar != "" {
		s += " (saved to " + i.Sidecar + ")"
	}
	return s
}

// log is a loaded session file: the state every Session and ReadFile
// share.
type log struct {
	header  Header
	entries entryList
	index   map[string]int
	labels  map[string]string
	name    string
	items   []string // the IDs of the work_items entries, in file order
	leaf    string
	issues  []LoadIssue
	// reparented maps an entry ID to the parent its line names, for
	// entries whose parent was replaced because it was missing.
	reparented map[string]string

	// size is the offset just after the last complete line.
	size int64
	// torn: the file ends in an incomplete line, from size to the end
	// (already reported).
	torn bool
	// noNewline: the last entry was accepted without its newline.
	noNewline bool
}

// ghost is what a corrupt line could still tell: its ID and parent,
// salvaged best-effort, and the tree entry before it in the file.
type ghost struct {
	parent string
	before string
}

// loader holds the state of one pass over a file.
type loader struct {
	l        *log
	ghosts   map[string]ghost
	lastTree string // the last tree entry loaded
	// lastCorrupt is the tree entry before the most recent corrupt line.
	lastCorrupt  string
	sawCorrupt   bool
	lineNo       int
	headerLoaded bool
	// pre is what a worker found decoding the current line, which it
	// decoded at slot in the array of its batch (adopted by the entry
	// list); pre is nil when the loader decodes the line itself.
	pre  *lineRef
	slot int
	dec  *entryDecoder
}

// maxLine bounds one line; longer lines are reported as corrupt without
// being held in memory.
const maxLine = 256 << 20

// readLog reads a whole session file. It fails only if r fails or the
// file has no valid header; everything else is an issue.
//
// size, when known, is the file's size; it sizes the index up front and
// chooses how the file is read (see batches).
func readLog(r io.Reader, path string, size int64) (*log, error) {
	return readLogWith(r, path, size, defaultReadOpts(size))
}

func readLogWith(r io.Reader, path string, size int64, o readOpts) (*log, error) {
	l := &log{index: make(map[string]int, min(size/768, 1<<22)), labels: make(map[string]string)}
	ld := &loader{l: l, dec: newEntryDecoder()}
	limit := o.maxLine
	if limit <= 0 {
		limit = maxLine
	}
	err := batches(r, o, func(b *batch, decoded bool) error {
		if decoded {
			// The entries stay where the workers decoded them.
			l.entries.adopt(b.entries)
			defer l.entries.seal()
		}
		for i := range b.lines {
			ln := &b.lines[i]
			ld.pre, ld.slot = nil, i
			if decoded {
				ld.pre = ln
			}
			if err := ld.handle(b.line(i), ln, path, limit); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !ld.headerLoaded {
		return nil, &FormatError{Path: path, Detail: "the file is empty: it holds no session header", Err: ErrNotSession}
	}
	return l, nil
}

// handle takes one line in file order.
func (ld *loader) handle(line []byte, ln *lineRef, path string, limit int) error {
	l := ld.l
	switch {
	case ln.tooLong && ln.complete:
		ld.lineNo++
		if !ld.headerLoaded {
			return &FormatError{Path: path, Line: 1, Detail: "the first line is not a session header", Err: ErrNotSession}
		}
		ld.corrupt(nil, ln.start, fmt.Errorf("the line is longer than %d bytes", limit))
		l.size = ln.next
	case ln.tooLong:
		ld.lineNo++
		l.torn = true
		l.issues = append(l.issues, LoadIssue{Kind: IssueTornLine, Line: ld.lineNo, Offset: ln.start,
			Detail: fmt.Sprintf("the last line is incomplete and longer than %d bytes; it is not an entry", limit)})
	case ln.complete:
		ld.lineNo++
		if err := ld.line(line, ln.start, path); err != nil {
			return err
		}
		l.size = ln.next
	default:
		return ld.tail(line, ln.start, path)
	}
	return nil
}

// decode adds the entry of a line at the end of the list: it decodes the
// line, or claims the entry a worker decoded. On error the caller removes
// the entry (shrink).
func (ld *loader) decode(line []byte) (*Entry, error) {
	if ld.pre == nil {
		e := ld.l.entries.grow()
		return e, ld.dec.decode(line, e)
	}
	return ld.l.entries.claim(ld.slot), ld.pre.decodeErr
}

// eachLine calls fn for every line of r, in order: its bytes without the
// newline (valid only during the call), the offsets where it starts and
// ends (after its newline), whether it ends with a newline (only the last
// line may not), and whether it was longer than maxLine (then its bytes
// are not kept and line is nil). An error from fn stops the scan.
func eachLine(r io.Reader, fn func(line []byte, start, end int64, complete, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte // the start of a line longer than the buffer
	tooLong := false
	var off, start int64
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong && len(long)+len(chunk) > maxLine {
				tooLong, long = true, nil
			} else if !tooLong {
				long = append(long, chunk...)
			}
			off += int64(len(chunk))
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		off += int64(len(chunk))
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		complete := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if complete {
			line = line[:len(line)-1]
		}
		if tooLong {
			line = nil
		}
		if complete || tooLong || len(line) > 0 {
			if ferr := fn(line, start, off, complete, tooLong); ferr != nil {
				return ferr
			}
		}
		start, tooLong = off, false
		if err != nil {
			return nil
		}
	}
}

// tail handles bytes after the last newline.
func (ld *loader) tail(b []byte, start int64, path string) error {
	ld.lineNo++
	if !ld.headerLoaded {
		if _, err := decodeHeader(b, path); err == nil {
			// A complete header that lacks its newline.
			ld.l.noNewline = true
			ld.l.size = start + int64(len(b))
			return ld.line(b, start, path)
		}
		return &FormatError{Path: path, Line: 1, Detail: "the header line is incomplete: the session was never fully created", Err: ErrNotSession}
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if e, err := ld.decode(bytes.TrimRight(b, "\r")); err == nil {
			ld.l.noNewline = true
			ld.l.size = start + int64(len(b))
			ld.l.issues = append(ld.l.issues, LoadIssue{Kind: IssueMissingNewline, Line: ld.lineNo, Offset: start, ID: e.ID,
				Detail: "the last entry has no newline; it is kept and the newline is added before the next write"})
			ld.add(e, start)
			return nil
		}
		ld.l.entries.shrink()
	}
	ld.l.torn = true
	ld.l.issues = append(ld.l.issues, LoadIssue{Kind: IssueTornLine, Line: ld.lineNo, Offset: start,
		Detail: fmt.Sprintf("the last line is incomplete (%d bytes without a newline, likely a write cut by a crash); it is not an entry", len(b))})
	return nil
}

func decodeHeader(b []byte, path string) (Header, error) {
	var h struct {
		Header
		// pi's header has a timestamp instead of created.
		Timestamp json.RawMessage `json:"timestamp"`
	}
	bad := func(detail string) (Header, error) {
		return h.Header, &FormatError{Path: path, Line: 1, Detail: detail, Err: ErrNotSession}
	}
	if err := json.Unmarshal(bytes.TrimRight(b, "\r"), &h); err != nil || h.Type != HeaderType {
		return bad("the first line is not a session header")
	}
	if h.Created.IsZero() && h.Timestamp != nil {
		return bad(fmt.Sprintf("this looks like a pi session file (format version %d), not a rein session; it must be imported", h.Version))
	}
	if h.Created.IsZero() || h.Version < 1 {
		return bad(fmt.Sprintf("the session header lacks a valid version (%d) or creation time", h.Version))
	}
	return h.Header, nil
}

// line handles one complete line (without its newline).
func (ld *loader) line(b []byte, start int64, path string) error {
	l := ld.l
	if !ld.headerLoaded {
		h, err := decodeHeader(b, path)
		if err != nil {
			return err
		}
		l.header, ld.headerLoaded = h, true
		if h.Version > FormatVersion {
			l.issues = append(l.issues, LoadIssue{Kind: IssueNewerVersion, Line: ld.lineNo, Offset: start,
				Detail: fmt.Sprintf("written by format version %d; this program knows version %d and reads it best-effort", h.Version, FormatVersion)})
		}
		return nil
	}
	// Blank lines carry nothing. A worker already looked, and the loader
	// need not touch the line's bytes at all.
	if ld.pre == nil {
		b = bytes.TrimRight(b, "\r")
		if len(bytes.TrimSpace(b)) == 0 {
			return nil
		}
	} else if ld.pre.blank {
		return nil
	}
	e, err := ld.decode(b)
	if err != nil {
		l.entries.shrink()
		ld.corrupt(bytes.TrimRight(b, "\r"), start, err)
		return nil
	}
	ld.add(e, start)
	return nil
}

func (ld *loader) corrupt(b []byte, start int64, err error) {
	ld.l.issues = append(ld.l.issues, LoadIssue{Kind: IssueCorruptLine, Line: ld.lineNo, Offset: start,
		Detail: "not a valid entry, skipped: " + err.Error()})
	ld.lastCorrupt, ld.sawCorrupt = ld.lastTree, true
	if id, parent := salvage(b); id != "" {
		if ld.ghosts == nil {
			ld.ghosts = make(map[string]ghost)
		}
		ld.ghosts[id] = ghost{parent: parent, before: ld.lastTree}
		ld.l.issues[len(ld.l.issues)-1].ID = id
	}
}

// add indexes the entry just decoded into the last slot of the list.
func (ld *loader) add(e *Entry, start int64) {
	l := ld.l
	i := l.entries.len() - 1
	// Most entries follow the tree entry loaded just before them. Their
	// parent is then known, and shares that entry's ID's memory, which
	// makes comparing the two cheap (see path).
	follows := e.Parent != "" && e.Parent == ld.lastTree
	if follows {
		e.Parent = ld.lastTree
	}
	if follows || !e.IsTree() || e.Parent == "" {
		// No need to look the parent up: index the entry with a single
		// lookup, undone if the ID was taken.
		n := len(l.index)
		if l.index[e.ID] += i; len(l.index) == n {
			l.index[e.ID] -= i
			ld.duplicate(e, start)
			return
		}
	} else {
		if _, dup := l.index[e.ID]; dup {
			ld.duplicate(e, start)
			return
		}
		if !l.isTree(e.Parent) {
			orig := e.Parent
			e.Parent = ld.ancestor(orig)
			if l.reparented == nil {
				l.reparented = make(map[string]string)
			}
			l.reparented[e.ID] = orig
			to := "the root"
			if e.Parent != "" {
				to = "entry " + e.Parent
			}
			l.issues = append(l.issues, LoadIssue{Kind: IssueReparented, Line: ld.lineNo, Offset: start, ID: e.ID,
				Detail: fmt.Sprintf("its parent %s is missing; attached to %s, the nearest known ancestor", orig, to)})
		}
		l.index[e.ID] = i
	}
	l.apply(e, func(target string) {
		l.issues = append(l.issues, LoadIssue{Kind: IssueBadTarget, Line: ld.lineNo, Offset: start, ID: e.ID,
			Detail: fmt.Sprintf("the leaf entry names %s, which is not a tree entry of this file; ignored", target)})
	})
	if e.Type == TypeCompaction {
		ld.checkCompaction(e, start)
	}
	if e.IsTree() {
		ld.lastTree = e.ID
	}
}

// checkCompaction reports a compaction entry the context cannot use as
// written (see IssueBadCompaction).
func (ld *loader) checkCompaction(e *Entry, start int64) {
	l := ld.l
	switch {
	case e.Summary == "":
		l.issues = append(l.issues, LoadIssue{Kind: IssueBadCompaction, Line: ld.lineNo, Offset: start, ID: e.ID,
			Detail: "the compaction has no summary; it is ignored, and the context is built from the entries before it"})
	case e.FirstKept != "" && !l.isTree(e.FirstKept):
		l.issues = append(l.issues, LoadIssue{Kind: IssueBadCompaction, Line: ld.lineNo, Offset: start, ID: e.ID,
			Detail: fmt.Sprintf("the compaction names %s as its first kept entry, which is not an entry before it; the context starts from its summary", e.FirstKept)})
	}
}

// duplicate skips the entry just decoded, whose ID an earlier one has.
func (ld *loader) duplicate(e *Entry, start int64) {
	ld.l.issues = append(ld.l.issues, LoadIssue{Kind: IssueDuplicateID, Line: ld.lineNo, Offset: start, ID: e.ID,
		Detail: "an earlier entry has the same id; this one is skipped"})
	ld.l.entries.shrink()
}

// ancestor picks the parent for an entry whose parent p is missing: if p
// was salvaged from a corrupt line, that line's own parent (when known)
// or else the tree entry just before that line; otherwise the tree entry
// just before the most recent corrupt line, or, without one, the tree
// entry just before this entry.
func (ld *loader) ancestor(p string) string {
	seen := 0
	for {
		g, ok := ld.ghosts[p]
		if !ok {
			break
		}
		if ld.l.isTree(g.parent) {
			return g.parent
		}
		if _, again := ld.ghosts[g.parent]; !again || seen > len(ld.ghosts) {
			return g.before
		}
		p = g.parent
		seen++
	}
	if ld.sawCorrupt {
		return ld.lastCorrupt
	}
	return ld.lastTree
}

// apply updates the derived state (leaf, labels, name) for an entry that
// was just added. bad is called when a leaf entry's target is unusable.
func (l *log) apply(e *Entry, bad func(target string)) {
	switch {
	case e.Type == TypeLeaf:
		if e.Target == "" {
			l.leaf = ""
			return
		}
		if l.isTree(e.Target) {
			l.leaf = e.Target
			return
		}
		if bad != nil {
			bad(e.Target)
		}
	case e.Type == TypeLabel:
		if e.Label == "" {
			delete(l.labels, e.Target)
		} else {
			l.labels[e.Target] = e.Label
		}
	case e.Type == TypeSessionInfo:
		l.name = e.Name
	case e.Type == TypeWorkItems:
		l.items = append(l.items, e.ID)
	case e.Type.Side():
	default:
		l.leaf = e.ID
	}
}

// salvage finds the id and parent of a damaged line, best-effort: the
// first "id" and "parent" string fields, provided they come before any
// message payload (where tool calls have ids of their own).
func salvage(b []byte) (id, parent string) {
	if i := bytes.Index(b, []byte(`"message":`)); i >= 0 {
		b = b[:i]
	}
	return stringField(b, `"id":"`), stringField(b, `"parent":"`)
}

func stringField(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 || j > 64 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return ""
	}
	return string(rest[:j])
}

// ReadFile loads a session file read-only, without taking its lock and
// without changing it: no repair, the torn last line is only reported.
// It fails only when the file cannot be read or has no valid header
// (ErrNotSession); everything else it set aside is in the issues.
func ReadFile(path string) (Header, []Entry, []LoadIssue, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	l, err := readLog(f, path, size)
	if err != nil {
		return Header{}, nil, nil, err
	}
	return l.header, l.entries.all(), l.issues, nil
}
