package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// respOracle reads a recorded Responses stream with encoding/json,
// independently of the decoder under test: the streamed text and summary
// of each item, and each finished item by id.
type respOracle struct {
	text    map[string]string
	summary map[string]string
	items   map[string]json.RawMessage
}

func newRespOracle(t *testing.T, body []byte) respOracle {
	t.Helper()
	o := respOracle{text: map[string]string{}, summary: map[string]string{}, items: map[string]json.RawMessage{}}
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type   string
			ItemID string `json:"item_id"`
			Delta  string
			Item   json.RawMessage
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case "response.output_text.delta":
			o.text[ev.ItemID] += ev.Delta
		case "response.reasoning_summary_text.delta":
			o.summary[ev.ItemID] += ev.Delta
		case "response.output_item.done":
			var head struct{ ID string }
			_ = json.Unmarshal(ev.Item, &head)
			o.items[head.ID] = ev.Item
		}
	}
	return o
}

// encrypted returns the encrypted_content of a finished reasoning item.
func (o respOracle) encrypted(t *testing.T, id string) string {
	t.Helper()
	var it struct {
		EncryptedContent string `json:"encrypted_content"`
	}
	if err := json.Unmarshal(o.items[id], &it); err != nil {
		t.Fatalf("item %s: %v", id, err)
	}
	return it.EncryptedContent
}

func idExtra(id string) json.RawMessage { return json.RawMessage(`{"id":"` + id + `"}`) }

func withExtra(c llm.Content, x json.RawMessage) llm.Content {
	c.Extra = x
	return c
}

