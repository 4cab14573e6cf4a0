package gemini

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

const secretKey = "AIzaSy-test-secret-0123456789"

// errorServer answers every request with status, the header fields and
// body, as JSON.
func errorServer(t *testing.T, status int, header http.Header, body string) *llmtest.Server {
	t.Helper()
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json; charset=UTF-8")
	return llmtest.NewServer(t, llmtest.Status(status, h, body))
}

func failWith(t *testing.T, srv *llmtest.Server) (*llm.Error, llm.Message) {
	t.Helper()
	req := &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL), Messages: []llm.Message{llm.UserText("ping")}}
	r := stream(t, New(Options{HTTPClient: srv.Client(), APIKey: staticKey(secretKey)}), req)
	var le *llm.Error
	if !errors.As(r.err, &le) {
		t.Fatalf("error %v (%T), want *llm.Error", r.err, r.err)
	}
	if r.msg.StopReason != llm.StopError || r.msg.ErrorCode != le.Code {
		t.Errorf("final message stop %q code %q, want error %q", r.msg.StopReason, r.msg.ErrorCode, le.Code)
	}
	for _, s := range []string{r.err.Error(), le.Message, r.msg.ErrorMessage} {
		if strings.Contains(s, secretKey) {
			t.Errorf("the API key leaked into %q", s)
		}
	}
	return le, r.msg
}

func TestRecordedUnauthenticated(t *testing.T) {
	body := readFixture(t, "errors/adk-vertex-401-unauthenticated.response.json")
	srv := errorServer(t, http.StatusUnauthorized, nil, string(body))
	le, _ := failWith(t, srv)
	if le.Code != llm.CodeAuth || le.Status != 401 || !errors.Is(le, llm.ErrAuth) {
		t.Errorf("code %q status %d, want auth 401", le.Code, le.Status)
	}
	if want := "API keys are not supported by this API"; !strings.Contains(le.Message, want) {
		t.Errorf("message %q lacks %q", le.Message, want)
	}
	last := srv.Last(t)
	query, h := last.Query, last.Header
	if got := h.Get("x-goog-api-key"); got != secretKey {
		t.Errorf("x-goog-api-key header %q, want the key", got)
	}
	if strings.Contains(query, secretKey) || strings.Contains(query, "key=") {
		t.Errorf("the key is in the URL query %q", query)
	}
}

func TestHTTPErrors(t *testing.T) {
	quota := `{"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details. Please retry in 13.5s.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []}, {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}]}}`
	tests := []struct {
		name    string
		status  int
		header  http.Header
		body    string
		code    llm.ErrorCode
		retry   time.Duration
		message string
	}{
		{"429 with Retry-After", 429, http.Header{"Retry-After": {"7"}},
			`{"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}`,
			llm.CodeRateLimit, 7 * time.Second, "Resource has been exhausted"},
		{"429 with RetryInfo only", 429, nil, quota, llm.CodeRateLimit, 13 * time.Second, "RESOURCE_EXHAUSTED: You exceeded your current quota"},
		{"429 as a JSON array", 429, nil, "[" + quota + "]", llm.CodeRateLimit, 13 * time.Second, "You exceeded your current quota"},
		{"500", 500, nil, `{"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}`,
			llm.CodeServerError, 0, "An internal error has occurred."},
		{"503 overloaded", 503, nil, `{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}`,
			llm.CodeOverloaded, 0, "The model is overloaded."},
		{"400 invalid key", 400, nil, `{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}`,
			llm.CodeAuth, 0, "API key not valid"},
		{"400 context overflow", 400, nil, `{"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}`,
			llm.CodeContextOverflow, 0, "exceeds the maximum number of tokens"},
		{"404 model", 404, nil, `{"error": {"code": 404, "message": "models/gemini-9 is not found for API version v1beta.", "status": "NOT_FOUND"}}`,
			llm.CodeModelNotFound, 0, "is not found"},
		{"key echoed back", 400, nil, `{"error": {"code": 400, "message": "bad key ` + secretKey + `", "status": "INVALID_ARGUMENT"}}`,
			llm.CodeFormat, 0, "bad key [REDACTED]"},
		{"plain text", 502, nil, "upstream connect error", llm.CodeServerError, 0, "upstream connect error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := errorServer(t, tt.status, tt.header, tt.body)
			le, _ := failWith(t, srv)
			if le.Code != tt.code || le.Status != tt.status || le.RetryAfter != tt.retry {
				t.Errorf("code %q status %d retry %v, want %q %d %v", le.Code, le.Status, le.RetryAfter, tt.code, tt.status, tt.retry)
			}
			if !strings.Contains(le.Message, tt.message) {
				t.Errorf("message %q lacks %q", le.Message, tt.message)
			}
		})
	}
}

func TestAPIKeyResolverError(t *testing.T) {
	srv := sseServer(t, nil)
	c := New(Options{HTTPClient: srv.Client(), APIKey: func(ctx context.Context) (string, error) {
		return "", errors.New("keyring locked")
	}})
	r := stream(t, c, &llm.Request{Model: testModel("gemini-2.5-flash", srv.URL)})
	if llm.CodeOf(r.err) != llm.CodeAuth || !strings.Contains(r.err.Error(), "keyring locked") {
		t.Errorf("error %v, want an auth error naming the cause", r.err)
	}
}
