package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/llmtest"
)

// decodeBody runs a decoder over a raw response body, as Stream does after
// the HTTP exchange, yielding every event. r, when not nil, is reset and
// reused as clients reuse their pooled readers.
func decodeBody(ctx context.Context, r *sse.Reader, api llm.API, body []byte, cp Compat, yield func(llm.Event, error) bool) {
	req := &llm.Request{Model: llm.Model{ID: "m", Provider: "openai", API: api}}
	e := llm.NewEmitter(yield, req)
	var d decoder
	if api == llm.APIOpenAIChat {
		d = newChatDecoder(e, "openai", cp)
	} else {
		d = newRespDecoder(e, "openai")
	}
	if r == nil {
		r = sse.NewReader(bytes.NewReader(body))
	} else {
		r.Reset(bytes.NewReader(body))
	}
	run(ctx, r, e, d, "openai")
	if !e.Ended() {
		panic("the decoder returned without ending the stream")
	}
}

func fuzzDecode(t *testing.T, api llm.API, body []byte, cp Compat) {
	var events []llm.Event
	finals := 0
	decodeBody(context.Background(), nil, api, body, cp, func(ev llm.Event, err error) bool {
		if len(events) == 0 && ev.Type != llm.EventStart {
			t.Fatalf("first event %s", ev.Type)
		}
		if finals > 0 {
			t.Fatalf("event %s after the final event", ev.Type)
		}
		if ev.Final() {
			finals++
			if ev.Message == nil {
				t.Fatal("final event without message")
			}
			if (ev.Type == llm.EventError) != (err != nil) {
				t.Fatalf("%s event with error %v", ev.Type, err)
			}
			if ev.Type == llm.EventDone && ev.Message.StopReason == llm.StopError {
				t.Fatal("done event with stop reason error")
			}
			for _, c := range ev.Message.Content {
				if c.Type == llm.ContentToolCall && !json.Valid(c.Arguments) {
					t.Fatalf("tool call with invalid arguments %q", c.Arguments)
				}
			}
			// Whatever arrived, the message can be logged.
			if _, err := json.Marshal(ev.Message); err != nil {
				t.Fatalf("final message does not encode: %v", err)
			}
		} else if err != nil {
			t.Fatalf("error on %s event", ev.Type)
		}
		events = append(events, ev)
		return true
	})
	if finals != 1 {
		t.Fatalf("%d final events", finals)
	}
	if err := llmtest.CheckBlocks(events); err != nil {
		t.Fatal(err)
	}
}

// recordedBodies returns the recorded streams matching pattern.
func recordedBodies(tb testing.TB, pattern string) []llmtest.Input {
	files, _ := filepath.Glob(filepath.Join(fixtures, pattern))
	if len(files) == 0 {
		tb.Fatalf("no recordings match %s", pattern)
	}
	var in []llmtest.Input
	for _, file := range files {
		in = append(in, llmtest.Input{Name: filepath.Base(file), Body: readFixture(tb, file[len(fixtures):])})
	}
	return in
}

// named names made-up bodies seed-00, seed-01, … after those in.
func named(in []llmtest.Input, bodies ...string) []llmtest.Input {
	for i, b := range bodies {
		in = append(in, llmtest.Input{Name: fmt.Sprintf("seed-%02d", i), Body: []byte(b)})
	}
	return in
}

// chatSeeds are the inputs of FuzzChatDecode's seed corpus.
func chatSeeds(tb testing.TB) []llmtest.Input {
	return named(recordedBodies(tb, "openai-chat/*.sse"),
		"", "data: [DONE]\n\n", "data: {}\n\n", "data: null\n\n", "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}",
		llmtest.SSEData(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"index":3,"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}]}`),
		llmtest.SSEData(`{"error":{"code":"x","message":"boom"}}`),
		llmtest.SSEData(`{"choices":[{"delta":{"reasoning":"a","content":"b","tool_calls":[{"function":{"arguments":"1"}}]}}]}`, "[DONE]"),
	)
}

// responsesSeeds are the inputs of FuzzResponsesDecode's seed corpus.
func responsesSeeds(tb testing.TB) []llmtest.Input {
	in := recordedBodies(tb, "openai-responses/*.sse")
	in = append(in, llmtest.Input{Name: "vercel-gpt5nano-insufficient-quota-error.chunks.jsonl",
		Body: llmtest.SSEFromJSONL(tb, readFixture(tb, "openai-responses/payload-only/vercel-gpt5nano-insufficient-quota-error.chunks.jsonl"))})
	return named(in,
		"", "data: {}\n\n", "event: error\ndata: {}\n\n",
		llmtest.SSEData(`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","arguments":"{"}}`,
			`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"x"}`,
			`{"type":"response.completed","response":{"status":"completed"}}`),
		llmtest.SSEData(`{"type":"response.output_text.delta","item_id":"a","delta":"x"}`,
			`{"type":"response.output_item.added","item":{"id":"a","type":"function_call"}}`,
			`{"type":"response.function_call_arguments.delta","item_id":"a","delta":"y"}`,
			`{"type":"response.completed","response":{"status":"incomplete","output":[{"type":"message","content":[{"text":"z"}]}]}}`),
		string([]byte(llmtest.SSETyped(textDelta("a", "m1", 1), textDelta("b", "m1", 2), strings.TrimSuffix(textDelta("c", "m1", 3), "}")))),
	)
}

func FuzzChatDecode(f *testing.F) {
	for _, in := range chatSeeds(f) {
		f.Add(llmtest.Trim(in.Body, 8, 4)) // whole recordings are in TestConformance
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, llm.APIOpenAIChat, body, Compat{})
	})
}

func FuzzResponsesDecode(f *testing.F) {
	for _, in := range responsesSeeds(f) {
		f.Add(llmtest.Trim(in.Body, 8, 4)) // whole recordings are in TestConformance
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, llm.APIOpenAIResponses, body, Compat{})
	})
}

// textDelta is an output_text.delta event as OpenAI sends it.
func textDelta(delta, itemID string, seq int) string {
	return fmt.Sprintf(`{"type":"response.output_text.delta","content_index":0,"delta":%q,"item_id":%q,"logprobs":[],"obfuscation":"Xy%d","output_index":0,"sequence_number":%d}`,
		delta, itemID, seq, seq)
}
