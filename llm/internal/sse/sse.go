// Package sse reads Server-Sent Events streams as specified by the WHATWG
// HTML standard: lines ending in LF, CRLF or CR; "event", "data", "id" and
// "retry" fields; comments; events dispatched on a blank line. It is the
// one reader every wire client in rein shares.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Event is one dispatched event. Data is only valid until the next call to
// Next; copy it to keep it.
type Event struct {
	// Type is the event field, or "" when the stream sent none (the
	// standard's default type "message").
	Type string
	Data []byte
	ID   string
	// Retry is the reconnection time in milliseconds, or -1 when absent.
	Retry int
}

// ErrLineTooLong is returned when a single line exceeds the reader's limit.
var ErrLineTooLong = errors.New("sse: line too long")

// DefaultMaxLine is the default limit on one line of the stream.
const DefaultMaxLine = 32 << 20

// Reader decodes events from a stream. It is not safe for concurrent use.
type Reader struct {
	src     io.Reader
	buf     []byte
	r, w    int
	scanned int
	err     error
	skipLF  bool
	// MaxLine limits one line of the stream; a longer line fails with
	// ErrLineTooLong.
	MaxLine int
	data    []byte
	typ     []byte
	// types holds the event names seen so far, so that a stream whose
	// events alternate between a few names allocates each name once.
	types   []string
	id      string
	retry   int
	hasData bool
	started bool
}

// NewReader returns a reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: r, buf: make([]byte, 32<<10), MaxLine: DefaultMaxLine, retry: -1}
}

// maxKeptBuffer is the largest buffer Reset keeps for reuse; a reader
// that grew beyond it for a long line returns to the default size.
const maxKeptBuffer = 1 << 20

// Reset makes r read a new stream from src, as a reader returned by
// NewReader would, reusing its buffers. MaxLine is kept.
func (r *Reader) Reset(src io.Reader) {
	buf := r.buf
	if len(buf) > maxKeptBuffer || len(buf) == 0 {
		buf = make([]byte, 32<<10)
	}
	*r = Reader{src: src, buf: buf, MaxLine: r.MaxLine, data: r.data[:0], typ: r.typ[:0], types: r.types, retry: -1}
}

// readLine returns the next line without its terminator (LF, CRLF or CR).
// The slice is valid until the next call. The source's error (io.EOF at
// the end) is returned only when no bytes remain.
func (r *Reader) readLine() ([]byte, error) {
	for {
		if r.skipLF && r.r < r.w {
			r.skipLF = false
			if r.buf[r.r] == '\n' {
				r.r++
			}
		}
		// The line ends at the first LF or CR; both searches are
		// vectorised, which matters on streams of long JSON lines.
		seg := r.buf[r.r+r.scanned : r.w]
		end := bytes.IndexByte(seg, '\n')
		before := seg
		if end >= 0 {
			before = seg[:end]
		}
		if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
			end = cr
		}
		if end >= 0 {
			i := r.r + r.scanned + end
			line := r.buf[r.r:i]
			r.r, r.scanned = i+1, 0
			if r.buf[i] == '\r' {
				r.skipLF = true
			}
			return line, nil
		}
		r.scanned = r.w - r.r
		if r.err != nil {
			if r.r < r.w {
				line := r.buf[r.r:r.w]
				r.r, r.scanned = r.w, 0
				return line, nil
			}
			return nil, r.err
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// fill reads more of the source into the buffer, moving unread bytes to
// the front and growing the buffer for long lines.
func (r *Reader) fill() error {
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
	}
	if r.w == len(r.buf) {
		if len(r.buf) >= r.MaxLine {
			return ErrLineTooLong
		}
		nb := make([]byte, min(2*len(r.buf), r.MaxLine+1))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if err != nil {
			r.err = err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	r.err = io.ErrNoProgress
	return nil
}

// Next returns the next event. It returns io.EOF after the last complete
// event; an event not terminated by a blank line before the end of the
// stream is discarded, as the standard requires, and reported as
// io.ErrUnexpectedEOF when it held data.
func (r *Reader) Next() (Event, error) {
	r.data = r.data[:0]
	r.typ = r.typ[:0]
	r.hasData = false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && r.hasData {
				return Event{}, io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(line) == 0 {
			if !r.hasData {
				r.typ = r.typ[:0]
				continue
			}
			data := r.data
			if n := len(data); n > 0 && data[n-1] == '\n' {
				data = data[:n-1]
			}
			ev := Event{Data: data, ID: r.id, Retry: r.retry}
			if len(r.typ) > 0 {
				ev.Type = r.typeName()
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			r.data = append(r.data, value...)
			r.data = append(r.data, '\n')
			r.hasData = true
		case "event":
			r.typ = append(r.typ[:0], value...)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.id = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				r.retry = n
			}
		}
	}
}

// maxTypes bounds the names a Reader keeps; a stream with more distinct
// names than that allocates the rest anew each time.
const maxTypes = 32

// typeName returns r.typ as a string, shared with earlier events of the
// same name.
func (r *Reader) typeName() string {
	for i, t := range r.types {
		if t == string(r.typ) {
			if i > 0 { // keep the most recent name first
				copy(r.types[1:i+1], r.types[:i])
				r.types[0] = t
			}
			return t
		}
	}
	t := string(r.typ)
	if len(r.types) < maxTypes {
		r.types = append(r.types, "")
	}
	copy(r.types[1:], r.types)
	r.types[0] = t
	return t
}

// Error describes a malformed payload inside an otherwise valid stream;
// decoders wrap it with the event that carried it.
type Error struct {
	Event string
	Data  []byte
	Err   error
}

func (e *Error) Error() string {
	d := e.Data
	if len(d) > 200 {
		d = d[:200]
	}
	return fmt.Sprintf("malformed %q event %q: %v", e.Event, d, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
