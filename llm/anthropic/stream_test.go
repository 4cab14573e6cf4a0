package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// Hand-written events for streams no recording has.
const (
	evStart   = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`
	evText0   = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evHel     = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`
	evLo      = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}`
	evStop0   = `{"type":"content_block_stop","index":0}`
	evEndTurn = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`
	evMsgStop = `{"type":"message_stop"}`
	evPing    = `{"type": "ping"}`
)

func sseOf(t testing.TB, payloads ...string) []byte {
	return llmtest.SSEFromJSONL(t, []byte(strings.Join(payloads, "\n")))
}

// failing runs a stream that must end with an error and returns the final
// message and the *llm.Error.
func failing(t *testing.T, c *Client, req *llm.Request) (llm.Message, *llm.Error) {
	t.Helper()
	msg, _, err := run(t, context.Background(), c, req)
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T), want an *llm.Error", err, err)
	}
	if msg.ErrorCode != le.Code || msg.ErrorMessage != le.Error() {
		t.Errorf("message error %q %q, stream error %q %q", msg.ErrorCode, msg.ErrorMessage, le.Code, le.Error())
	}
	return msg, le
}

func TestHTTPErrors(t *testing.T) {
	const key = "sk-ant-secret-0123456789"
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		code   llm.ErrorCode
		retry  time.Duration
		msg    string
	}{
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "7"}, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			llm.CodeRateLimit, 7 * time.Second, "rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"},
		{"429 without Retry-After", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
			llm.CodeRateLimit, 0, "rate_limit_error: slow down"},
		{"529 overloaded", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			llm.CodeOverloaded, 0, "overloaded_error: Overloaded"},
		{"500", 500, nil, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			llm.CodeServerError, 0, "api_error: Internal server error"},
		{"401 echoing the key", 401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + key + `"}}`,
			llm.CodeAuth, 0, "authentication_error: invalid x-api-key [REDACTED]"},
		{"400 prompt too long", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
			llm.CodeContextOverflow, 0, "invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum"},
		{"recorded 400", 400, nil, string(readFile(t, "errors/pai-400-invalid-request.response.json")),
			llm.CodeFormat, 0, "invalid_request_error: This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("content-type", "application/json")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			c := newClient(srv.URL, Options{APIKey: func(context.Context) (string, error) { return key, nil }})
			msg, le := failing(t, c, userReq(sonnet, "hi"))
			want := &llm.Error{Code: tt.code, Status: tt.status, Message: tt.msg, Provider: "anthropic", RetryAfter: tt.retry}
			if d := cmp.Diff(want, le); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if msg.StopReason != llm.StopError || len(msg.Content) != 0 {
				t.Errorf("final message %+v", msg)
			}
			if strings.Contains(le.Error(), key) || strings.Contains(msg.ErrorMessage, key) {
				t.Error("the key leaked into the error")
			}
		})
	}
}

