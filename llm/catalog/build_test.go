package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/llm/openai"
)

// fixture files replayed by the test server, by path suffix.
var fixtures = map[string]string{
	"/messages":              "../../testdata/providers/anthropic-messages/fantasy-sonnet4-text.sse",
	"/chat/completions":      "../../testdata/providers/openai-chat/fantasy-gpt4o-mini-text.sse",
	"/responses":             "../../testdata/providers/openai-responses/fantasy-gpt4o-mini-text.sse",
	":streamGenerateContent": "../../testdata/providers/gemini/adk-gemini25flash-text.sse",
}

// seen is one request the test server received.
type seen struct {
	Path string
	Key  string // whichever credential header was sent
	Body map[string]any
}

// server replays recorded streams. fail, when set, may answer a request
// with an error status and body instead.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
	fail func(s seen) (int, string)
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		sn := seen{Path: r.URL.Path}
		json.Unmarshal(raw, &sn.Body)
		switch {
		case r.Header.Get("x-api-key") != "":
			sn.Key = r.Header.Get("x-api-key")
		case r.Header.Get("x-goog-api-key") != "":
			sn.Key = r.Header.Get("x-goog-api-key")
		default:
			sn.Key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, sn)
		fail := s.fail
		s.mu.Unlock()
		if fail != nil {
			if code, body := fail(sn); code != 0 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(code)
				io.WriteString(w, body)
				return
			}
		}
		for suffix, file := range fixtures {
			if strings.HasSuffix(r.URL.Path, suffix) {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("fixture: %v", err)
				}
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(data)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) Seen() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

func catalogWith(t *testing.T, cfgJSON string, env func(string) string) *Catalog {
	t.Helper()
	cfg, warns, err := ParseConfig("test.json", []byte(cfgJSON))
	if err != nil || len(warns) > 0 {
		t.Fatalf("config: %v %v", err, warns)
	}
	return New(Options{Config: cfg, Getenv: env})
}

func ask(t *testing.T, b *Built) (llm.Message, error) {
	t.Helper()
	req := &llm.Request{Model: b.Model, Messages: []llm.Message{llm.UserText("What is the capital of France?")}, MaxTokens: 100}
	return llm.Collect(context.Background(), b.Provider, req)
}

func TestBuildEachProviderKind(t *testing.T) {
	srv := newServer(t)
	c := catalogWith(t, `{"providers": {
		"anthropic": {"base_url": "`+srv.URL+`"},
		"openai": {"base_url": "`+srv.URL+`/v1"},
		"gemini": {"base_url": "`+srv.URL+`/v1beta"}}}`,
		envMap("ANTHROPIC_API_KEY", "ant-key", "OPENAI_API_KEY", "oai-key", "GOOGLE_API_KEY", "goog-key"))
	tests := []struct {
		ref, path, key string
		api            llm.API
	}{
		{"sonnet", "/v1/messages", "ant-key", llm.APIAnthropicMessages},
		{"openai/gpt-6.2-sol", "/v1/responses", "oai-key", llm.APIOpenAIResponses},
		{"openai/gpt-4o", "/v1/chat/completions", "oai-key", llm.APIOpenAIChat},
		{"gemini/gemini-2.5-flash", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "goog-key", llm.APIGemini},
	}
	for i, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			r, err := c.Resolve(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.Build(r.Model, BuildOptions{HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			if b.Failover || b.Model.API != tt.api {
				t.Errorf("built failover=%v api=%s", b.Failover, b.Model.API)
			}
			msg, err := ask(t, b)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Text() == "" || msg.StopReason != llm.StopEnd {
				t.Errorf("reply %+v", msg)
			}
			got := srv.Seen()[i]
			if got.Path != tt.path || got.Key != tt.key {
				t.Errorf("request path %s key %q, want %s %q", got.Path, got.Key, tt.path, tt.key)
			}
		})
	}
}

