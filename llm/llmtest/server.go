package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Request is what a Server saw of one request.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// Server is a loopback HTTP server, standing in for a provider's API,
// that records every request before its handler answers it. It is
// closed when the test ends. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	seen []Request
}

// NewServer starts a Server that answers every request with h (after
// reading the whole request body, which h finds empty).
func NewServer(t testing.TB, h http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.seen...)
}

// Count returns how many requests the server received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

// Paths returns the URL paths of the requests received so far.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.seen))
	for i, r := range s.seen {
		out[i] = r.Path
	}
	return out
}

// Last returns the last request received; the test fails at once when
// there was none.
func (s *Server) Last(t testing.TB) Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		t.Fatal("the server received no request")
	}
	return s.seen[len(s.seen)-1]
}

// LastBody returns the body of the last request; the test fails at once
// when there was none.
func (s *Server) LastBody(t testing.TB) []byte {
	t.Helper()
	return s.Last(t).Body
}

// LastHeader returns the header of the last request, or nil when there
// was none.
func (s *Server) LastHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return nil
	}
	return s.seen[len(s.seen)-1].Header
}

// SSE answers with body as an event stream (Content-Type
// text/event-stream, status 200), written in pieces of n bytes with a
// flush after each; n <= 0 writes it at once.
func SSE(body []byte, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rest := body
		step := n
		if step <= 0 {
			step = len(rest)
		}
		for len(rest) > 0 {
			k := min(step, len(rest))
			if _, err := w.Write(rest[:k]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			rest = rest[k:]
		}
	}
}

// SSEEvents answers with body as an event stream written one event at a
// time (up to and including each blank line, "\n\n" or "\r\n\r\n"),
// with a flush after each.
func SSEEvents(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rest := body
		for len(rest) > 0 {
			n := eventEnd(rest)
			if _, err := w.Write(rest[:n]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}
}

// eventEnd returns the length of the first event of b, its blank line
// included, or len(b) when b holds no complete event.
func eventEnd(b []byte) int {
	end := len(b)
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(b, []byte(sep)); i >= 0 && i+len(sep) < end {
			end = i + len(sep)
		}
	}
	return end
}

// Status answers with status and body, with the given header fields;
// Content-Type is application/json unless header sets it.
func Status(status int, header http.Header, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// SSEData frames JSON payloads as data-only events ("data: …" and a
// blank line each).
func SSEData(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

// SSETyped frames JSON payloads as events named by the payload's "type"
// member, as the Anthropic Messages and OpenAI Responses APIs send them.
// A payload that is not a JSON object with a "type" is framed with an
// empty event name, so that broken input can be framed too.
func SSETyped(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(p), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + p + "\n\n")
	}
	return b.String()
}

// SSEFromJSONL frames a recording of one JSON payload a line (blank lines
// skipped) as SSETyped does; the test fails at once on a line that is not
// JSON.
func SSEFromJSONL(t testing.TB, jsonl []byte) []byte {
	t.Helper()
	var payloads []string
	for line := range strings.SplitSeq(string(jsonl), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("recorded payload is not JSON: %q", line)
		}
		payloads = append(payloads, line)
	}
	return []byte(SSETyped(payloads...))
}

// Fixture returns the contents of the file at the joined path (a
// recording under testdata/, say); the test fails at once when it cannot
// be read.
func Fixture(t testing.TB, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