func TestRecordedErrorRequest(t *testing.T) {
	srv := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write(readFile(t, "errors/pai-400-invalid-request.response.json"))
	})
	model := sonnet
	model.ID = "claude-opus-4-6"
	req := &llm.Request{Model: model, MaxTokens: 4096, Messages: []llm.Message{llm.UserText("What is 2+2?")},
		Options: llm.Options{Extra: map[string]json.RawMessage{"output_config": json.RawMessage(`{"effort":"xhigh"}`)}}}
	_, le := failing(t, newClient(srv.URL, Options{}), req)
	if !errors.Is(le, llm.ErrFormat) || !strings.Contains(le.Message, "does not support effort level 'xhigh'") {
		t.Errorf("error %v", le)
	}
	// The recording was made without streaming; rein always streams.
	var sent map[string]any
	json.Unmarshal(srv.LastBody(t), &sent)
	if sent["stream"] != true {
		t.Errorf("stream = %v", sent["stream"])
	}
	want := readFile(t, "errors/pai-400-invalid-request.request.json")
	compareRequest(t, []byte(strings.Replace(string(want), `"stream": false`, `"stream": true`, 1)), srv.LastBody(t), compareOpts{})
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name string
		body string
		code llm.ErrorCode
		msg  string // a substring of the error message
		text string // the partial text kept in the final message
	}{
		{"mid-stream overloaded", string(sseOf(t, evStart, evText0, evHel)) + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			llm.CodeOverloaded, "overloaded_error: Overloaded", "Hel"},
		{"mid-stream rate limit", string(sseOf(t, evStart, `{"type":"error","error":{"type":"rate_limit_error","message":"too fast"}}`)),
			llm.CodeRateLimit, "rate_limit_error: too fast", ""},
		{"mid-stream api error", string(sseOf(t, evStart, `{"type":"error","error":{"type":"api_error","message":"boom"}}`)),
			llm.CodeServerError, "api_error: boom", ""},
		{"mid-stream prompt too long", string(sseOf(t, evStart, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`)),
			llm.CodeContextOverflow, "prompt is too long", ""},
		{"mid-stream unknown error type", string(sseOf(t, evStart, `{"type":"error","error":{"type":"novel_error","message":"?"}}`)),
			llm.CodeUnknown, "novel_error: ?", ""},
		{"error event named only by the SSE field", string(sseOf(t, evStart)) + "event: error\ndata: {\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			llm.CodeOverloaded, "Overloaded", ""},
		{"error event that is not JSON", string(sseOf(t, evStart)) + "event: error\ndata: upstream overloaded, try later\n\n",
			llm.CodeOverloaded, "upstream overloaded, try later", ""},
		{"cut mid-event", string(sseOf(t, evStart, evText0, evHel)) + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_de",
			llm.CodeServerError, "ended before message_stop", "Hel"},
		{"cut between events", string(sseOf(t, evStart, evText0, evHel, evLo)),
			llm.CodeServerError, "ended before message_stop", "Hello"},
		{"empty body", "", llm.CodeServerError, "ended before message_stop", ""},
		{"malformed JSON", string(sseOf(t, evStart, evText0, evHel)) + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}\n\n",
			llm.CodeServerError, `malformed "content_block_delta" event`, "Hel"},
		{"not JSON at all", "event: message_start\ndata: <html>bad gateway</html>\n\n",
			llm.CodeServerError, "invalid JSON", ""},
		{"delta for a block never started", string(sseOf(t, evStart, evHel)),
			llm.CodeFormat, "content_block_delta for block 0, which is not open", ""},
		{"delta of the wrong kind", string(sseOf(t, evStart, evText0, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`)),
			llm.CodeFormat, "input_json_delta for the text block at index 0", ""},
		{"refusal", string(sseOf(t, evStart, evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{"output_tokens":3}}`, evMsgStop)),
			llm.CodeUnknown, "declined", "Hel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE([]byte(tt.body), 0))
			msg, le := failing(t, newClient(srv.URL, Options{}), userReq(sonnet, "hi"))
			if le.Code != tt.code || !strings.Contains(le.Message, tt.msg) || le.Provider != "anthropic" {
				t.Errorf("error %q (%s), want code %s containing %q", le.Message, le.Code, tt.code, tt.msg)
			}
			if msg.StopReason != llm.StopError || msg.Text() != tt.text {
				t.Errorf("final message stop %q text %q, want error %q", msg.StopReason, msg.Text(), tt.text)
			}
		})
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	srv := llmtest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		w.Write([]byte(`{"type":"error","error":{"type":"api_error","message":"upstream said no"}}`))
	})
	_, le := failing(t, newClient(srv.URL, Options{}), userReq(sonnet, "hi"))
	if le.Code != llm.CodeFormat || le.Status != 200 || !strings.Contains(le.Message, "JSON instead of an event stream: api_error: upstream said no") {
		t.Errorf("error %v", le)
	}
}

func TestStopReasonsAndUsage(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		stop   llm.StopReason
		usage  llm.Usage
		extra  string
	}{
		{"final counts replace the start's",
			[]string{`{"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":100,"cache_read_input_tokens":50,"cache_creation_input_tokens":10,"output_tokens":1}}}`,
				evPing, evText0, evPing, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}`, evPing, evMsgStop},
			llm.StopEnd, llm.Usage{Input: 100, Output: 42, CacheRead: 50, CacheWrite: 10}, ""},
		{"message_delta carrying every count",
			[]string{`{"type":"message_start","message":{"id":"m","model":"x","usage":{"input_tokens":100,"output_tokens":1}}}`,
				evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":120,"cache_read_input_tokens":7,"cache_creation_input_tokens":3,"output_tokens":9}}`, evMsgStop},
			llm.StopLength, llm.Usage{Input: 120, Output: 9, CacheRead: 7, CacheWrite: 3}, ""},
		{"stop sequence", []string{evStart, evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":2}}`, evMsgStop},
			llm.StopEnd, llm.Usage{Input: 10, Output: 2}, `{"stop_reason":"stop_sequence","stop_sequence":"END"}`},
		{"pause_turn", []string{evStart, evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":2}}`, evMsgStop},
			llm.StopEnd, llm.Usage{Input: 10, Output: 2}, `{"stop_reason":"pause_turn"}`},
		{"context window exceeded", []string{evStart, evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"},"usage":{"output_tokens":2}}`, evMsgStop},
			llm.StopLength, llm.Usage{Input: 10, Output: 2}, `{"stop_reason":"model_context_window_exceeded"}`},
		{"unknown stop reason", []string{evStart, evText0, evHel, evStop0, `{"type":"message_delta","delta":{"stop_reason":"brand_new"},"usage":{"output_tokens":2}}`, evMsgStop},
			llm.StopEnd, llm.Usage{Input: 10, Output: 2}, `{"stop_reason":"brand_new"}`},
		{"blocks left open are closed", []string{evStart, evText0, evHel, evEndTurn, evMsgStop},
			llm.StopEnd, llm.Usage{Input: 10, Output: 5}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.SSE(sseOf(t, tt.events...), 0))
			msg, _, err := run(t, context.Background(), newClient(srv.URL, Options{}), userReq(sonnet, "hi"))
			if err != nil {
				t.Fatal(err)
			}
			tt.usage.Finish(sonnet.Price)
			if d := cmp.Diff(&tt.usage, msg.Usage); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
			if msg.StopReason != tt.stop || string(msg.Extra) != tt.extra || msg.Text() != "Hel" {
				t.Errorf("stop %q extra %s text %q, want %q %s", msg.StopReason, msg.Extra, msg.Text(), tt.stop, tt.extra)
			}
		})
	}
}

