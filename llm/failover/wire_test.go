package failover

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/openai"
)

// wireServer answers Chat Completions requests from a script of statuses
// per key; 200 replays a recorded stream.
type wireServer struct {
	*httptest.Server
	mu     sync.Mutex
	script map[string][]int
	keys   []string
}

func newWireServer(t *testing.T, script map[string][]int) *wireServer {
	stream, err := os.ReadFile("../../testdata/providers/openai-chat/fantasy-gpt4o-mini-text.sse")
	if err != nil {
		t.Fatal(err)
	}
	s := &wireServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		s.keys = append(s.keys, key)
		status := 200
		if q := s.script[key]; len(q) > 0 {
			status, s.script[key] = q[0], q[1:]
		}
		s.mu.Unlock()
		switch status {
		case 200:
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(stream)
		case 429:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for key `+key+`","type":"requests"}}`)
		default:
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`","type":"invalid_request_error"}}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wireServer) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

func TestWithRealWireClient(t *testing.T) {
	const keyA, keyB = "sk-wire-key-a-12345", "sk-wire-key-b-67890"
	srv := newWireServer(t, map[string][]int{keyA: {401}, keyB: {429, 200}})
	client := openai.NewChat(openai.Options{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	c, rec := newClock(), &recorder{}
	p := mustNew(t, []Target{{Provider: client, Profiles: []Profile{keyProfile("openai:a", keyA), keyProfile("openai:b", keyB)}}},
		testOptions(c, rec))
	req := &llm.Request{Model: llm.Model{ID: "gpt-4o-mini", Provider: "openai", API: llm.APIOpenAIChat},
		Messages: []llm.Message{llm.UserText("hi")}}
	o := drain(t, p, context.Background(), req)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.text() == "" || o.msg.StopReason != llm.StopEnd {
		t.Errorf("reply %+v", o.msg)
	}
	if diff := cmp.Diff([]string{keyA, keyB, keyB}, srv.Keys()); diff != "" {
		t.Errorf("keys sent (-want +got):\n%s", diff)
	}
	// The server's Retry-After (7s) is longer than the backoff and is used.
	if diff := cmp.Diff([]time.Duration{7 * time.Second}, c.Delays()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]EventKind{EventCooldown, EventRotate, EventRetry}, rec.Kinds()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, e := range rec.All() {
		if strings.Contains(e.String(), keyA) || strings.Contains(e.String(), keyB) {
			t.Errorf("event shows a key: %s", e)
		}
	}

	// Both keys failing: the final error names both profiles, no key.
	srv.mu.Lock()
	srv.script = map[string][]int{keyA: {401}, keyB: {403}}
	srv.mu.Unlock()
	c.Advance(time.Hour)
	o = drain(t, p, context.Background(), req)
	if llm.CodeOf(o.err) != llm.CodeAuth {
		t.Fatalf("err = %v", o.err)
	}
	for _, s := range []string{"openai:a", "openai:b", "gpt-4o-mini"} {
		if !strings.Contains(o.err.Error(), s) {
			t.Errorf("final error lacks %q: %v", s, o.err)
		}
	}
	if strings.Contains(o.err.Error(), keyA) || strings.Contains(o.err.Error(), keyB) || strings.Contains(o.msg.ErrorMessage, keyA) {
		t.Errorf("key leaked: %v", o.err)
	}
}