func TestBuildWithBaseURLOverride(t *testing.T) {
	srv := newServer(t)
	c := New(Options{Getenv: envMap()})

	// Any OpenAI-compatible server, no key needed.
	r, err := c.Resolve("openai/qwen3-coder")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Build(r.Model, BuildOptions{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Model.API != llm.APIOpenAIChat || b.Model.BaseURL != srv.URL+"/v1" {
		t.Errorf("model = %+v", b.Model)
	}
	if _, err := ask(t, b); err != nil {
		t.Fatal(err)
	}
	got := srv.Seen()[0]
	if got.Path != "/v1/chat/completions" || got.Key != "" || got.Body["model"] != "qwen3-coder" {
		t.Errorf("request %+v", got)
	}
	// openai.CompatFor chose the generic behaviour for this host.
	if _, ok := got.Body["max_tokens"]; !ok || got.Body["max_completion_tokens"] != nil {
		t.Errorf("body does not follow the generic compat: %v", got.Body)
	}

	// A catalog reasoning model through another host goes over Chat too.
	r, _ = c.Resolve("gpt")
	b, err = c.Build(r.Model, BuildOptions{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil || b.Model.API != llm.APIOpenAIChat {
		t.Fatalf("gpt through base URL: %+v %v", b, err)
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "Chat Completions") || !strings.Contains(b.Notes[0], `"openai-responses"`) {
		t.Errorf("the switch to Chat Completions is not explained: %q", b.Notes)
	}

	// An Anthropic-compatible server, with the usual key if set.
	c = New(Options{Getenv: envMap("ANTHROPIC_API_KEY", "ant-key")})
	r, _ = c.Resolve("anthropic/some-proxy-model")
	b, err = c.Build(r.Model, BuildOptions{BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, b); err != nil {
		t.Fatal(err)
	}
	got = srv.Seen()[1]
	if got.Path != "/v1/messages" || got.Key != "ant-key" || got.Body["model"] != "some-proxy-model" {
		t.Errorf("request %+v", got)
	}

	if _, err := c.Build(r.Model, BuildOptions{BaseURL: "localhost:8080"}); err == nil || !strings.Contains(err.Error(), "not an absolute URL") {
		t.Errorf("bad base URL: %v", err)
	}
}

func TestBuildUserProviderWithCompat(t *testing.T) {
	srv := newServer(t)
	c := catalogWith(t, `{
		"providers": {"local": {"api": "openai-chat", "base_url": "`+srv.URL+`/v1", "api_key_env": "LOCAL_KEY",
			"headers": {"X-Team": "platform"}, "compat": {"no_stream_options": true}, "default_model": "m"}},
		"models": [{"provider": "local", "id": "m", "context_window": 32768, "max_output": 4096}]}`,
		envMap("LOCAL_KEY", "local-key"))
	r, err := c.Resolve("local")
	if err != nil || !r.Known {
		t.Fatalf("%+v %v", r, err)
	}
	b, err := c.Build(r.Model, BuildOptions{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, b); err != nil {
		t.Fatal(err)
	}
	got := srv.Seen()[0]
	if got.Key != "local-key" || got.Body["stream_options"] != nil || got.Body["max_completion_tokens"] == nil {
		t.Errorf("request %+v: want the configured compat (no stream_options, max_completion_tokens)", got)
	}
}

func TestBuildMissingKey(t *testing.T) {
	c := New(Options{Getenv: envMap("HOME", "/home/u")})
	r, _ := c.Resolve("sonnet")
	_, err := c.Build(r.Model, BuildOptions{})
	var mk *MissingKeyError
	if !errors.As(err, &mk) {
		t.Fatalf("err = %v", err)
	}
	want := "no API key for provider anthropic: $ANTHROPIC_API_KEY is empty or unset; set ANTHROPIC_API_KEY, or fill providers.anthropic.api_key_env (or api_key / api_key_command) in /home/u/.config/rein/config.json"
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	// A local server needs none.
	r, _ = c.Resolve("ollama/llama4")
	if _, err := c.Build(r.Model, BuildOptions{}); err != nil {
		t.Errorf("ollama: %v", err)
	}
	// A fallback without a key is named.
	c = catalogWith(t, `{"fallbacks": ["gpt"]}`, envMap("ANTHROPIC_API_KEY", "k"))
	r, _ = c.Resolve("sonnet")
	_, err = c.Build(r.Model, BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "fallback openai/gpt-6.2-sol") || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("fallback without key: %v", err)
	}
	// Profiles whose keys are all missing.
	c = catalogWith(t, `{"providers": {"anthropic": {"profiles": [{"name": "a", "api_key_env": "A"}, {"name": "b", "api_key_env": "B"}]}}}`, envMap())
	_, err = c.Build(r.Model, BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "profile a") || !strings.Contains(err.Error(), "profile b") || !strings.Contains(err.Error(), "providers.anthropic.profiles[1]") {
		t.Errorf("profiles without keys: %v", err)
	}
}

func TestBuildFailoverRotatesProfiles(t *testing.T) {
	const keyA, keyB = "sk-ant-profile-a-0000", "sk-ant-profile-b-1111"
	srv := newServer(t)
	srv.fail = func(s seen) (int, string) {
		if s.Key == keyA {
			return 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + keyA + `"}}`
		}
		return 0, ""
	}
	state := t.TempDir() + "/cooldowns.json"
	c := catalogWith(t, `{"providers": {"anthropic": {"base_url": "`+srv.URL+`",
		"profiles": [{"name": "a", "api_key_env": "KEY_A"}, {"name": "b", "api_key": "`+keyB+`"}]}}}`,
		envMap("KEY_A", keyA))
	var mu sync.Mutex
	var events []failover.Event
	r, _ := c.Resolve("sonnet")
	b, err := c.Build(r.Model, BuildOptions{HTTPClient: srv.Client(), StatePath: state,
		Failover: failover.Options{OnEvent: func(e failover.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Failover {
		t.Fatal("profiles did not make a failover")
	}
	if _, err := ask(t, b); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range srv.Seen() {
		keys = append(keys, s.Key)
	}
	if diff := cmp.Diff([]string{keyA, keyB}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	var kinds []failover.EventKind
	for _, e := range events {
		kinds = append(kinds, e.Kind)
		for _, k := range []string{keyA, keyB} {
			if strings.Contains(e.String(), k) {
				t.Errorf("event shows a key: %s", e)
			}
		}
	}
	if diff := cmp.Diff([]failover.EventKind{failover.EventCooldown, failover.EventRotate}, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if events[0].Profile != "anthropic:a" {
		t.Errorf("cooldown event %+v", events[0])
	}
	data, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(data), "anthropic:a") || strings.Contains(string(data), keyA) {
		t.Errorf("state file: %v\n%s", err, data)
	}
}

func TestBuildFallbackChain(t *testing.T) {
	const antKey, oaiKey = "sk-ant-fallback-test-9", "sk-oai-fallback-test-8"
	srv := newServer(t)
	srv.fail = func(s seen) (int, string) {
		if strings.HasSuffix(s.Path, "/messages") {
			return 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded ` + antKey + `"}}`
		}
		if s.Body["model"] == "gpt-4.1" {
			return 402, `{"error":{"message":"billing: add credit, key ` + oaiKey + `"}}`
		}
		return 0, ""
	}
	c := catalogWith(t, `{
		"fallbacks": ["openai/gpt-4.1", "openai/gpt-4o", "sonnet"],
		"providers": {"anthropic": {"base_url": "`+srv.URL+`"}, "openai": {"base_url": "`+srv.URL+`/v1"}},
		"failover": {"max_attempts": 2, "base_delay": "10ms"}}`,
		envMap("ANTHROPIC_API_KEY", antKey, "OPENAI_API_KEY", oaiKey))
	r, _ := c.Resolve("sonnet")
	var slept []time.Duration
	b, err := c.Build(r.Model, BuildOptions{HTTPClient: srv.Client(), Failover: failover.Options{
		Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil },
		Rand:  func() float64 { return 0.5 },
	}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"anthropic/claude-sonnet-5-5", "openai/gpt-4.1", "openai/gpt-4o"}, b.Chain); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	msg, err := ask(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Model == "" || msg.Text() == "" {
		t.Errorf("reply %+v", msg)
	}
	var paths []string
	for _, s := range srv.Seen() {
		paths = append(paths, s.Path+" "+s.Body["model"].(string))
	}
	want := []string{"/v1/messages claude-sonnet-5-5", "/v1/messages claude-sonnet-5-5", "/v1/chat/completions gpt-4.1", "/v1/chat/completions gpt-4o"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Millisecond}, slept); diff != "" {
		t.Errorf("backoff from the config (-want +got):\n%s", diff)
	}

	// When every target fails, the error lists them and shows no key.
	srv.mu.Lock()
	srv.fail = func(s seen) (int, string) {
		// Each server echoes the key it was sent.
		return 401, `{"error":{"message":"bad key ` + s.Key + `"}}`
	}
	srv.mu.Unlock()
	_, err = ask(t, b)
	if err == nil {
		t.Fatal("expected failure")
	}
	for _, s := range []string{"anthropic/claude-sonnet-5-5", "openai/gpt-4.1", "openai/gpt-4o", "auth"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("final error lacks %q: %v", s, err)
		}
	}
	if strings.Contains(err.Error(), antKey) || strings.Contains(err.Error(), oaiKey) {
		t.Errorf("key leaked: %v", err)
	}
}

func TestBuildRejectsUnknownProviderAndAPI(t *testing.T) {
	c := New(Options{Getenv: envMap()})
	if _, err := c.Build(llm.Model{Provider: "nope", ID: "x"}, BuildOptions{}); !errors.Is(err, ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := c.Build(llm.Model{Provider: "ollama", ID: "x", API: llm.APIFaux}, BuildOptions{}); err == nil || !strings.Contains(err.Error(), "cannot build a client") {
		t.Errorf("faux API: %v", err)
	}
	c = catalogWith(t, `{"fallbacks": ["nosuch/model"]}`, envMap())
	r, _ := c.Resolve("ollama/x")
	if _, err := c.Build(r.Model, BuildOptions{}); err == nil || !strings.Contains(err.Error(), `fallback "nosuch/model"`) {
		t.Errorf("bad fallback: %v", err)
	}
}

func TestStateFileFromConfig(t *testing.T) {
	home := t.TempDir()
	c := catalogWith(t, `{"fallbacks": ["ollama/b"], "failover": {"state_file": "~/state/cd.json"}}`, envMap("HOME", home))
	if got := c.expandHome(c.Config().Failover.StateFile); got != home+"/state/cd.json" {
		t.Errorf("expanded = %s", got)
	}
	r, _ := c.Resolve("ollama/a")
	b, err := c.Build(r.Model, BuildOptions{})
	if err != nil || !b.Failover {
		t.Fatalf("%+v %v", b, err)
	}
	if diff := cmp.Diff([]string{"ollama/a", "ollama/b"}, b.Chain); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "ollama/b") {
		t.Errorf("notes = %v", b.Notes)
	}
}

func TestCompatMirrorsOpenAI(t *testing.T) {
	ours := reflect.TypeFor[Compat]()
	theirs := reflect.TypeFor[openai.Compat]()
	if ours.NumField() != theirs.NumField() {
		t.Fatalf("catalog.Compat has %d fields, openai.Compat %d", ours.NumField(), theirs.NumField())
	}
	for i := range theirs.NumField() {
		f := theirs.Field(i)
		g, ok := ours.FieldByName(f.Name)
		if !ok || g.Type != f.Type {
			t.Errorf("openai.Compat.%s (%s) has no counterpart", f.Name, f.Type)
		}
	}
	// Every switch is carried over.
	in := Compat{true, true, "max_tokens", "reasoning", "reasoning_content", true, true, true, 64}
	got := in.openai()
	want := openai.Compat{NoDeveloperRole: true, NoStreamOptions: true, MaxTokensField: "max_tokens", ReasoningField: "reasoning",
		ReplayReasoningField: "reasoning_content", NoReasoningEffort: true, ReasoningObject: true, NoPromptCacheKey: true, MaxToolCallIDLength: 64}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compat (-want +got):\n%s", diff)
	}
}

// With one key and no fallback, a rate limit is still retried, and a
// cooldown lands in the default state file.
func TestBuildSingleKeyRetries(t *testing.T) {
	srv := newServer(t)
	var calls int
	srv.fail = func(s seen) (int, string) {
		if calls++; calls == 1 {
			return 429, `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`
		}
		return 0, ""
	}
	state := t.TempDir() + "/state/cooldowns.json"
	c := catalogWith(t, `{}`, envMap("OPENAI_API_KEY", "sk-test"))
	r, err := c.Resolve("openai/gpt-4o-mini")
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	b, err := c.Build(r.Model, BuildOptions{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client(), DefaultStatePath: state,
		Failover: failover.Options{Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Failover {
		t.Error("one key without fallbacks reported as rotating or falling back")
	}
	m, err := ask(t, b)
	if err != nil || m.StopReason != llm.StopEnd || len(srv.Seen()) != 2 {
		t.Fatalf("after a 429: %v %v, %d requests", m.StopReason, err, len(srv.Seen()))
	}
	if len(slept) != 1 {
		t.Errorf("slept %v, want one backoff", slept)
	}
	// A rejected key goes into a cooldown kept in the default state file.
	srv.fail = func(seen) (int, string) {
		return 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`
	}
	if m, _ := ask(t, b); m.StopReason != llm.StopError || m.ErrorCode != llm.CodeAuth {
		t.Fatalf("after a 401: %v %v", m.StopReason, m.ErrorCode)
	}
	if data, err := os.ReadFile(state); err != nil || !strings.Contains(string(data), "openai:default") {
		t.Errorf("default state file: %v\n%s", err, data)
	}
}

// A provider's idle_timeout bounds the wait for a silent server.
func TestBuildIdleTimeoutFromConfig(t *testing.T) {
	srv := newServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv.fail = func(seen) (int, string) {
		<-release
		return 0, ""
	}
	c := catalogWith(t, `{"providers": {"slow": {"api": "openai-chat", "base_url": "`+srv.URL+`/v1", "no_key": true, "idle_timeout": "50ms"}},
		"failover": {"max_attempts": 1}}`, envMap())
	r, _ := c.Resolve("slow/m")
	b, err := c.Build(r.Model, BuildOptions{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	m, _ := ask(t, b)
	if m.StopReason != llm.StopError || m.ErrorCode != llm.CodeTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("stop %v code %v after %v", m.StopReason, m.ErrorCode, time.Since(start))
	}
}
