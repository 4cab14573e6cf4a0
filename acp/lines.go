package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// lineFilter stands between the client's stream and the SDK's reader.
// The SDK drops a line that is not JSON without a word; the filter
// answers it, as JSON-RPC asks, with a parse error (-32700), answers a
// JSON value that is not a request, response or notification with an
// invalid-request error (-32600), answers a line over MaxLine the same
// way, and passes every other line on unchanged.
type lineFilter struct {
	pr  *io.PipeReader
	pw  *io.PipeWriter
	in  io.Reader
	out io.Writer
}

func newLineFilter(in io.Reader, out io.Writer) *lineFilter {
	pr, pw := io.Pipe()
	return &lineFilter{pr: pr, pw: pw, in: in, out: out}
}

// start begins passing the client's lines on; nothing reaches the SDK
// before it.
func (f *lineFilter) start() { go f.run(bufio.NewReaderSize(f.in, 64<<10), f.out) }

func (f *lineFilter) Read(p []byte) (int, error) { return f.pr.Read(p) }

// Close ends the stream the SDK reads. The goroutine copying the
// client's stream ends when that stream does.
func (f *lineFilter) Close() error { return f.pr.Close() }

func (f *lineFilter) run(in *bufio.Reader, out io.Writer) {
	for {
		line, tooLong, err := readLine(in)
		switch {
		case tooLong:
			writeError(out, nil, -32600, "Invalid Request", fmt.Sprintf("a message is longer than %d bytes", MaxLine))
		case len(bytes.TrimSpace(line)) > 0:
			if id, code, msg, detail := check(line); code != 0 {
				writeError(out, id, code, msg, detail)
			} else if _, werr := f.pw.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			f.pw.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line without its newline; a line over MaxLine is
// skipped to its end and reported as tooLong.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check returns a non-zero JSON-RPC error code when line is not a
// message the SDK can act on, with the request's id when one is known.
func check(line []byte) (id json.RawMessage, code int, msg, detail string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return nil, -32700, "Parse error", "the message is not valid JSON: " + err.Error()
		}
		return nil, -32600, "Invalid Request", "a message must be a JSON object"
	}
	switch {
	case m.Method != nil && *m.Method == "":
		return m.ID, -32600, "Invalid Request", "the method is empty"
	case m.Method == nil && len(m.ID) == 0:
		return nil, -32600, "Invalid Request", "a message needs a method (a request or notification) or an id (a response)"
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return m.ID, -32600, "Invalid Request", "a response needs a result or an error"
	}
	return nil, 0, "", ""
}

func writeError(out io.Writer, id json.RawMessage, code int, msg, detail string) {
	if len(id) == 0 || string(id) == "null" {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": msg, "data": map[string]string{"error": detail}},
	})
	if err == nil {
		_, _ = out.Write(append(b, '\n'))
	}
}
