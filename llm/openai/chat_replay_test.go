package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// ignoreTime leaves the wall-clock stamp out of message comparisons.
var ignoreTime = cmpopts.IgnoreFields(llm.Message{}, "Timestamp")

func toolCall(id, name, args string) llm.Content {
	return llm.Content{Type: llm.ContentToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func usage(in, out, cached int) *llm.Usage {
	return &llm.Usage{Input: in, Output: out, CacheRead: cached, Total: in + out + cached}
}

// reasoned sets the reasoning part of u's output.
func reasoned(u *llm.Usage, n int) *llm.Usage {
	u.Reasoning = n
	return u
}

// chatOracle computes the text and reasoning of a recorded Chat stream
// with encoding/json, independently of the decoder under test.
func chatOracle(t *testing.T, body []byte) (text, reasoning string) {
	t.Helper()
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content          *string
					ReasoningContent *string `json:"reasoning_content"`
					Reasoning        *string
				}
			}
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatal(err)
		}
		for _, c := range chunk.Choices {
			for _, p := range []*string{c.Delta.ReasoningContent, c.Delta.Reasoning} {
				if p != nil {
					reasoning += *p
				}
			}
			if c.Delta.Content != nil {
				text += *c.Delta.Content
			}
		}
	}
	return text, reasoning
}

