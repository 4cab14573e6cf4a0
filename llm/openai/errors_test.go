package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

// status answers every request with an HTTP error.
func status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

func TestRecordedErrorReplies(t *testing.T) {
	tests := []struct {
		file     string
		api      llm.API
		wantMsg  []string
		wantCode llm.ErrorCode
	}{
		{file: "openai-chat/errors/pai-400-unsupported-value.response.json", api: llm.APIOpenAIChat, wantCode: llm.CodeFormat,
			wantMsg: []string{"Unsupported value: 'messages[0].role' does not support 'developer' with this model.", "Compat.NoDeveloperRole"}},
		{file: "openai-responses/errors/pai-400-decimal-below-min.response.json", api: llm.APIOpenAIResponses, wantCode: llm.CodeFormat,
			wantMsg: []string{"Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := llmtest.NewServer(t, status(400, string(readFixture(t, tt.file))))
			var p llm.Provider = chatProvider(s, openaiCompat)
			if tt.api == llm.APIOpenAIResponses {
				p = respProvider(s, openaiCompat)
			}
			req := &llm.Request{Model: llm.Model{ID: "o1-mini", Provider: "openai", Reasoning: true, API: tt.api},
				System: sys("You are a helpful assistant."), Messages: []llm.Message{llm.UserText("Hello")}}
			r := drainStream(t, p, context.Background(), req)
			var le *llm.Error
			if !errors.As(r.err, &le) {
				t.Fatalf("error %v is not an *llm.Error", r.err)
			}
			if le.Code != tt.wantCode || le.Status != 400 || le.Provider != "openai" {
				t.Errorf("error = %+v, want code %s, status 400, provider openai", le, tt.wantCode)
			}
			for _, w := range tt.wantMsg {
				if !strings.Contains(le.Message, w) {
					t.Errorf("message %q does not contain %q", le.Message, w)
				}
			}
			if r.final.StopReason != llm.StopError || r.final.ErrorCode != tt.wantCode || r.final.ErrorMessage != le.Error() {
				t.Errorf("final message = %+v", r.final)
			}
			if len(r.events) != 2 {
				t.Errorf("%d events, want start and error", len(r.events))
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	const key = "sk-test-5ecret-K3y-do-not-leak"
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		code       llm.ErrorCode
		status     int
		retryAfter time.Duration
		msg        string
	}{
		{name: "429 with Retry-After", handler: status(429, `{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}`, "Retry-After", "7"),
			code: llm.CodeRateLimit, status: 429, retryAfter: 7 * time.Second, msg: "Rate limit reached for gpt-4o"},
		{name: "429 with retry-after-ms", handler: status(429, `{"error":{"message":"slow down"}}`, "retry-after-ms", "1500"),
			code: llm.CodeRateLimit, status: 429, retryAfter: 1500 * time.Millisecond, msg: "slow down"},
		{name: "429 without Retry-After", handler: status(429, `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`),
			code: llm.CodeRateLimit, status: 429, msg: "Rate limit reached"},
		{name: "429 insufficient quota", handler: status(429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`),
			code: llm.CodeBilling, status: 429, msg: "You exceeded your current quota"},
		{name: "500", handler: status(500, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`),
			code: llm.CodeServerError, status: 500, msg: "The server had an error"},
		{name: "503 plain text", handler: status(503, `upstream unavailable`),
			code: llm.CodeOverloaded, status: 503, msg: "upstream unavailable"},
		{name: "401 echoing the key", handler: status(401, `{"error":{"message":"Incorrect API key provided: `+key+`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`),
			code: llm.CodeAuth, status: 401, msg: "Incorrect API key provided: [REDACTED]."},
		{name: "404 model", handler: status(404, `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","code":"model_not_found"}}`),
			code: llm.CodeModelNotFound, status: 404, msg: "gpt-9"},
		{name: "400 context overflow", handler: status(400, `{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}`),
			code: llm.CodeContextOverflow, status: 400, msg: "maximum context length"},
	}
	for _, tt := range tests {
		for _, api := range []llm.API{llm.APIOpenAIChat, llm.APIOpenAIResponses} {
			t.Run(tt.name+"/"+string(api), func(t *testing.T) {
				s := llmtest.NewServer(t, tt.handler)
				opts := Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: openaiCompat,
					APIKey: func(context.Context) (string, error) { return key, nil }}
				var p llm.Provider = NewChat(opts)
				if api == llm.APIOpenAIResponses {
					p = NewResponses(opts)
				}
				r := drainStream(t, p, context.Background(), &llm.Request{Model: llm.Model{ID: "gpt-4o", Provider: "openai", API: api},
					Messages: []llm.Message{llm.UserText("hi")}})
				var le *llm.Error
				if !errors.As(r.err, &le) {
					t.Fatalf("error %v is not an *llm.Error", r.err)
				}
				if le.Code != tt.code || le.Status != tt.status || le.RetryAfter != tt.retryAfter {
					t.Errorf("error = code %s status %d retry %v, want %s %d %v", le.Code, le.Status, le.RetryAfter, tt.code, tt.status, tt.retryAfter)
				}
				if !strings.Contains(le.Message, tt.msg) {
					t.Errorf("message %q does not contain %q", le.Message, tt.msg)
				}
				if strings.Contains(le.Error(), key) || strings.Contains(r.final.ErrorMessage, key) {
					t.Errorf("the key leaked into the error: %q", le.Error())
				}
				if got := s.LastHeader().Get("Authorization"); got != "Bearer "+key {
					t.Errorf("Authorization = %q", got)
				}
			})
		}
	}
}

func TestDeveloperHintOnlyWhenDeveloperRoleWasUsed(t *testing.T) {
	body := string(readFixture(t, "openai-chat/errors/pai-400-unsupported-value.response.json"))
	s := llmtest.NewServer(t, status(400, body))
	req := &llm.Request{Model: llm.Model{ID: "o1-mini", Provider: "openai", Reasoning: true, API: llm.APIOpenAIChat},
		System: sys("x"), Messages: []llm.Message{llm.UserText("Hello")}}
	r := drainStream(t, chatProvider(s, Compat{NoDeveloperRole: true}), context.Background(), req)
	if strings.Contains(r.final.ErrorMessage, "Compat.NoDeveloperRole") {
		t.Errorf("hint given although the switch is already on: %q", r.final.ErrorMessage)
	}
}

func TestCredentialsAndHeaders(t *testing.T) {
	s := llmtest.NewServer(t, replay([]byte("data: [DONE]\n\n")))
	calls := 0
	opts := Options{BaseURL: "http://unused.invalid", HTTPClient: s.Client(), Compat: openaiCompat,
		APIKey: func(context.Context) (string, error) {
			calls++
			return "sk-from-func", nil
		},
		Headers: map[string]string{"X-A": "options", "X-B": "options", "X-C": "options"}}
	p := NewChat(opts)
	model := llm.Model{ID: "m", Provider: "openai", API: llm.APIOpenAIChat, BaseURL: s.URL + "/v1/",
		Headers: map[string]string{"X-B": "model", "X-C": "model"}}
	req := &llm.Request{Model: model, Messages: []llm.Message{llm.UserText("hi")},
		Options: llm.Options{Headers: map[string]string{"X-C": "request"}}}

	drainStream(t, p, context.Background(), req)
	h := s.LastHeader()
	if got := h.Get("Authorization"); got != "Bearer sk-from-func" || calls != 1 {
		t.Errorf("Authorization = %q after %d key calls", got, calls)
	}
	if h.Get("X-A") != "options" || h.Get("X-B") != "model" || h.Get("X-C") != "request" {
		t.Errorf("headers = %v", h)
	}
	if got := s.Paths(); len(got) == 0 || got[0] != "/v1/chat/completions" {
		t.Errorf("paths = %q; the model's base URL must win", got)
	}

	req.Options.APIKey = "sk-per-request"
	drainStream(t, p, context.Background(), req)
	if got := s.LastHeader().Get("Authorization"); got != "Bearer sk-per-request" || calls != 1 {
		t.Errorf("Authorization = %q after %d key calls; the request key must win", got, calls)
	}

	// No key at all: no Authorization header (local servers).
	drainStream(t, NewChat(Options{BaseURL: s.URL, HTTPClient: s.Client()}), context.Background(),
		&llm.Request{Model: llm.Model{ID: "m"}, Messages: []llm.Message{llm.UserText("hi")}})
	if got, ok := s.LastHeader()["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", got)
	}

	// A failing key source fails the call as auth, before any request.
	before := s.Count()
	failing := NewChat(Options{BaseURL: s.URL, HTTPClient: s.Client(),
		APIKey: func(context.Context) (string, error) { return "", errors.New("keychain locked") }})
	r := drainStream(t, failing, context.Background(), &llm.Request{Model: llm.Model{ID: "m"}})
	if llm.CodeOf(r.err) != llm.CodeAuth || !strings.Contains(r.final.ErrorMessage, "keychain locked") {
		t.Errorf("error = %v", r.err)
	}
	if s.Count() != before {
		t.Error("a request was sent without a key")
	}
}
