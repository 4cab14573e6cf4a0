package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func TestChatDecoderCases(t *testing.T) {
	tests := []struct {
		name   string
		compat Compat
		body   string
		want   []llm.Content
		stop   llm.StopReason
		check  func(t *testing.T, m llm.Message)
	}{
		{name: "calls without index, arguments as an object, unknown fields and events",
			body: ": keep-alive\n\nevent: ping\ndata: {\"note\":\"ignored\",\"choices\":[]}\n\n" + llmtest.SSEData(
				`{"choices":[{"delta":{"content":"Let me check.","extra_field":{"deep":[1,2,{"x":null}]}}}],"x_vendor":true}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"a","type":"function","function":{"name":"read","arguments":{"path":"x"}}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			want: []llm.Content{llm.Text("Let me check."), toolCall("a", "read", `{"path":"x"}`), toolCall("b", "ls", `{}`)},
			stop: llm.StopToolUse},
		{name: "invalid JSON arguments are kept as a string",
			body: llmtest.SSEData(`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"edit","arguments":"{\"path\": \"a.go\", "}}]}}]}`,
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"oops"}}]},"finish_reason":"tool_calls"}]}`, "[DONE]"),
			want: []llm.Content{toolCall("c", "edit", `"{\"path\": \"a.go\", oops"`)},
			stop: llm.StopToolUse},
		{name: "reasoning field auto-detected, other choices ignored, refusal as text",
			body: llmtest.SSEData(`{"choices":[{"index":0,"delta":{"reasoning":"think"}},{"index":1,"delta":{"content":"other choice"}}]}`,
				`{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."},"finish_reason":"stop"}]}`),
			want: []llm.Content{llm.Thinking("think", ""), llm.Text("I can't help with that.")},
			stop: llm.StopEnd},
		{name: "configured reasoning field only",
			compat: Compat{ReasoningField: "reasoning_content", MaxTokensField: "max_tokens"},
			body:   llmtest.SSEData(`{"choices":[{"delta":{"reasoning":"dup","reasoning_content":"real"}}]}`, `{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"),
			want:   []llm.Content{llm.Thinking("real", ""), llm.Text("ok")},
			stop:   llm.StopEnd},
		{name: "reasoning ignored",
			compat: Compat{ReasoningField: "-", MaxTokensField: "max_tokens"},
			body:   llmtest.SSEData(`{"choices":[{"delta":{"reasoning_content":"hidden","reasoning":{"effort":"low"}}}]}`, `{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"),
			want:   []llm.Content{llm.Text("ok")},
			stop:   llm.StopEnd},
		{name: "length, and escapes in text",
			body: llmtest.SSEData(`{"choices":[{"delta":{"content":"a\u00e9\ud83d\ude00\n\"q\"\\"},"finish_reason":"length"}]}`, "[DONE]"),
			want: []llm.Content{llm.Text("aé😀\n\"q\"\\")},
			stop: llm.StopLength},
		{name: "repeated chunk prefixes, a number that only starts the same, a late id",
			body: llmtest.SSEData(`{"object":"chat.completion.chunk","created":17,"choices":[{"delta":{"content":"a"}}]}`,
				`{"object":"chat.completion.chunk","created":17,"choices":[{"delta":{"content":"b"}}],"obfuscation":"x"}`,
				`{"object":"chat.completion.chunk","created":175,"choices":[{"delta":{"content":"c"}}]}`,
				`{"object":"chat.completion.chunk","created":17 ,"choices":[{"delta":{"content":"d"}}]}`,
				`{"object":"chat.completion.chunk","created":17,"usage":{"prompt_tokens":3,"completion_tokens":4},"choices":[{"delta":{"content":"e"}}]}`,
				`{"object":"chat.completion.chunk","created":17,"usage":{"prompt_tokens":3,"completion_tokens":4},"choices":[{"delta":{"content":"f"},"finish_reason":"stop"}],"id":"late"}`,
				"[DONE]"),
			want: []llm.Content{llm.Text("abcdef")},
			stop: llm.StopEnd,
			check: func(t *testing.T, m llm.Message) {
				if m.ResponseID != "late" || m.Usage == nil || m.Usage.Input != 3 || m.Usage.Output != 4 {
					t.Errorf("response id %q, usage %+v", m.ResponseID, m.Usage)
				}
			}},
		{name: "interleaved thinking and text make separate blocks",
			body: llmtest.SSEData(`{"choices":[{"delta":{"reasoning_content":"a"}}]}`, `{"choices":[{"delta":{"content":"b"}}]}`,
				`{"choices":[{"delta":{"reasoning_content":"c"}}]}`, `{"choices":[{"delta":{"content":"d"},"finish_reason":"stop"}]}`, "[DONE]"),
			want: []llm.Content{llm.Thinking("a", ""), llm.Text("b"), llm.Thinking("c", ""), llm.Text("d")},
			stop: llm.StopEnd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := tt.compat
			if cp == (Compat{}) {
				cp = openaiCompat
			}
			s := llmtest.NewServer(t, replay([]byte(tt.body)))
			r := drainStream(t, chatProvider(s, cp), context.Background(), chatReq())
			if r.err != nil {
				t.Fatal(r.err)
			}
			if diff := cmp.Diff(tt.want, r.final.Content, cmpJSON); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if r.final.StopReason != tt.stop {
				t.Errorf("stop = %s, want %s", r.final.StopReason, tt.stop)
			}
			if tt.check != nil {
				tt.check(t, r.final)
			}
		})
	}
}

