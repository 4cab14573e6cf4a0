package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// hanging answers with head and then holds the connection open until the
// client goes away, which it reports by closing released.
func hanging(head []byte, released chan struct{}) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(released)
		if head != nil {
			w.Header().Set("content-type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.Write(head)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}
}

// waitReleased fails the test if the server still holds the request; the
// long limit guards against a hang and is not a timing assertion.
func waitReleased(t *testing.T, released chan struct{}) {
	t.Helper()
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the server's connection was not released")
	}
}

func TestStall(t *testing.T) {
	for _, tt := range []struct {
		name string
		head []byte
		text string
	}{
		{"after some events", sseOf(t, evStart, evText0, evHel), "Hel"},
		{"before the headers", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			released := make(chan struct{})
			srv := llmtest.NewServer(t, hanging(tt.head, released))
			c := newClient(srv.URL, Options{IdleTimeout: 50 * time.Millisecond})
			msg, le := failing(t, c, userReq(sonnet, "hi"))
			if le.Code != llm.CodeTimeout || !strings.Contains(le.Message, "stalled") {
				t.Errorf("error %v", le)
			}
			if msg.StopReason != llm.StopError || msg.Text() != tt.text {
				t.Errorf("final message stop %q text %q", msg.StopReason, msg.Text())
			}
			waitReleased(t, released)
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	released := make(chan struct{})
	srv := llmtest.NewServer(t, hanging(sseOf(t, evStart, evText0, evHel), released))
	c := newClient(srv.URL, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var final llm.Message
	var ferr error
	for ev, err := range c.Stream(ctx, userReq(sonnet, "hi")) {
		if ev.Type == llm.EventTextDelta {
			cancel()
		}
		if ev.Final() {
			final, ferr = *ev.Message, err
		}
	}
	if llm.CodeOf(ferr) != llm.CodeAborted || final.StopReason != llm.StopAborted || final.ErrorCode != llm.CodeAborted || final.Text() != "Hel" {
		t.Errorf("final %q %q text %q, err %v", final.StopReason, final.ErrorCode, final.Text(), ferr)
	}
	waitReleased(t, released)
}

func TestCancelBeforeStart(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(sseOf(t, evStart), 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg, _, err := run(t, ctx, newClient(srv.URL, Options{}), userReq(sonnet, "hi"))
	if llm.CodeOf(err) != llm.CodeAborted || msg.StopReason != llm.StopAborted {
		t.Errorf("stop %q err %v", msg.StopReason, err)
	}
}

func TestBreakReleasesConnection(t *testing.T) {
	released := make(chan struct{})
	srv := llmtest.NewServer(t, hanging(sseOf(t, evStart, evText0, evHel), released))
	c := newClient(srv.URL, Options{})
	n := 0
	for ev := range c.Stream(context.Background(), userReq(sonnet, "hi")) {
		n++
		if ev.Type == llm.EventTextDelta {
			break
		}
	}
	if n != 3 {
		t.Errorf("%d events before the break, want start, text_start, text_delta", n)
	}
	waitReleased(t, released)
}

func TestPassThrough(t *testing.T) {
	events := []string{evStart,
		`{"type":"future_event","detail":{"a":1}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Let me look."}}`,
		evStop0,
		`{"type":"content_block_start","index":1,"content_block":{"type":"mystery_tool_use","id":"m_1","input":{},"flag":true}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"sparkle_delta","sparkle":1}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"x < y\"}"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"mystery_result","tool_use_id":"m_1","content":[{"n":1}]}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"text","text":"","citations":[]}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"Found it."}}`,
		`{"type":"content_block_stop","index":3}`,
		evEndTurn, evMsgStop}
	srv := llmtest.NewServer(t, llmtest.SSE(sseOf(t, events...), 0))
	c := newClient(srv.URL, Options{})
	msg, _, err := run(t, context.Background(), c, userReq(sonnet, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	wantContent := []llm.Content{
		llm.Text("Let me look."),
		{Type: llm.ContentText, Text: "Found it.", Extra: json.RawMessage(`{"citations":[{"type":"char_location","cited_text":"x"}]}`)},
	}
	if d := cmp.Diff(wantContent, msg.Content); d != "" {
		t.Errorf("content (-want +got):\n%s", d)
	}
	wantExtra := `{"blocks":[{"at":1,"block":{"type":"mystery_tool_use","id":"m_1","flag":true,"input":{"q":"x < y"}}},` +
		`{"at":2,"block":{"type":"mystery_result","tool_use_id":"m_1","content":[{"n":1}]}}],"events":[{"type":"future_event","detail":{"a":1}}]}`
	if string(msg.Extra) != wantExtra {
		t.Errorf("extra\n got %s\nwant %s", msg.Extra, wantExtra)
	}

	// Sent back on the next turn, the blocks keep their place and bytes.
	next := userReq(sonnet, "hi")
	next.Messages = append(next.Messages, msg, llm.UserText("thanks"))
	if _, _, err := run(t, context.Background(), c, next); err != nil {
		t.Fatal(err)
	}
	var sent payloadView
	if err := json.Unmarshal(srv.LastBody(t), &sent); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range sent.Messages[1].Content {
		got = append(got, string(b.Raw))
	}
	want := []string{
		`{"type":"text","text":"Let me look."}`,
		`{"type":"mystery_tool_use","id":"m_1","flag":true,"input":{"q":"x < y"}}`,
		`{"type":"mystery_result","tool_use_id":"m_1","content":[{"n":1}]}`,
		`{"type":"text","text":"Found it.","citations":[{"type":"char_location","cited_text":"x"}]}`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("assistant blocks sent back (-want +got):\n%s", d)
	}
	if strings.Contains(string(srv.LastBody(t)), "future_event") {
		t.Error("an unknown event was sent back")
	}
}

func TestPassThroughOnlyToTheSameAPI(t *testing.T) {
	msg := llm.Message{Role: llm.RoleAssistant, API: llm.APIOpenAIResponses,
		Content: []llm.Content{{Type: llm.ContentText, Text: "hi", Extra: json.RawMessage(`{"annotations":[]}`)}},
		Extra:   json.RawMessage(`{"blocks":[{"at":0,"block":{"type":"web_search_call"}}]}`)}
	got, err := json.Marshal(assistantBlocks(&msg))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `[{"type":"text","text":"hi"}]` {
		t.Errorf("blocks %s", got)
	}
}

func TestRedactedThinkingRoundTrip(t *testing.T) {
	first := replayed(t, "pai-sonnet45-redacted-thinking.sse")
	srv := llmtest.NewServer(t, llmtest.SSE(replayBody(t, "lcgo-opus3-text.sse"), 0))
	req := &llm.Request{Model: sonnet, Thinking: llm.ThinkingLow, Messages: []llm.Message{llm.UserText("trigger"), first, llm.UserText("again")}}
	if _, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), req); err != nil {
		t.Fatal(err)
	}
	var sent payloadView
	if err := json.Unmarshal(srv.LastBody(t), &sent); err != nil {
		t.Fatal(err)
	}
	blocks := sent.Messages[1].Content
	if len(blocks) != 3 || blocks[0].Type != "redacted_thinking" || blocks[1].Type != "redacted_thinking" || blocks[2].Type != "text" {
		t.Fatalf("blocks %+v", blocks)
	}
	for i := range 2 {
		if blocks[i].Data != first.Content[i].Signature || blocks[i].Data == "" {
			t.Errorf("redacted block %d data changed", i)
		}
	}
}

func TestConcurrentStreams(t *testing.T) {
	bodies := map[string][]byte{}
	want := map[string]string{}
	for _, w := range replays[:4] {
		bodies[w.id] = replayBody(t, w.file)
		want[w.id] = w.blocks[0].Text
	}
	srv := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		llmtest.SSE(bodies[r.Header.Get("X-Want")], 5)(w, r)
	})
	c := newClient(srv.URL, Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				id := replays[(i+j)%4].id
				req := userReq(sonnet, "hi")
				req.Options.Headers = map[string]string{"X-Want": id}
				msg, err := llm.Collect(context.Background(), c, req)
				if err != nil || msg.ResponseID != id || msg.Content[0].Text != want[id] {
					t.Errorf("stream %d/%d: %v, got %q %q", i, j, err, msg.ResponseID, msg.Text())
					return
				}
			}
		}()
	}
	wg.Wait()
}