func TestResponsesReplaysRecordedStreams(t *testing.T) {
	msg := func(model, id string, stop llm.StopReason, u *llm.Usage, content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: content, Provider: "openai", Model: model,
			API: llm.APIOpenAIResponses, ResponseID: id, Usage: u, StopReason: stop}
	}
	weather := `{"location":"Florence, Italy"}`
	tests := []struct {
		file string
		want func(t *testing.T, o respOracle) llm.Message
		code llm.ErrorCode
	}{
		{file: "fantasy-gpt4o-mini-text.sse", want: func(*testing.T, respOracle) llm.Message {
			return msg("gpt-4o-mini-2024-07-18", "resp_0a6fc3349e38704d016a3c120ac63c819e941b6f18b7170ff4", llm.StopEnd, usage(20, 8, 0),
				withExtra(llm.Text(`Hi in Portuguese is "Oi!"`), idExtra("msg_0a6fc3349e38704d016a3c120b5d28819ea807fdf185cae88e")))
		}},
		{file: "fantasy-gpt4o-tool.sse", want: func(*testing.T, respOracle) llm.Message {
			return msg("gpt-4o-2024-08-06", "resp_08e0d5fe24768fbd016a3c11fec04081928b7c5c05d975fc26", llm.StopToolUse, usage(58, 17, 0),
				withExtra(toolCall("call_PRiJm2RVAvt7IoRvjxIXxFVF", "weather", weather), idExtra("fc_08e0d5fe24768fbd016a3c120112e481928ab6e9c900d449e6")))
		}},
		{file: "fantasy-gpt4o-tool-result-followup.sse", want: func(*testing.T, respOracle) llm.Message {
			return msg("gpt-4o-2024-08-06", "resp_05bf401c6a96e8f8016a3c12019e648191b854b80349a9aa8b", llm.StopEnd, usage(81, 14, 0),
				withExtra(llm.Text("The current temperature in Florence, Italy is 40°C."), idExtra("msg_05bf401c6a96e8f8016a3c12022ee081919201ccebef2eac39")))
		}},
		{file: "fantasy-gpt4o-parallel-tools.sse", want: func(*testing.T, respOracle) llm.Message {
			return msg("gpt-4o-2024-08-06", "resp_07d2265248f742f6016a3c120577cc819eb21c20dbe6ebd5fa", llm.StopToolUse, usage(104, 51, 0),
				withExtra(toolCall("call_NnEvpiwdL8XrZ6F3T9VJyVw7", "add", `{"a":2,"b":3}`), idExtra("fc_07d2265248f742f6016a3c12065a2c819e8eb9b547f64a93fc")),
				withExtra(toolCall("call_TQ8336oa6YnuT2leYzRDBBLz", "multiply", `{"a":2,"b":3}`), idExtra("fc_07d2265248f742f6016a3c12065a40819e8e8a06cce489d66f")))
		}},
		{file: "fantasy-gpt5-reasoning-summary-tool.sse", want: func(t *testing.T, o respOracle) llm.Message {
			rs := "rs_017e85da2ae23b69016a3c1251dcec819daf72930a854fd4d1"
			summary := o.summary[rs]
			if !strings.HasPrefix(summary, "**Getting weather info**") || len(summary) != 424 {
				t.Fatalf("oracle summary = %d bytes %.30q", len(summary), summary)
			}
			enc := o.encrypted(t, rs)
			if !strings.HasPrefix(enc, "gAAAAABqPBJWAIvEAmUTQCqL") {
				t.Fatalf("oracle encrypted content = %.30q", enc)
			}
			// Output 121 includes the 64 reasoning tokens.
			return msg("gpt-5-2025-08-07", "resp_017e85da2ae23b69016a3c12518cc0819da56cbbdd33f128f3", llm.StopToolUse, reasoned(usage(63, 121, 0), 64),
				withExtra(llm.Thinking(summary, enc), idExtra(rs)),
				withExtra(toolCall("call_zgUaIBRPTwxxOusyyKw5NVMH", "weather", weather), idExtra("fc_017e85da2ae23b69016a3c12560820819db3b6e8a38dddad65")))
		}},
		{file: "fantasy-gpt5-reasoning-summary-followup.sse", want: func(t *testing.T, o respOracle) llm.Message {
			rs, ms := "rs_065915db01d8635a016a3c1256d2dc81a3a6206cbb8ad411b6", "msg_065915db01d8635a016a3c125c524c81a39e48ac0ebbcb6b30"
			if len(o.summary[rs]) != 423 {
				t.Fatalf("oracle summary is %d bytes", len(o.summary[rs]))
			}
			return msg("gpt-5-2025-08-07", "resp_065915db01d8635a016a3c125658a081a38159e7d307d23d65", llm.StopEnd, reasoned(usage(92, 456, 0), 384),
				withExtra(llm.Thinking(o.summary[rs], o.encrypted(t, rs)), idExtra(rs)),
				withExtra(llm.Text("Right now in Florence, Italy, it’s about 40°C (104°F). Would you like a forecast or details like wind and humidity?"), idExtra(ms)))
		}},
		{file: "fantasy-o4-mini-tool.sse", want: func(*testing.T, respOracle) llm.Message {
			// A reasoning item with neither summary nor encrypted content:
			// kept (with its id) as an empty thinking block.
			return msg("o4-mini-2025-04-16", "resp_0b86a26c238e40a9016a3c123bf5a4819e85647c55ab434a69", llm.StopToolUse, reasoned(usage(60, 210, 0), 128),
				withExtra(llm.Thinking("", ""), idExtra("rs_0b86a26c238e40a9016a3c123d2a20819eb9a8dce83808a2ea")),
				withExtra(toolCall("call_eK7Vcp3N6x11thqQ8JcD8HZq", "weather", weather), idExtra("fc_0b86a26c238e40a9016a3c1240e7f0819ebc9c2535efaaf360")))
		}},
		{file: "pai-gpt5-reasoning-tool.sse", want: func(t *testing.T, o respOracle) llm.Message {
			rs := "rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405"
			th := withExtra(llm.Thinking("", o.encrypted(t, rs)), idExtra(rs))
			th.Redacted = true // encrypted reasoning, no summary requested
			return msg("gpt-5-2025-08-07", "resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33", llm.StopToolUse, reasoned(usage(53, 469, 0), 448),
				th, withExtra(toolCall("call_CWXgs68YprAjp6t0371hiPOI", "final_result", `{"result":6666}`), idExtra("fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042")))
		}},
		{file: "pai-gpt4o-tool.sse", want: func(*testing.T, respOracle) llm.Message {
			// An older stream without sequence_number.
			return msg("gpt-4o-2024-08-06", "resp_67e554a155508191900ee113293c4c830794405d35281ae2", llm.StopToolUse, usage(255, 16, 0),
				withExtra(toolCall("call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital", `{"country":"France"}`), idExtra("fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2")))
		}},
		{file: "fantasy-web-search.sse", want: func(t *testing.T, o respOracle) llm.Message {
			ms, ws := "msg_0200025d411b0585016a3c13b6174481a392b9817b2c15a5b4", "ws_0200025d411b0585016a3c13b4825c81a391999cec332e6f02"
			text := o.text[ms]
			if !strings.HasPrefix(text, "Here is the most recent") || len(text) != 643 {
				t.Fatalf("oracle text = %d bytes %.30q", len(text), text)
			}
			m := msg("gpt-4.1-2025-04-14", "resp_0200025d411b0585016a3c13b4018c81a3852ca4fd5be2b6a6", llm.StopEnd, usage(17407, 164, 0),
				withExtra(llm.Text(text), json.RawMessage(`{"id":"`+ms+`","annotations":[{"type":"url_citation","end_index":333,"start_index":239,"title":"東京都の統計","url":"https://www.toukei.metro.tokyo.lg.jp/index.htm?utm_source=openai"}]}`)))
			// The web_search_call item is kept verbatim, never dropped.
			m.Extra = json.RawMessage(`{"output_items":[{"output_index":0,"item":` + string(o.items[ws]) + `}]}`)
			return m
		}},
		{file: "payload-only/vercel-gpt5nano-insufficient-quota-error.chunks.jsonl", code: llm.CodeBilling, want: func(*testing.T, respOracle) llm.Message {
			m := msg("gpt-5-nano-2025-08-07", "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424", llm.StopError, nil)
			m.ErrorCode = llm.CodeBilling
			m.ErrorMessage = "openai: billing: insufficient_quota: You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := readFixture(t, "openai-responses/"+tt.file)
			if strings.HasSuffix(tt.file, ".jsonl") {
				body = llmtest.SSEFromJSONL(t, body)
			}
			want := tt.want(t, newRespOracle(t, body))
			s := llmtest.NewServer(t, replay(body))
			model := llm.Model{ID: "requested-model", Provider: "openai", API: llm.APIOpenAIResponses}
			r := drainStream(t, respProvider(s, openaiCompat), context.Background(), &llm.Request{Model: model})
			if diff := cmp.Diff(want, r.final, ignoreTime, cmpJSON); diff != "" {
				t.Errorf("final message (-want +got):\n%s", diff)
			}
			if got := llm.CodeOf(r.err); got != tt.code {
				t.Errorf("error code = %q (%v), want %q", got, r.err, tt.code)
			}
		})
	}
}

// cmpJSON compares raw JSON by meaning rather than bytes.
var cmpJSON = cmp.Comparer(func(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(x, y)
})
