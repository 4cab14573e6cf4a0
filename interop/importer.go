package interop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"

	"github.com/reinhq/rein/session"
)

// lineRef names a line of a recording (file:line), formatted only when
// something is reported about it.
type lineRef struct {
	name string
	n    int
}

func (l lineRef) String() string { return l.name + ":" + strconv.Itoa(l.n) }

// scan is one pass of a reader over a recording: it fills in c (source,
// metadata, report) and hands each entry to add, in file order.
type scan struct {
	r    io.Reader
	name string
	c    *Conversation
	// add takes an entry; side marks a Claude Code sidechain entry.
	add func(e session.Entry, side bool) error
	// first is the first pass, which the second may consult (nil in
	// the first).
	first *scan
	// main and side count the entries passed to add.
	main, side int
	// failed holds codex's calls whose events say they failed.
	failed map[string]bool
}

// scanners are the readers that go through the import pipeline; linked
// marks those whose entries name their parents (and so need orphans);
// raw marks rein's own, which need nothing else.
var scanners = map[Format]struct {
	scan        func(*scan) error
	linked, raw bool
}{
	Pi:       {scanPi, true, false},
	Claude:   {scanClaude, true, false},
	Codex:    {scanCodex, false, false},
	OpenCode: {scanOpenCode, false, false},
	Rein:     {scanRein, true, true},
}

// sinkError wraps an error of the entries' consumer, which ends a scan
// (a line that cannot be read only skips that line).
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// importer is a recording after the first pass: its metadata and the
// plan the second pass follows.
type importer struct {
	rs     io.ReadSeeker
	start  int64
	name   string
	from   Format
	linked bool
	first  *scan
	plan   *plan
}

// prepare detects the format of the recording in rs (from its current
// offset) when from is "", and makes the first pass.
func prepare(rs io.ReadSeeker, name string, from Format) (*importer, error) {
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	if from == "" {
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(rs, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if from = Detect(head[:n]); from == "" {
			return nil, fmt.Errorf("%s: %w (the start of the file fits none of them)", name, ErrUnrecognised)
		}
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	sc, ok := scanners[from]
	if from == Rein {
		// A bundle is one document, read whole.
		head := make([]byte, 64)
		n, _ := io.ReadFull(rs, head)
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
		ok = !isBundle(head[:n])
	}
	if !ok {
		return &importer{rs: rs, start: start, name: name, from: from}, nil
	}
	main, side := newPlan(sc.linked, sc.raw), newPlan(sc.linked, sc.raw)
	var r Report
	s := &scan{r: bufio.NewReaderSize(rs, 256<<10), name: name, c: &Conversation{}, failed: map[string]bool{}}
	s.add = func(e session.Entry, isSide bool) error {
		if isSide {
			s.side++
			side.add(e, &r, name)
		} else {
			s.main++
			main.add(e, &r, name)
		}
		return nil
	}
	if err := sc.scan(s); err != nil {
		return nil, readError(name, err)
	}
	p := main
	if s.main == 0 {
		p = side
	}
	if s.main+s.side == 0 {
		return nil, fmt.Errorf("%s: nothing to import: %s", name, s.c.Report.Summary())
	}
	return &importer{rs: rs, start: start, name: name, from: from, linked: sc.linked, first: s, plan: p}, nil
}

func readError(name string, err error) error {
	if errors.Is(err, errNotFormat) || errors.Is(err, errTooNew) || errors.Is(err, errTooOld) {
		return fmt.Errorf("%s:1: %w", name, err)
	}
	var se *sinkError
	if errors.As(err, &se) {
		return se.err
	}
	return err
}

// conversation is what the first pass learned about the recording,
// without entries.
func (im *importer) conversation() *Conversation {
	c := *im.first.c
	c.Report = Report{}
	return &c
}

// run makes the second pass, passing each entry of the import to out,
// and returns the conversation (without Entries) with its report.
func (im *importer) run(out func(*session.Entry) error) (*Conversation, error) {
	if _, err := im.rs.Seek(im.start, io.SeekStart); err != nil {
		return nil, err
	}
	c := &Conversation{}
	n := 0
	q := newPipeline(im.plan, &c.Report, im.name, im.linked, func(e *session.Entry) error {
		n++
		return out(e)
	})
	useSide := im.first.main == 0
	s := &scan{r: bufio.NewReaderSize(im.rs, 256<<10), name: im.name, c: c, first: im.first}
	s.add = func(e session.Entry, side bool) error {
		if side != useSide {
			return nil
		}
		if err := q.add(e); err != nil {
			return &sinkError{err}
		}
		return nil
	}
	if err := scanners[im.from].scan(s); err != nil {
		return nil, readError(im.name, err)
	}
	if err := q.finish(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: nothing to import: %s", im.name, c.Report.Summary())
	}
	return c, nil
}

// seekable gives r as an io.ReadSeeker: itself, or its content read
// into memory.
func seekable(r io.Reader) (io.ReadSeeker, error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		if _, err := rs.Seek(0, io.SeekCurrent); err == nil {
			return rs, nil
		}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// Imported is what ImportFile wrote.
type Imported struct {
	// Path and ID are the new session's file and id.
	Path, ID string
	// Conversation is the recording's source, metadata and report
	// (Entries is empty: they went to the file), with its sub-agents'
	// conversations in Children.
	Conversation *Conversation
}

// ImportFile reads the recording at path in format from ("" detects
// it) and writes it as a new rein session (as Read and Import would),
// streaming the entries to the file: the import holds ids, not the
// conversation. The source is only read. The new session is closed;
// ImportChildren imports Conversation.Children under it once it is open.
func ImportFile(path string, from Format, opts session.Options) (*Imported, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im, err := prepare(f, path, from)
	if err != nil {
		return nil, err
	}
	if im.plan == nil {
		// A rein session or bundle: read whole, as Read does.
		c, err := im.readRein()
		if err != nil {
			return nil, err
		}
		s, err := Import(c, opts)
		if err != nil {
			return nil, err
		}
		c.Entries = nil
		out := &Imported{Path: s.Path(), ID: s.ID(), Conversation: c}
		return out, s.Close()
	}
	meta := im.conversation()
	if opts.Cwd == "" {
		opts.Cwd = meta.Cwd
	}
	var c *Conversation
	seq := func(yield func(*session.Entry, error) bool) {
		stop := errors.New("stopped")
		var err error
		c, err = im.run(func(e *session.Entry) error {
			if !yield(e, nil) {
				return stop
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) {
			yield(nil, err)
		}
	}
	p, id, err := session.WriteImported(opts, meta.Source, iter.Seq2[*session.Entry, error](seq))
	if err != nil {
		return nil, err
	}
	c.Source, c.Cwd, c.Created, c.Name = meta.Source, meta.Cwd, meta.Created, meta.Name
	if c.Source.Format == string(Claude) {
		c.Children = claudeChildren(path, &c.Report)
	}
	return &Imported{Path: p, ID: id, Conversation: c}, nil
}
