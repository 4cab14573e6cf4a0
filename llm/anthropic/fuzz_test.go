package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/sse"
	"github.com/reinhq/rein/llm/llmtest"
)

// decodeBody runs the decoder over an SSE body and returns every event
// the emitter produced with its error.
func decodeBody(body []byte, model llm.Model) ([]llm.Event, []error) {
	var events []llm.Event
	var errs []error
	e := llm.NewEmitter(func(ev llm.Event, err error) bool {
		events = append(events, ev)
		errs = append(errs, err)
		return true
	}, &llm.Request{Model: model})
	d := newDecoder(e, "anthropic")
	d.run(sse.NewReader(bytes.NewReader(body)), func(error) error { return nil })
	return events, errs
}

// seedBodies are the inputs of FuzzDecode's seed corpus: every recorded
// stream and a few made-up and damaged ones.
func seedBodies(tb testing.TB) []llmtest.Input {
	files, _ := filepath.Glob(filepath.Join(recorded, "*.sse"))
	var in []llmtest.Input
	for _, file := range files {
		in = append(in, llmtest.Input{Name: filepath.Base(file), Body: readFile(tb, filepath.Base(file))})
	}
	in = append(in, llmtest.Input{Name: "vercel-sonnet45-tool-no-args.chunks.jsonl", Body: llmtest.SSEFromJSONL(tb, readFile(tb, "payload-only/vercel-sonnet45-tool-no-args.chunks.jsonl"))})
	for i, s := range []string{
		"",
		"data: {}\n\n",
		"event: ping\ndata: {\"type\": \"ping\"}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\ud800\\u00e9\"}}\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":99999999,\"content_block\":{\"type\":\"mystery\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"b\",\"input\":[1]}}\n\ndata: {\"type\":\"message_stop\"}\n\n",
		"data: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\n",
	} {
		in = append(in, llmtest.Input{Name: fmt.Sprintf("seed-%02d", i), Body: []byte(s)})
	}
	return in
}

func addSeeds(f *testing.F) {
	for _, in := range seedBodies(f) {
		f.Add(llmtest.Trim(in.Body, 8, 4)) // whole recordings are in TestConformance
	}
}

// FuzzDecode feeds arbitrary SSE bodies to the decoder: it must never
// panic and must always end with exactly one final event, last.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	model := llm.Model{ID: "m", Provider: "anthropic", API: llm.APIAnthropicMessages, ContextWindow: 1000}
	f.Fuzz(func(t *testing.T, body []byte) {
		events, errs := decodeBody(body, model)
		finals := 0
		for i, ev := range events {
			if ev.Final() {
				finals++
				if i != len(events)-1 {
					t.Fatalf("final event %d of %d", i, len(events))
				}
				if (ev.Type == llm.EventError) != (errs[i] != nil) {
					t.Fatalf("final %s with error %v", ev.Type, errs[i])
				}
			} else if errs[i] != nil {
				t.Fatalf("error on %s event", ev.Type)
			}
		}
		if finals != 1 || events[0].Type != llm.EventStart {
			t.Fatalf("%d final events, first %s", finals, events[0].Type)
		}
		var acc llm.Accumulator
		for _, ev := range events {
			acc.Add(ev)
		}
		final := events[len(events)-1].Message
		if len(acc.Message().Content) != len(final.Content) {
			t.Fatalf("accumulated %d blocks, final %d", len(acc.Message().Content), len(final.Content))
		}
		if final.Extra != nil && !json.Valid(final.Extra) {
			t.Fatalf("invalid message extra %q", final.Extra)
		}
		for _, c := range final.Content {
			if c.Type == llm.ContentToolCall && !json.Valid(c.Arguments) {
				t.Fatalf("invalid tool arguments %q", c.Arguments)
			}
			if c.Extra != nil && !json.Valid(c.Extra) {
				t.Fatalf("invalid block extra %q", c.Extra)
			}
		}
	})
}

// FuzzAppendString checks the request encoder's strings against
// encoding/json: valid JSON that decodes to the text encoding/json would
// send (invalid UTF-8 becoming U+FFFD).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x01\x1f\x7f", "<&>", "é漢😀", "\xff\xc3", "\xed\xa0\x80", "\u2028\u2029", "tab\there\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := appendString(nil, s)
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, enc, err)
		}
		std, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("appendString(%q) decodes to %q, encoding/json to %q", s, got, want)
		}
	})
}

// scanSeeds are single event payloads with unusual strings, numbers and
// keys.
var scanSeeds = []string{
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00"}}`,
	"{\"type\":\"x\",\"delta\":{\"text\":\"\xff\xfe ok \xed\xa0\x80\"}}",
	`{"type":"x","type":"y","index":-0,"delta":null}`,
	`{"index":1e3}`, `{"index":01}`, `{"a":[1,-2.5e-3,true,false,null,{"b":"c"}]}  `, `{"a":tru}`, `{} x`, `{"a":"\u12"}`,
}
