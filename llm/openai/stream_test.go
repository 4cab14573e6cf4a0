package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/llmtest"
)

const (
	chunkHello = `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}` + "\n\n"
	chunkLo    = `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}` + "\n\n"
	chunkStop  = `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	respHello  = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"model\":\"m\"}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"delta\":\"Hel\"}\n\n"
)

func chatReq() *llm.Request {
	return &llm.Request{Model: llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIChat}, Messages: []llm.Message{llm.UserText("hi")}}
}

func respReq() *llm.Request {
	return &llm.Request{Model: llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIResponses}, Messages: []llm.Message{llm.UserText("hi")}}
}

// flushed writes parts, flushing after each, then waits for release (or
// the client to go away) before ending the reply.
func flushed(release <-chan struct{}, parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range parts {
			_, _ = io.WriteString(w, p)
			w.(http.Flusher).Flush()
		}
		if release != nil {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name     string
		api      llm.API
		handler  http.HandlerFunc
		idle     time.Duration
		code     llm.ErrorCode
		msg      string
		text     string
		sseError bool
	}{
		{name: "chat cut mid-event", api: llm.APIOpenAIChat, handler: replay([]byte(chunkHello + `data: {"id":"c1","choices":[{"delta":{"content":"lo`)),
			code: llm.CodeServerError, msg: "cut in the middle of an event", text: "Hel"},
		{name: "responses cut mid-event", api: llm.APIOpenAIResponses, handler: replay([]byte(respHello + "event: response.output_text.delta\ndata: {\"type\"")),
			code: llm.CodeServerError, msg: "cut in the middle of an event", text: "Hel"},
		{name: "chat ends without finish", api: llm.APIOpenAIChat, handler: replay([]byte(chunkHello)),
			code: llm.CodeServerError, msg: "ended before the reply was complete", text: "Hel"},
		{name: "responses ends without completed", api: llm.APIOpenAIResponses, handler: replay([]byte(respHello)),
			code: llm.CodeServerError, msg: "no response.completed", text: "Hel"},
		{name: "chat malformed chunk", api: llm.APIOpenAIChat, handler: replay([]byte(chunkHello + "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}]]}\n\n" + chunkStop)),
			code: llm.CodeServerError, msg: "malformed", text: "Hel", sseError: true},
		{name: "chat chunk not an object", api: llm.APIOpenAIChat, handler: replay([]byte(chunkHello + "data: [1,2]\n\n")),
			code: llm.CodeServerError, msg: "malformed", text: "Hel", sseError: true},
		{name: "responses malformed event", api: llm.APIOpenAIResponses, handler: replay([]byte(respHello + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":tru}\n\n")),
			code: llm.CodeServerError, msg: "malformed", text: "Hel", sseError: true},
		{name: "chat stall", api: llm.APIOpenAIChat, handler: flushed(make(chan struct{}), chunkHello), idle: 50 * time.Millisecond,
			code: llm.CodeTimeout, msg: "stalled", text: "Hel"},
		{name: "responses stall", api: llm.APIOpenAIResponses, handler: flushed(make(chan struct{}), respHello), idle: 50 * time.Millisecond,
			code: llm.CodeTimeout, msg: "stalled", text: "Hel"},
		{name: "stall before headers", api: llm.APIOpenAIChat, idle: 50 * time.Millisecond,
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			code:    llm.CodeTimeout, msg: "waiting for response headers"},
		{name: "chat mid-stream error chunk", api: llm.APIOpenAIChat,
			handler: replay([]byte(chunkHello + `data: {"id":"c1","error":{"message":"Rate limit exceeded: free-models-per-min","code":429},"choices":[]}` + "\n\n")),
			code:    llm.CodeRateLimit, msg: "Rate limit exceeded", text: "Hel"},
		{name: "chat content filter", api: llm.APIOpenAIChat,
			handler: replay([]byte(chunkHello + `data: {"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}` + "\n\ndata: [DONE]\n\n")),
			code:    llm.CodeUnknown, msg: "content filter", text: "Hel"},
		{name: "responses error event", api: llm.APIOpenAIResponses,
			handler: replay([]byte(respHello + "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached for requests\",\"param\":null}\n\n")),
			code:    llm.CodeRateLimit, msg: "Rate limit reached", text: "Hel"},
		{name: "responses failed", api: llm.APIOpenAIResponses,
			handler: replay([]byte(respHello + "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"r1\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed to generate a response.\"}}}\n\n")),
			code:    llm.CodeServerError, msg: "The model failed", text: "Hel"},
		{name: "responses content filter", api: llm.APIOpenAIResponses,
			handler: replay([]byte(respHello + "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"r1\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"content_filter\"}}}\n\n")),
			code:    llm.CodeUnknown, msg: "content filter", text: "Hel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t, tt.handler)
			opts := Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: openaiCompat, IdleTimeout: tt.idle}
			var p llm.Provider
			req := chatReq()
			if tt.api == llm.APIOpenAIChat {
				p = NewChat(opts)
			} else {
				p, req = NewResponses(opts), respReq()
			}
			r := drainStream(t, p, context.Background(), req)
			if got := llm.CodeOf(r.err); got != tt.code {
				t.Errorf("code = %s (%v), want %s", got, r.err, tt.code)
			}
			if !strings.Contains(r.final.ErrorMessage, tt.msg) {
				t.Errorf("error message %q does not contain %q", r.final.ErrorMessage, tt.msg)
			}
			if r.final.StopReason != llm.StopError {
				t.Errorf("stop reason = %s", r.final.StopReason)
			}
			if got := r.final.Text(); got != tt.text {
				t.Errorf("text kept = %q, want %q", got, tt.text)
			}
			var se *sse.Error
			if errors.As(r.err, &se) != tt.sseError {
				t.Errorf("errors.As(*sse.Error) = %v, want %v (%v)", !tt.sseError, tt.sseError, r.err)
			}
		})
	}
}

