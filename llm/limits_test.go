package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/anthropic"
	"github.com/reinhq/rein/llm/openai"
)

const gb = 1 << 30

// hugeServer streams text deltas until 1 GB was sent or the client goes
// away, counting what it sent.
func hugeServer(t *testing.T, chunk func(string) string, head string) (*httptest.Server, *atomic.Int64) {
	var sent atomic.Int64
	piece := strings.Repeat("x", 32<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, head)
		for sent.Load() < gb {
			n, err := fmt.Fprint(w, chunk(piece))
			if err != nil {
				return
			}
			sent.Add(int64(n))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

func drain(t *testing.T, p llm.Provider, req *llm.Request) (*llm.Message, error) {
	t.Helper()
	var final *llm.Message
	var last error
	for ev, err := range p.Stream(context.Background(), req) {
		if err != nil {
			last = err
		}
		if ev.Type == llm.EventDone || ev.Type == llm.EventError {
			final = ev.Message
		}
	}
	return final, last
}

// TestHugeReplyStopped: a reply of (up to) 1 GB is stopped at the
// configured bound with a format error, for two wire protocols.
func TestHugeReplyStopped(t *testing.T) {
	const limit = 1 << 20
	cases := map[string]func(base string) (llm.Provider, llm.Model){
		"anthropic": func(base string) (llm.Provider, llm.Model) {
			return anthropic.New(anthropic.Options{BaseURL: base}), llm.Model{ID: "m", Provider: "anthropic", API: llm.APIAnthropicMessages}
		},
		"openai": func(base string) (llm.Provider, llm.Model) {
			return openai.NewChat(openai.Options{BaseURL: base}), llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIChat}
		},
	}
	heads := map[string]string{
		"anthropic": "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
		"openai": "",
	}
	chunks := map[string]func(string) string{
		"anthropic": func(p string) string {
			return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + p + "\"}}\n\n"
		},
		"openai": func(p string) string {
			return "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + p + "\"}}]}\n\n"
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			srv, sent := hugeServer(t, chunks[name], heads[name])
			p, model := mk(srv.URL)
			final, err := drain(t, p, &llm.Request{Model: model, Messages: []llm.Message{llm.UserText("hi")}, Options: llm.Options{MaxReplyBytes: limit}})
			var le *llm.Error
			if !errors.As(err, &le) || le.Code != llm.CodeFormat || !strings.Contains(le.Message, "MaxReplyBytes") {
				t.Fatalf("err = %v, want a format error naming the bound", err)
			}
			if final == nil || final.StopReason != llm.StopError {
				t.Fatalf("final = %+v", final)
			}
			if n := len(final.Text()); n > limit || n < limit/2 {
				t.Fatalf("kept %d bytes of text, want up to the %d bound", n, limit)
			}
			if s := sent.Load(); s >= gb {
				t.Fatalf("the whole 1 GB was sent (%d)", s)
			}
		})
	}
}

// TestDefaultReplyBound: with no bound set, the default applies.
func TestDefaultReplyBound(t *testing.T) {
	req := &llm.Request{Model: llm.Model{ID: "m", Provider: "p"}}
	var last error
	e := llm.NewEmitter(func(ev llm.Event, err error) bool {
		if err != nil {
			last = err
		}
		return true
	}, req)
	e.Start(llm.Message{})
	i, _ := e.TextStart()
	piece := strings.Repeat("y", 4<<20)
	n := 0
	for e.Delta(i, piece) {
		n++
		if n > 40 {
			t.Fatal("the default bound was not enforced")
		}
	}
	if n != llm.DefaultMaxReplyBytes/(4<<20) || last == nil {
		t.Fatalf("stopped after %d pieces of 4 MiB: %v", n, last)
	}
}
