package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

const (
	// grepWholeFile is the largest file the Go search reads at once;
	// larger files are read in blocks of grepBlock bytes.
	grepWholeFile = 32 << 20
	grepBlock     = 1 << 20
	// grepBinaryWindow is how much of a file's start is checked for a NUL
	// byte; ripgrep looks at its first buffer, of this size.
	grepBinaryWindow = 64 << 10
)

// searchGo is the pure-Go backend: it walks the tree with the ignore
// rules of the find tool, skips hidden files, applies the glob as
// ripgrep does, and scans each text file with the query's RE2
// expression. A NUL byte in a file's first 64 KiB makes it binary and
// skipped; a later one ends its search. A file named directly is
// searched whole, binary or not.
func searchGo(ctx context.Context, q grepQuery, f *grepFormatter) error {
	s := &lineScanner{re: q.re, pre: prefilter(q.re), context: q.in.Context, emit: f.add, full: func() bool { return f.closed }}
	if q.isFile {
		s.explicit = true
		return s.file(ctx, q.start, q.rel)
	}
	o := walkOptions{skipHidden: true, hide: q.hide, hidden: q.hidden}
	if q.glob != "" {
		o.override = q.override
	}
	return walk(ctx, q.root, q.start, o, func(e walkEntry) error {
		if !e.d.Type().IsRegular() {
			return nil
		}
		return s.file(ctx, e.abs, e.rel)
	})
}

// prefilter returns a multi-line form of re that matches a text whenever
// re matches one of its lines, or nil when there is none. It lets the
// scanner pass over files and lines that cannot match.
func prefilter(re *regexp.Regexp) *regexp.Regexp {
	expr := re.String()
	if strings.Contains(expr, `\A`) || strings.Contains(expr, `\z`) {
		return nil
	}
	m, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil
	}
	return m
}

// lineScanner finds the matching lines of one file and emits them with
// their context, as grep -C does: overlapping context is merged and a
// line that matches is always a match.
type lineScanner struct {
	re, pre  *regexp.Regexp
	context  int
	emit     func(grepEvent)
	full     func() bool // only counting is left: events need no text
	explicit bool        // search binary files too

	buf    []byte // reused to read whole files
	rel    string
	lineNo int
	after  int       // context lines still to show after a match
	before []pending // lines kept for the context before a match
}

type pending struct {
	line int
	text []byte
}

// file scans the file at abs, shown as rel. Unreadable files are passed
// over, as ripgrep does.
func (s *lineScanner) file(ctx context.Context, abs, rel string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fh, err := os.Open(abs)
	if err != nil {
		return nil
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil
	}
	s.rel, s.lineNo, s.after, s.before = rel, 0, 0, s.before[:0]
	if size := fi.Size(); size <= grepWholeFile {
		// One buffer serves every file; +1 notices a file that grew.
		if int64(cap(s.buf)) < size+1 {
			s.buf = make([]byte, size+1+size/4)
		}
		n, err := io.ReadFull(fh, s.buf[:size+1])
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil
		}
		data := s.buf[:n]
		if !s.explicit && bytes.IndexByte(data[:min(len(data), grepBinaryWindow)], 0) >= 0 {
			return nil
		}
		if s.pre != nil && !s.pre.Match(data) {
			return nil
		}
		_, err = s.block(ctx, data)
		return err
	}
	buf := make([]byte, 0, 2*grepBlock)
	first := true
	for {
		n, rerr := io.ReadFull(fh, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF)
		if rerr != nil && !eof {
			return nil
		}
		if first {
			first = false
			if !s.explicit && bytes.IndexByte(buf[:min(len(buf), grepBinaryWindow)], 0) >= 0 {
				return nil
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		if cut == 0 {
			// one line longer than the buffer: make room and read on
			buf = append(buf, make([]byte, grepBlock)...)[:len(buf)]
			continue
		}
		more, err := s.block(ctx, buf[:cut])
		if err != nil || !more || eof {
			return err
		}
		buf = buf[:copy(buf, buf[cut:])]
	}
}

// block scans the lines of data, which ends at a line break unless it is
// the end of the file. more is false when a NUL byte ended the file.
func (s *lineScanner) block(ctx context.Context, data []byte) (more bool, err error) {
	more = true
	if !s.explicit {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:bytes.LastIndexByte(data[:i], '\n')+1]
			more = false
		}
	}
	for pos, seen := 0, 0; pos < len(data); seen++ {
		if seen%65536 == 65535 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		known := false // the line is known to match
		counting := s.full()
		if (s.context == 0 || counting) && s.pre != nil {
			// Jump to the line of the next possible match. A match that
			// stays within one line is a match of that line.
			loc := s.pre.FindIndex(data[pos:])
			if loc == nil {
				s.lineNo += bytes.Count(data[pos:], []byte{'\n'})
				break
			}
			start := pos + bytes.LastIndexByte(data[pos:pos+loc[0]], '\n') + 1
			known = bytes.IndexByte(data[pos+loc[0]:pos+loc[1]], '\n') < 0
			s.lineNo += bytes.Count(data[pos:start], []byte{'\n'})
			pos = start
		}
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		line := data[pos:end]
		pos = next
		s.lineNo++
		switch {
		case counting:
			// Only the number of matching lines is still wanted.
			if known || s.re.Match(line) {
				s.emit(grepEvent{path: s.rel, line: s.lineNo, match: true})
			}
		case known || s.re.Match(line):
			for _, p := range s.before {
				s.emit(grepEvent{path: s.rel, line: p.line, text: string(p.text)})
			}
			s.before = s.before[:0]
			s.emit(grepEvent{path: s.rel, line: s.lineNo, text: string(line), match: true})
			s.after = s.context
		case s.after > 0:
			s.emit(grepEvent{path: s.rel, line: s.lineNo, text: string(line)})
			s.after--
		case s.context > 0:
			if len(s.before) == s.context {
				copy(s.before, s.before[1:])
				s.before = s.before[:len(s.before)-1]
			}
			s.before = append(s.before, pending{s.lineNo, line})
		}
	}
	// The kept lines point into data, which the caller reuses.
	for i := range s.before {
		s.before[i].text = bytes.Clone(s.before[i].text)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("search stopped: %w", err)
	}
	return more, nil
}
