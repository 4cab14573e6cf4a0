package interop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/reinhq/rein/internal/jsonread"
)

// maxLine bounds one line of a JSONL recording.
const maxLine = 64 << 20

// eachLine calls fn with every non-blank line of r (without its newline)
// and its 1-based number. A line longer than maxLine, or with bytes that
// are not text, is reported through bad instead. A last line without a
// newline that fn cannot read is what a cut-off write leaves.
func eachLine(r io.Reader, fn func(n int, line []byte, last bool) error, bad func(n int, why string)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		var long []byte
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) <= maxLine {
				long = append(long, line...)
			}
			line, err = br.ReadSlice('\n')
		}
		if long != nil {
			if len(long)+len(line) > maxLine {
				n++
				bad(n, fmt.Sprintf("a line longer than %d MiB", maxLine>>20))
				if err == nil {
					continue
				}
				line = nil
			} else {
				line = append(long, line...)
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 {
			n++
			last := line[len(line)-1] != '\n'
			t := bytes.TrimSpace(line)
			switch {
			case len(t) == 0:
			case !utf8.Valid(t) && bytes.IndexByte(t, 0) >= 0 || t[0] != '{':
				bad(n, "not a JSON object (binary or other data)")
			default:
				if ferr := fn(n, t, last); ferr != nil {
					var se *sinkError
					if errors.Is(ferr, errNotFormat) || errors.Is(ferr, errTooNew) || errors.Is(ferr, errTooOld) || errors.As(ferr, &se) {
						return ferr
					}
					if last {
						bad(n, "the last line is cut off (no newline) and does not parse: "+ferr.Error())
					} else {
						bad(n, ferr.Error())
					}
				}
			}
		}
		if err != nil {
			return nil
		}
	}
}

// parseTime reads an RFC 3339 time, or milliseconds since the epoch.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func millis(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// unmarshal decodes one JSON value of a recording: invalid UTF-8 is kept
// and a repeated name is not an error, as recordings have both.
func unmarshal(b []byte, v any) error { return jsonv2.Unmarshal(b, v, jsonread.Options) }