func TestCancelMidStreamIsAborted(t *testing.T) {
	for _, api := range []llm.API{llm.APIOpenAIChat, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			first := chunkHello
			if api == llm.APIOpenAIResponses {
				first = respHello
			}
			s := llmtest.NewServer(t, flushed(make(chan struct{}), first))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var p llm.Provider = chatProvider(s, openaiCompat)
			req := chatReq()
			if api == llm.APIOpenAIResponses {
				p, req = respProvider(s, openaiCompat), respReq()
			}
			var final *llm.Message
			var finalErr error
			for ev, err := range p.Stream(ctx, req) {
				if ev.Type == llm.EventTextDelta {
					cancel()
				}
				if ev.Final() {
					final, finalErr = ev.Message, err
				}
			}
			if final == nil || final.StopReason != llm.StopAborted || final.ErrorCode != llm.CodeAborted {
				t.Fatalf("final = %+v, want an aborted message", final)
			}
			if !errors.Is(finalErr, llm.ErrAborted) {
				t.Errorf("error = %v, want aborted", finalErr)
			}
			if final.Text() != "Hel" {
				t.Errorf("text kept = %q", final.Text())
			}
		})
	}
}

// closeTracker records whether response bodies were closed.
type closeTracker struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	bodies []*trackedBody
}

type trackedBody struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *trackedBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

func (c *closeTracker) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil {
		tb := &trackedBody{ReadCloser: resp.Body}
		resp.Body = tb
		c.mu.Lock()
		c.bodies = append(c.bodies, tb)
		c.mu.Unlock()
	}
	return resp, err
}

func TestConsumerBreakReleasesBody(t *testing.T) {
	for _, api := range []llm.API{llm.APIOpenAIChat, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			first := chunkHello
			if api == llm.APIOpenAIResponses {
				first = respHello
			}
			release := make(chan struct{})
			defer close(release)
			s := llmtest.NewServer(t, flushed(release, first))
			tracker := &closeTracker{rt: s.Client().Transport}
			opts := Options{BaseURL: s.URL, HTTPClient: &http.Client{Transport: tracker}, Compat: openaiCompat}
			var p llm.Provider = NewChat(opts)
			req := chatReq()
			if api == llm.APIOpenAIResponses {
				p, req = NewResponses(opts), respReq()
			}
			n := 0
			for ev := range p.Stream(context.Background(), req) {
				n++
				if ev.Type == llm.EventTextDelta {
					break
				}
			}
			if n != 3 {
				t.Errorf("%d events before the break, want start, text_start, text_delta", n)
			}
			tracker.mu.Lock()
			defer tracker.mu.Unlock()
			if len(tracker.bodies) != 1 || !tracker.bodies[0].closed.Load() {
				t.Error("the response body was not closed after the consumer stopped")
			}
		})
	}
}

func TestFinishedStreamReleasesBody(t *testing.T) {
	s := llmtest.NewServer(t, replay([]byte(chunkHello+chunkLo+chunkStop+"data: [DONE]\n\n")))
	tracker := &closeTracker{rt: s.Client().Transport}
	p := NewChat(Options{BaseURL: s.URL, HTTPClient: &http.Client{Transport: tracker}, Compat: openaiCompat})
	r := drainStream(t, p, context.Background(), chatReq())
	if r.err != nil || r.final.Text() != "Hello" {
		t.Fatalf("final = %+v, %v", r.final, r.err)
	}
	tracker.mu.Lock()
	defer tracker.mu.Unlock()
	if !tracker.bodies[0].closed.Load() {
		t.Error("the response body was not closed")
	}
}

// TestConnectionsAreReused checks that a finished stream leaves its
// connection ready for the next request, even when the server ends the
// body a moment after the last event.
func TestConnectionsAreReused(t *testing.T) {
	for _, api := range []llm.API{llm.APIOpenAIChat, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			file := "openai-chat/fantasy-gpt4o-tool.sse"
			if api == llm.APIOpenAIResponses {
				file = "openai-responses/fantasy-gpt4o-tool.sse"
			}
			var conns atomic.Int32
			body := readFixture(t, file)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(body)
				w.(http.Flusher).Flush()
				time.Sleep(2 * time.Millisecond) // the end of the body arrives later
			}))
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			opts := Options{BaseURL: srv.URL, HTTPClient: srv.Client(), Compat: openaiCompat}
			var p llm.Provider = NewChat(opts)
			req := chatReq()
			if api == llm.APIOpenAIResponses {
				p, req = NewResponses(opts), respReq()
			}
			for range 5 {
				if r := drainStream(t, p, context.Background(), req); r.err != nil {
					t.Fatal(r.err)
				}
			}
			if n := conns.Load(); n != 1 {
				t.Errorf("%d connections for 5 sequential streams, want 1", n)
			}
		})
	}
}
