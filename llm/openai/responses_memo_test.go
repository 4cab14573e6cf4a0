package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/internal/sse"
	"github.com/reinhq/rein/llm"
)

// respEvents decodes a Responses body and returns every event, with its
// error, reading every event in full unless memo.
func respEvents(body []byte, memo bool) []string {
	req := &llm.Request{Model: llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIResponses}}
	var out []string
	e := llm.NewEmitter(func(ev llm.Event, err error) bool {
		b, _ := json.Marshal(ev)
		out = append(out, fmt.Sprintf("%s %v", b, err))
		return true
	}, req)
	e.Now = func() time.Time { return time.Unix(0, 0) }
	d := newRespDecoder(e, "openai")
	d.noMemo = !memo
	run(context.Background(), sse.NewReader(bytes.NewReader(body)), e, d, "openai")
	return out
}

// checkMemo fails when reading delta events with the template changes
// any event of the stream, errors included.
func checkMemo(t *testing.T, body []byte) {
	t.Helper()
	if diff := cmp.Diff(respEvents(body, false), respEvents(body, true)); diff != "" {
		t.Fatalf("the template changed the events (-full +template):\n%s", diff)
	}
}

// textDelta is an output_text.delta event as OpenAI sends it.
func textDelta(delta, itemID string, seq int) string {
	return fmt.Sprintf(`{"type":"response.output_text.delta","content_index":0,"delta":%q,"item_id":%q,"logprobs":[],"obfuscation":"Xy%d","output_index":0,"sequence_number":%d}`,
		delta, itemID, seq, seq)
}

// memoCases are streams whose delta events differ from the one before
// them in the ways a template must notice.
var memoCases = map[string][]string{
	"alike": {textDelta("a", "m1", 1), textDelta("bc", "m1", 2), textDelta("d\"\\n\u00e9", "m1", 3)},
	"item changes": {textDelta("a", "m1", 1), textDelta("b", "m2", 2), textDelta("c", "m1", 3),
		textDelta("d", "m2", 4)},
	"whitespace": {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `,"item_id"`, `, "item_id"`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"delta":`, `"delta": `, 1), textDelta("d", "m1", 4) + " "},
	"constant member changes": {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `"output_index":0`, `"output_index":1`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"logprobs":[]`, `"logprobs":[{"t":1}]`, 1),
		strings.Replace(textDelta("d", "m1", 4), `"content_index":0`, `"content_index":00`, 1),
		strings.Replace(textDelta("e", "m1", 5), `"output_index":0`, `"output_index":null`, 1)},
	"member added or dropped": {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `}`, `,"delta":"x"}`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"logprobs":[],`, ``, 1), strings.Replace(textDelta("d", "m1", 4), `,"output_index":0`, ``, 1),
		strings.Replace(textDelta("e", "m1", 5), `}`, `,"item_id":"m9"}`, 1)},
	"escaped and null ids": {textDelta("a", `m\u0031`, 1), strings.Replace(textDelta("b", "m1", 2), `"m1"`, `"m\u0031"`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"m1"`, `null`, 1), textDelta("d", "m1", 4)},
	"type differs from the name": {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `output_text.delta`, `refusal.delta`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"response.output_text.delta"`, `null`, 1), textDelta("d", "m1", 4)},
	"odd holes": {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `"sequence_number":2`, `"sequence_number":-2.5e1`, 1),
		strings.Replace(textDelta("c", "m1", 3), `"delta":"c"`, `"delta":null`, 1),
		strings.Replace(textDelta("d", "m1", 4), `"obfuscation":"Xy4"`, `"obfuscation":{"a":[1]}`, 1), textDelta("e", "m1", 5)},
	"malformed number hole":   {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `"sequence_number":2`, `"sequence_number":2x`, 1)},
	"malformed delta":         {textDelta("a", "m1", 1), strings.Replace(textDelta("b", "m1", 2), `"delta":"b"`, `"delta":tru`, 1)},
	"truncated":               {textDelta("a", "m1", 1), strings.TrimSuffix(textDelta("b", "m1", 2), "}")},
	"trailing data":           {textDelta("a", "m1", 1), textDelta("b", "m1", 2) + "}"},
	"unterminated hole":       {textDelta("a", "m1", 1), textDelta("b", "m1", 2)[:60]},
	"reasoning summary parts": {`{"type":"response.reasoning_summary_text.delta","delta":"a","item_id":"rs","output_index":0,"sequence_number":1,"summary_index":0}`, `{"type":"response.reasoning_summary_text.delta","delta":"b","item_id":"rs","output_index":0,"sequence_number":2,"summary_index":1}`, `{"type":"response.reasoning_summary_text.delta","delta":"c","item_id":"rs","output_index":0,"sequence_number":3,"summary_index":1}`},
}

func TestTemplateReadsDeltasAsInFull(t *testing.T) {
	for name, events := range memoCases {
		t.Run(name, func(t *testing.T) {
			all := []string{`{"type":"response.output_item.added","item":{"id":"m1","type":"message"},"output_index":0}`}
			all = append(all, events...)
			all = append(all, `{"type":"response.completed","response":{"status":"completed"}}`)
			checkMemo(t, []byte(sseTyped(all...)))
		})
	}
}

func TestUnknownItemEncodesAsMarshal(t *testing.T) {
	for _, raw := range []string{`{"type":"web_search_call","id":"ws","action":{"query":"a<b>&c"}}`,
		"{ \"a\" : [1, 2,\n\t3], \"b\":\"\u2028\u2029 \xff\" }", `null`, `{"a":`, `"x`, "", "\xff<>"} {
		want, _ := json.Marshal(struct {
			OutputIndex int             `json:"output_index"`
			Item        json.RawMessage `json:"item"`
		}{3, marshalledItem(raw)})
		if got := unknownItem(3, []byte(raw)); string(got) != string(want) {
			t.Errorf("unknownItem(%q) = %s; want %s", raw, got, want)
		}
	}
}