func TestResponsesDecoderCases(t *testing.T) {
	created := `{"type":"response.created","response":{"id":"r1","model":"m","status":"in_progress","output":[]}}`
	completed := `{"type":"response.completed","response":{"id":"r1","model":"m","status":"completed","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":3}}}`
	tests := []struct {
		name  string
		body  string
		want  []llm.Content
		extra string
		stop  llm.StopReason
	}{
		{name: "summary parts are separated by a blank line",
			body: llmtest.SSETyped(created,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
				`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**A**"}`,
				`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":1,"delta":"**B**"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**A**"},{"type":"summary_text","text":"**B**"}],"encrypted_content":"enc"}}`,
				completed),
			want: []llm.Content{withExtra(llm.Thinking("**A**\n\n**B**", "enc"), idExtra("rs_1"))},
			stop: llm.StopEnd},
		{name: "unknown events and items pass through; no event names; no added events",
			body: llmtest.SSEData(created,
				`{"type":"response.mcp_list_tools.in_progress","item_id":"mcpl_1","output_index":0}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"mcpl_1","type":"mcp_list_tools","tools":[{"name":"x"}]}}`,
				`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"}`,
				`{"type":"response.some_future_event","payload":{"a":[1,2,3]}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}}`,
				`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":2,"arguments":"{\"q\":1}"}`,
				`{"type":"response.output_item.done","output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"find","arguments":"{\"q\":1}"}}`,
				completed),
			want: []llm.Content{withExtra(llm.Text("Hi"), idExtra("msg_1")),
				withExtra(toolCall("call_1", "find", `{"q":1}`), idExtra("fc_1"))},
			extra: `{"output_items":[{"output_index":0,"item":{"id":"mcpl_1","type":"mcp_list_tools","tools":[{"name":"x"}]}}]}`,
			stop:  llm.StopToolUse},
		{name: "only a final response with its output",
			body: llmtest.SSETyped(`{"type":"response.completed","response":{"id":"r1","model":"m","status":"completed","output":[` +
				`{"id":"rs_9","type":"reasoning","summary":[{"type":"summary_text","text":"hmm"}],"encrypted_content":"e9"},` +
				`{"id":"msg_9","type":"message","content":[{"type":"output_text","text":"Done.","annotations":[]}]}],` +
				`"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":3}}}`),
			want: []llm.Content{withExtra(llm.Thinking("hmm", "e9"), idExtra("rs_9")), withExtra(llm.Text("Done."), idExtra("msg_9"))},
			stop: llm.StopEnd},
		{name: "raw reasoning text and max_output_tokens",
			body: llmtest.SSETyped(created,
				`{"type":"response.reasoning_text.delta","item_id":"rs_2","output_index":0,"content_index":0,"delta":"raw thought"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_2","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"raw thought"}]}}`,
				`{"type":"response.output_text.delta","item_id":"msg_2","output_index":1,"delta":"partial"}`,
				`{"type":"response.incomplete","response":{"id":"r1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":3}}}`),
			want: []llm.Content{withExtra(llm.Thinking("raw thought", ""), idExtra("rs_2")), llm.Text("partial")},
			stop: llm.StopLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t, replay([]byte(tt.body)))
			r := drainStream(t, respProvider(s, openaiCompat), context.Background(), respReq())
			if r.err != nil {
				t.Fatal(r.err)
			}
			if diff := cmp.Diff(tt.want, r.final.Content, cmpJSON); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if r.final.StopReason != tt.stop || r.final.ResponseID != "r1" {
				t.Errorf("stop = %s, response id %q", r.final.StopReason, r.final.ResponseID)
			}
			if diff := cmp.Diff(json.RawMessage(tt.extra), r.final.Extra, cmpJSON); diff != "" {
				t.Errorf("message extra (-want +got):\n%s", diff)
			}
			if u := r.final.Usage; u == nil || u.Input != 6 || u.CacheRead != 4 || u.Output != 3 || u.Total != 13 {
				t.Errorf("usage = %+v", u)
			}
		})
	}
}