func TestChatReplaysRecordedStreams(t *testing.T) {
	chatModel := func(provider string) llm.Model {
		return llm.Model{ID: "requested-model", Provider: provider, API: llm.APIOpenAIChat}
	}
	msg := func(provider, model, id string, stop llm.StopReason, u *llm.Usage, content ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: content, Provider: provider, Model: model,
			API: llm.APIOpenAIChat, ResponseID: id, Usage: u, StopReason: stop}
	}
	weatherArgs := `{"location":"Florence, Italy"}`
	tests := []struct {
		file     string
		provider string
		want     func(t *testing.T, body []byte) llm.Message
		code     llm.ErrorCode
	}{
		{file: "fantasy-gpt4o-mini-text.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-mini-2024-07-18", "chatcmpl-DuLdOuviL2tiVxMim6HmX4YMnCorK", llm.StopEnd, usage(20, 2, 0),
				llm.Text("Olá!"))
		}},
		{file: "fantasy-gpt4o-tool.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-2024-08-06", "chatcmpl-DuLdInI48CUMPbcraGuxW2KFhK3CM", llm.StopToolUse, usage(61, 16, 0),
				toolCall("call_7kE4IjtnwXcGbX6hDM7xFu8T", "weather", weatherArgs))
		}},
		{file: "fantasy-gpt4o-tool-result-followup.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-2024-08-06", "chatcmpl-DuLdJCsSSbBBJ5FZPFMNj2owr3Fhr", llm.StopEnd, usage(86, 13, 0),
				llm.Text("The current temperature in Florence, Italy is 40°C."))
		}},
		{file: "fantasy-gpt4o-parallel-tools.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-2024-08-06", "chatcmpl-DuLdMEdkw5VsZSxKY3i9G934hT7LM", llm.StopToolUse, usage(106, 50, 0),
				toolCall("call_ehIWdjL1abZk1h8FWGLQ0Hie", "add", `{"a": 2, "b": 3}`),
				toolCall("call_fBSgA47J5VeONggizTIvl7AH", "multiply", `{"a": 2, "b": 3}`))
		}},
		{file: "fantasy-gpt5-tool.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			// 89 completion tokens, 64 of them reasoning: Output counts both.
			return msg("openai", "gpt-5-2025-08-07", "chatcmpl-DuLdov3Qna0hmlIwzwWCG9FRhpJh7", llm.StopToolUse, reasoned(usage(145, 89, 0), 64),
				toolCall("call_eKRQDHJdZUhEXo1K1cobzFrl", "weather", weatherArgs))
		}},
		{file: "fantasy-gpt5-tool-result-followup.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-5-2025-08-07", "chatcmpl-DuLdqPnSNpAmUBdBXOvPaANHkr3n5", llm.StopEnd, reasoned(usage(176, 228, 0), 192),
				llm.Text("It’s currently about 40°C (104°F) in Florence, Italy. Want a forecast or more details like wind and humidity?"))
		}},
		{file: "pai-gpt4o-parallel-tools.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-2024-08-06", "chatcmpl-C2QD1kGWsTW5OWiqAtOSFEAOfPfQH", llm.StopToolUse, usage(364, 40, 0),
				toolCall("call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", `{}`),
				toolCall("call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", `{}`))
		}},
		{file: "pai-gpt4o-long-tool-args.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-4o-2024-08-06", "chatcmpl-C2QD4vblfNcSDeoXmULJR4umoKNqY", llm.StopToolUse, usage(448, 62, 0),
				toolCall("call_CCGIWaMeYWmxOQ91orkmTvzn", "final_result",
					`{"answers":[{"label":"Capital","answer":"The capital of Mexico is Mexico City."},{"label":"Weather","answer":"The weather in Mexico City is currently sunny."},{"label":"Product Name","answer":"The product name is Pydantic AI."}]}`))
		}},
		{file: "lcgo-gpt35-text-usage.sse", provider: "openai", want: func(*testing.T, []byte) llm.Message {
			return msg("openai", "gpt-3.5-turbo-0125", "chatcmpl-C6bjxzOr3Oz1rTiafksd6himIit3q", llm.StopEnd, usage(14, 13, 0),
				llm.Text("1, 2, 3, 4, 5"))
		}},
		{file: "compat-deepseek-reasoner-reasoning-content.sse", provider: "deepseek", want: func(t *testing.T, body []byte) llm.Message {
			text, reasoning := chatOracle(t, body)
			if len(reasoning) != 882 || !strings.HasPrefix(reasoning, `Hmm, the user just said "Hello".`) {
				t.Fatalf("oracle reasoning = %d bytes %.40q", len(reasoning), reasoning)
			}
			if text != "Hello there! 😊 How can I help you today?" {
				t.Fatalf("oracle text = %q", text)
			}
			return msg("deepseek", "deepseek-reasoner", "33be18fc-3842-486c-8c29-dd8e578f7f20", llm.StopEnd, reasoned(usage(6, 212, 0), 198),
				llm.Thinking(reasoning, ""), llm.Text(text))
		}},
		{file: "compat-openrouter-error-chunk.sse", provider: "openrouter", code: llm.CodeUnknown, want: func(*testing.T, []byte) llm.Message {
			m := msg("openrouter", "minimax/minimax-m2:free", "gen-1762179802-UN8pkJI4AGZvryk0kFnb", llm.StopError, reasoned(usage(43, 10, 0), 10),
				llm.Thinking("We need to respond to a greeting. The user", ""))
			m.ErrorCode = llm.CodeUnknown
			m.ErrorMessage = "openrouter: unknown: Token limit reached (the reply had already stopped at its output token limit)"
			return m
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := readFixture(t, "openai-chat/"+tt.file)
			want := tt.want(t, body)
			s := llmtest.NewServer(t, replay(body))
			r := drainStream(t, chatProvider(s, openaiCompat), context.Background(), &llm.Request{Model: chatModel(tt.provider)})
			if diff := cmp.Diff(want, r.final, ignoreTime); diff != "" {
				t.Errorf("final message (-want +got):\n%s", diff)
			}
			if r.final.Timestamp.IsZero() {
				t.Error("final message has no timestamp")
			}
			if got := llm.CodeOf(r.err); got != tt.code {
				t.Errorf("error code = %q (%v), want %q", got, r.err, tt.code)
			}
		})
	}
}

// TestChatCachedAndReasoningUsage checks the usage split on a chunk with
// cached prompt tokens, which no recording has.
func TestChatCachedAndReasoningUsage(t *testing.T) {
	body := "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":50," +
		"\"prompt_tokens_details\":{\"cached_tokens\":800},\"completion_tokens_details\":{\"reasoning_tokens\":30}}}\n\ndata: [DONE]\n\n"
	s := llmtest.NewServer(t, replay([]byte(body)))
	model := llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIChat, Price: llm.Price{Input: 1, Output: 10, CacheRead: 0.1}}
	r := drainStream(t, chatProvider(s, openaiCompat), context.Background(), &llm.Request{Model: model})
	u := r.final.Usage
	if u == nil {
		t.Fatal("no usage")
	}
	want := llm.Usage{Input: 200, Output: 50, CacheRead: 800, Reasoning: 30, Total: 1050}
	got := *u
	got.Cost = llm.Cost{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if wantCost := (200*1 + 50*10 + 800*0.1) / 1e6; !approxEqual(u.Cost.Total, wantCost) {
		t.Errorf("cost = %v, want %v", u.Cost.Total, wantCost)
	}
}

func approxEqual(a, b float64) bool {
	d := a - b
	return d < 1e-12 && d > -1e-12
}