// marshalledItem is how itemDone kept an item before unknownItem.
func marshalledItem(raw string) json.RawMessage {
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	q, _ := json.Marshal(raw)
	return q
}

// FuzzScannerShortcuts checks member and skip against jsonx's Member and
// Skip: the same names, the same ends, the same errors.
func FuzzScannerShortcuts(f *testing.F) {
	for _, s := range []string{`{"a":1,"bb":"x","c":null,"d":{},"e":[],"f":0.5,"g":true,"h":false}`,
		`{"a" :1}`, `{"a\"":1}`, `{"a":1 ,"b":2}`, `{"a":01}`, `{"a":1x}`, `{"a":"\u00e9"}`, `{"a":nul}`, `{"a":{]}`,
		`{"a":[}`, `{"a":"` + strings.Repeat("x", 70) + `"}`, `{"` + strings.Repeat("k", 70) + `":1}`, `{"a":1,}`, `{"a":-1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, slow scanner
		fast.reset(b)
		slow.reset(b)
		if fast.Object() != slow.Object() {
			t.Fatal("Object differs")
		}
		for n := 0; n < 100; n++ {
			k1, ok1 := fast.member(n)
			k2, ok2 := slow.Member(n)
			if string(k1) != string(k2) || ok1 != ok2 || fast.Offset() != slow.Offset() {
				t.Fatalf("member %d: %q %v at %d; Member: %q %v at %d", n, k1, ok1, fast.Offset(), k2, ok2, slow.Offset())
			}
			if !ok1 {
				break
			}
			fast.skip()
			slow.Skip()
			if fast.Offset() != slow.Offset() || fmt.Sprint(fast.Err()) != fmt.Sprint(slow.Err()) {
				t.Fatalf("skip: at %d, %v; Skip: at %d, %v", fast.Offset(), fast.Err(), slow.Offset(), slow.Err())
			}
		}
		if fmt.Sprint(fast.End()) != fmt.Sprint(slow.End()) {
			t.Fatalf("End: %v; want %v", fast.End(), slow.End())
		}
	})
}

func TestStrArenaKeepsStrings(t *testing.T) {
	var a strArena
	var got []string
	var want []string
	for i := range 2000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%300)
		got = append(got, a.of([]byte(s)))
		want = append(want, s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
}
