package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixture is a server over real coding agents with scripted models, on
// a loopback test server.
type fixture struct {
	t    *testing.T
	dir  string
	home string
	srv  *Server
	ts   *httptest.Server
	// token is sent with every request when set.
	token string
}

// newFixture starts a server whose sessions reply with replies() (each
// session gets a fresh list). mod adjusts the options.
func newFixture(t testing.TB, replies func() []faux.Reply, mod func(*Options)) *fixture {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "PATH": os.Getenv("PATH")}
	o := Options{
		Workdir: dir,
		Open: func(ctx context.Context, r OpenRequest) (*coding.Agent, error) {
			mode := r.PermissionMode
			if mode == "" {
				mode = "auto_all"
			}
			return coding.Open(ctx, coding.Options{
				Workdir: dir, Provider: faux.New(replies()...), ModelInfo: faux.Model(),
				Getenv:      func(k string) string { return env[k] },
				Environ:     func() []string { return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")} },
				Interactive: true, PermissionMode: mode, Session: r.Session,
				NoRunRecords: true, Frontend: "http", MaxTurns: 20,
			})
		},
	}
	if mod != nil {
		mod(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	f := &fixture{dir: dir, home: home, srv: srv, ts: ts, token: o.Token}
	if tt, ok := t.(*testing.T); ok {
		f.t = tt
	}
	t.Cleanup(func() {
		ts.CloseClientConnections()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
		ts.Close()
	})
	return f
}

// texts returns n text replies.
func texts(n int, text string) func() []faux.Reply {
	return func() []faux.Reply {
		out := make([]faux.Reply, n)
		for i := range out {
			out[i] = faux.Text(text)
		}
		return out
	}
}

// gate is a model reply that waits until the test releases it.
type gate struct {
	release chan struct{}
	// entered is closed when the first request reaches the reply.
	entered chan struct{}
	once    sync.Once
}

func newGate() *gate { return &gate{release: make(chan struct{}), entered: make(chan struct{})} }

func (g *gate) reply(text string) faux.Reply {
	return faux.Reply{Func: func(ctx context.Context, _ *llm.Request) (llm.Message, error) {
		g.once.Do(func() { close(g.entered) })
		select {
		case <-g.release:
		case <-ctx.Done():
			return llm.Message{}, ctx.Err()
		}
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.ContentText, Text: text}}}, nil
	}}
}

// call sends a request and decodes the JSON answer into out (when not
// nil); it returns the response with its body read.
func (f *fixture) call(t testing.TB, method, path string, body any, out any, hdr ...string) *http.Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, f.ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp
}

// create opens a session and returns its id.
func (f *fixture) create(t testing.TB, body any) string {
	t.Helper()
	var in SessionInfo
	if resp := f.call(t, "POST", "/v1/sessions", body, &in); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	return in.ID
}

// prompt sends a prompt and returns the answer.
func (f *fixture) prompt(t testing.TB, id, text, mode string) Accepted {
	t.Helper()
	var acc Accepted
	if resp := f.call(t, "POST", "/v1/sessions/"+id+"/prompt", map[string]string{"text": text, "mode": mode}, &acc); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("prompt: %d", resp.StatusCode)
	}
	return acc
}

// sseEvent is one event read from a stream.
type sseEvent struct {
	id   uint64
	data []byte
}

func (e sseEvent) typ() string {
	var v struct{ Type string }
	json.Unmarshal(e.data, &v)
	return v.Type
}

// runOf decodes a "run" event.
func (e sseEvent) run() runInfo {
	var v struct{ Run runInfo }
	json.Unmarshal(e.data, &v)
	return v.Run
}

// stream is an open event stream.
type stream struct {
	resp   *http.Response
	rd     *bufio.Reader
	cancel context.CancelFunc
	pings  int
}

// open opens the events of session id after last (0: from the start).
func (f *fixture) open(t testing.TB, id string, last uint64) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/v1/sessions/"+id+"/events", nil)
	if last > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(last, 10))
	}
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		cancel()
		resp.Body.Close()
		t.Fatalf("events: %d", resp.StatusCode)
	}
	return &stream{resp: resp, rd: bufio.NewReader(resp.Body), cancel: cancel}
}

// next reads the next event; comments are counted as pings when they
// say so.
func (s *stream) next() (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.data != nil {
				return ev, nil
			}
		case strings.HasPrefix(line, ": ping"):
			s.pings++
		case strings.HasPrefix(line, "id: "):
			ev.id, _ = strconv.ParseUint(line[4:], 10, 64)
		case strings.HasPrefix(line, "data: "):
			ev.data = []byte(line[6:])
		}
	}
}

// until reads events until one satisfies done, returning all read.
func (s *stream) until(t testing.TB, done func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatalf("stream ended: %v after %d events", err, len(out))
		}
		out = append(out, ev)
		if done(ev) {
			return out
		}
	}
}

func (s *stream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// runEnded matches the run event of run id reaching a final status.
func runEnded(id string) func(sseEvent) bool {
	return func(ev sseEvent) bool {
		if ev.typ() != "run" {
			return false
		}
		r := ev.run()
		return r.ID == id && r.Ended != nil
	}
}