// jsonReply answers with one JSON document and status 200, as servers that
// ignore stream:true and some proxies do.
func jsonReply(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}
}

func TestWholeJSONReplies(t *testing.T) {
	tests := []struct {
		name string
		api  llm.API
		body string
		want []llm.Content
		code llm.ErrorCode
		msg  string
	}{
		{name: "chat completion object", api: llm.APIOpenAIChat,
			body: `{"id":"c9","object":"chat.completion","model":"m",
			  "choices":[{"index":0,"message":{"role":"assistant","content":"Sure.","reasoning_content":"ok",
			    "tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]},"finish_reason":"tool_calls"}],
			  "usage":{"prompt_tokens":10,"completion_tokens":5}}`,
			want: []llm.Content{llm.Thinking("ok", ""), llm.Text("Sure."), toolCall("call_1", "read", `{"p":1}`)}},
		{name: "chat error envelope", api: llm.APIOpenAIChat, body: `{"error":{"message":"Upstream quota exhausted","code":"insufficient_quota"}}`,
			code: llm.CodeBilling, msg: "Upstream quota exhausted"},
		{name: "responses object", api: llm.APIOpenAIResponses,
			body: `{"id":"r1","object":"response","status":"completed","model":"m",
			  "output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Done.","annotations":[]}]}],
			  "usage":{"input_tokens":10,"output_tokens":5}}`,
			want: []llm.Content{withExtra(llm.Text("Done."), idExtra("msg_1"))}},
		{name: "responses error envelope", api: llm.APIOpenAIResponses, body: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`,
			code: llm.CodeRateLimit, msg: "Rate limit reached"},
		{name: "responses error string", api: llm.APIOpenAIResponses, body: `{"error":"service unavailable"}`,
			code: llm.CodeServerError, msg: "service unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.NewServer(t, jsonReply(tt.body))
			var p llm.Provider = chatProvider(s, openaiCompat)
			req := chatReq()
			if tt.api == llm.APIOpenAIResponses {
				p, req = respProvider(s, openaiCompat), respReq()
			}
			r := drainStream(t, p, context.Background(), req)
			if got := llm.CodeOf(r.err); got != tt.code {
				t.Fatalf("code = %q (%v), want %q", got, r.err, tt.code)
			}
			if !strings.Contains(r.final.ErrorMessage, tt.msg) {
				t.Errorf("error message %q does not contain %q", r.final.ErrorMessage, tt.msg)
			}
			if diff := cmp.Diff(tt.want, r.final.Content, cmpJSON); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if tt.code == "" && (r.final.Usage == nil || r.final.Usage.Total != 15) {
				t.Errorf("usage = %+v", r.final.Usage)
			}
		})
	}
}