func TestSilentContextOverflow(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.SSE(sseOf(t, evStart, evText0, evHel, evStop0, evEndTurn, evMsgStop), 0))
	model := sonnet
	model.ContextWindow = 8
	_, le := failing(t, newClient(srv.URL, Options{}), userReq(model, "hi"))
	if le.Code != llm.CodeContextOverflow {
		t.Errorf("code %s", le.Code)
	}
}

func TestKeySourceFailure(t *testing.T) {
	c := New(Options{BaseURL: "http://127.0.0.1:1", APIKey: func(context.Context) (string, error) {
		return "", errors.New("token expired and refresh failed")
	}})
	_, le := failing(t, c, userReq(sonnet, "hi"))
	if le.Code != llm.CodeAuth || !strings.Contains(le.Message, "refresh failed") {
		t.Errorf("error %v", le)
	}
}

func TestInvalidToolArgumentsAreKept(t *testing.T) {
	events := []string{evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"oops"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"ls","input":{"dir":"."}}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`, evMsgStop}
	srv := llmtest.NewServer(t, llmtest.SSE(sseOf(t, events...), 0))
	c := newClient(srv.URL, Options{})
	msg, _, err := run(t, context.Background(), c, userReq(sonnet, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	calls := msg.ToolCalls()
	if len(calls) != 2 || string(calls[0].Arguments) != `"{\"path\": oops"` || calls[0].ArgumentsObject() || calls[0].RawArguments() != `{"path": oops` {
		t.Fatalf("calls %+v", calls)
	}
	// A start block that carries the whole input (no deltas) is kept.
	if string(calls[1].Arguments) != `{"dir":"."}` {
		t.Errorf("second call arguments %s", calls[1].Arguments)
	}
	// On the next turn the broken call is sent with an empty object.
	next := userReq(sonnet, "hi")
	next.Messages = append(next.Messages, msg,
		llm.ToolResult("toolu_1", "read", true, llm.Text("invalid arguments")),
		llm.ToolResult("toolu_2", "ls", false, llm.Text("a b")))
	if _, _, err := run(t, context.Background(), c, next); err != nil {
		t.Fatal(err)
	}
	var sent payloadView
	if err := json.Unmarshal(srv.LastBody(t), &sent); err != nil {
		t.Fatal(err)
	}
	got := sent.Messages[1].Content
	if string(got[0].Input) != `{}` || string(got[1].Input) != `{"dir":"."}` {
		t.Errorf("inputs sent back: %s, %s", got[0].Input, got[1].Input)
	}
	results := sent.Messages[2].Content
	if len(results) != 2 || results[0].Type != "tool_result" || !results[0].IsError || results[1].ToolUseID != "toolu_2" {
		t.Errorf("tool results %+v", results)
	}
}

// payloadView decodes a sent request for assertions.
type payloadView struct {
	MaxTokens   int            `json:"max_tokens"`
	System      []blockView    `json:"system"`
	Messages    []messageView  `json:"messages"`
	Thinking    map[string]any `json:"thinking"`
	Temperature *float64       `json:"temperature"`
	Metadata    map[string]any `json:"metadata"`
}

type messageView struct {
	Role    string      `json:"role"`
	Content []blockView `json:"content"`
}

type blockView struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     *string         `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	ID           string          `json:"id"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	IsError      bool            `json:"is_error"`
	Content      []blockView     `json:"content"`
	CacheControl map[string]any  `json:"cache_control"`
	Raw          json.RawMessage `json:"-"`
}

func (b *blockView) UnmarshalJSON(data []byte) error {
	type plain blockView
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	b.Raw = append(json.RawMessage(nil), data...)
	return nil
}
