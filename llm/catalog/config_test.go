package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfigMergesProjectOverUser(t *testing.T) {
	home := t.TempDir()
	ws := t.TempDir()
	userFile := filepath.Join(home, ".config", "rein", "config.json")
	projFile := filepath.Join(ws, ".rein", "config.json")
	writeFile(t, userFile, `{
		"model": "sonnet",
		"fallbacks": ["gpt"],
		"aliases": {"a": "opus", "b": "haiku"},
		"providers": {
			"anthropic": {"api_key_env": "USER_KEY", "headers": {"X-A": "1", "X-B": "1"}},
			"local": {"api": "openai-chat", "base_url": "http://127.0.0.1:8080/v1", "default_model": "m1"}
		},
		"models": [{"provider": "local", "id": "m1", "context_window": 1000, "max_output": 100}],
		"failover": {"max_attempts": 2, "state_file": "/tmp/user-state.json"}
	}`)
	writeFile(t, projFile, `{
		"model": "opus",
		"aliases": {"b": "fable"},
		"providers": {
			"anthropic": {"api_key_command": "echo project", "headers": {"X-B": "2"}},
			"local": {"base_url": "http://127.0.0.1:9090/v1"}
		},
		"models": [{"provider": "local", "id": "m1", "max_output": 200}, {"provider": "local", "id": "m2", "context_window": 5}],
		"failover": {"max_attempts": 3}
	}`)
	cfg, warns, err := LoadConfig(ws, envMap("HOME", home))
	if err != nil || len(warns) != 0 {
		t.Fatalf("load: %v %v", err, warns)
	}
	want := &Config{
		Model:     "opus",
		Fallbacks: []string{"gpt"},
		Aliases:   map[string]string{"a": "opus", "b": "fable"},
		Providers: map[string]ProviderConfig{
			"anthropic": {Headers: map[string]string{"X-A": "1", "X-B": "2"}, KeyConfig: KeyConfig{APIKeyCommand: "echo project"}},
			"local":     {API: llm.APIOpenAIChat, BaseURL: "http://127.0.0.1:9090/v1", DefaultModel: "m1"},
		},
		Models: []llm.Model{
			{Provider: "local", ID: "m1", ContextWindow: 1000, MaxOutput: 200},
			{Provider: "local", ID: "m2", ContextWindow: 5},
		},
		Failover: FailoverConfig{MaxAttempts: 3, StateFile: "/tmp/user-state.json"},
		Files:    []string{userFile, projFile},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("merged config (-want +got):\n%s", diff)
	}

	// XDG_CONFIG_HOME wins over HOME; a missing project file is skipped.
	xdg := t.TempDir()
	writeFile(t, filepath.Join(xdg, "rein", "config.json"), `{"model": "gemini"}`)
	cfg, _, err = LoadConfig(t.TempDir(), envMap("HOME", home, "XDG_CONFIG_HOME", xdg))
	if err != nil || cfg.Model != "gemini" || len(cfg.Files) != 1 {
		t.Errorf("xdg config: %+v %v", cfg, err)
	}
	// No files at all is an empty config.
	cfg, _, err = LoadConfig("", envMap())
	if err != nil || cfg.Model != "" {
		t.Errorf("empty: %+v %v", cfg, err)
	}
}

func TestConfigPaths(t *testing.T) {
	if got := UserConfigPath(envMap("HOME", "/h")); got != "/h/.config/rein/config.json" {
		t.Errorf("user path = %s", got)
	}
	if got := UserConfigPath(envMap("HOME", "/h", "XDG_CONFIG_HOME", "/x")); got != "/x/rein/config.json" {
		t.Errorf("xdg path = %s", got)
	}
	if got := ProjectConfigPath("/ws"); got != "/ws/.rein/config.json" {
		t.Errorf("project path = %s", got)
	}
	if got := DefaultStatePath(envMap("HOME", "/h")); got != "/h/.local/state/rein/cooldowns.json" {
		t.Errorf("state path = %s", got)
	}
	if got := DefaultStatePath(envMap("XDG_STATE_HOME", "/s")); got != "/s/rein/cooldowns.json" {
		t.Errorf("xdg state path = %s", got)
	}
	if UserConfigPath(envMap()) != "" || DefaultStatePath(envMap()) != "" {
		t.Error("paths without HOME")
	}
}

func TestMalformedConfigErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name, content string
		line, col     int
		want          string
	}{
		{"missing comma", "{\n  \"model\": \"opus\"\n  \"fallbacks\": []\n}", 3, 3, "malformed JSON: invalid character '\"' after object key:value pair"},
		{"trailing comma", "{\n  \"model\": \"opus\",\n}", 3, 1, "malformed JSON"},
		{"truncated", "{\"model\": ", 1, 10, "malformed JSON: unexpected end of JSON input"},
		{"wrong type", "{\n  \"providers\": {\"x\": {\"api\": \"openai-chat\", \"headers\": {\"a\": 5}}}\n}", 2, 62, `providers.headers: cannot use a JSON number here, want a string`},
		{"array for object", "{\"providers\": []}", 1, 15, "providers: cannot use a JSON array here, want an object"},
		{"string for number", "{\"models\": [{\"provider\": \"p\", \"id\": \"m\", \"context_window\": \"big\"}]}", 1, 60, "models.context_window: cannot use a JSON string here, want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseConfig("/cfg/config.json", []byte(tt.content))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			if ce.Line != tt.line || ce.Col != tt.col || ce.File != "/cfg/config.json" {
				t.Errorf("position %s:%d:%d, want line %d col %d", ce.File, ce.Line, ce.Col, tt.line, tt.col)
			}
			prefix := fmt.Sprintf("config /cfg/config.json:%d:%d: ", tt.line, tt.col)
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want prefix %q and %q", err, prefix, tt.want)
			}
		})
	}
}

func TestInvalidSettings(t *testing.T) {
	tests := []struct{ content, want string }{
		{`{"providers": {"x": {"api": "soap"}}}`, `providers.x.api: unknown API "soap"`},
		{`{"providers": {"x": {"base_url": "localhost:8080"}}}`, "providers.x.base_url"},
		{`{"providers": {"x": {"api_key": "k", "api_key_env": "K"}}}`, "set only one of api_key, api_key_env and api_key_command"},
		{`{"providers": {"x": {"api_key_env": "$KEY"}}}`, "without '$'"},
		{`{"providers": {"x": {"profiles": [{"api_key_env": "A"}]}}}`, "every profile needs a name"},
		{`{"providers": {"x": {"profiles": [{"name": "a"}]}}}`, `profile "a" needs one of api_key, api_key_env or api_key_command`},
		{`{"providers": {"x": {"profiles": [{"name": "a", "api_key_env": "A"}, {"name": "a", "api_key_env": "B"}]}}}`, `profile "a" appears twice`},
		{`{"providers": {"a/b": {}}}`, "a provider name must be non-empty"},
		{`{"models": [{"id": "m"}]}`, `models[0]: a model needs both "provider" and "id"`},
		{`{"models": [{"provider": "p", "id": "m", "api": "x"}]}`, `models[0].api: unknown API "x"`},
		{`{"models": [{"provider": "p", "id": "m", "max_output": -1}]}`, "must not be negative"},
		{`{"aliases": {"a/b": "opus"}}`, "aliases.a/b"},
		{`{"failover": {"max_attempts": -1}}`, "failover.max_attempts"},
		{`{"failover": {"base_delay": "soon"}}`, `invalid duration "soon"`},
	}
	for _, tt := range tests {
		_, _, err := ParseConfig("c.json", []byte(tt.content))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "config c.json") {
			t.Errorf("%s: err = %v, want %q", tt.content, err, tt.want)
		}
	}
	// Several problems are reported together.
	_, _, err := ParseConfig("c.json", []byte(`{"providers": {"x": {"api": "soap"}, "y": {"api": "grpc"}}}`))
	if err == nil || !strings.Contains(err.Error(), "soap") || !strings.Contains(err.Error(), "grpc") {
		t.Errorf("joined errors: %v", err)
	}
}

func TestUnknownFieldsWarn(t *testing.T) {
	content := `{
  "modle": "opus",
  "providers": {
    "local": {"api": "openai-chat", "bse_url": "http://x", "compat": {"max_token_field": "max_tokens"},
              "profiles": [{"name": "a", "api_key_env": "A", "weight": 2}]}
  },
  "models": [{"provider": "local", "id": "m", "context_windw": 5, "price": {"inptu": 1}}],
  "Model": "case-insensitive match is accepted",
  "extra": {"nested": {"deep": [1, {"x": 2}]}}
}`
	cfg, warns, err := ParseConfig("w.json", []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		`w.json:2:3: unknown field "modle" at the top level is ignored (did you mean "model"?)`,
		`w.json:4:37: unknown field "bse_url" in providers.local is ignored (did you mean "base_url"?)`,
		`w.json:4:71: unknown field "max_token_field" in providers.local.compat is ignored (did you mean "max_tokens_field"?)`,
		`w.json:5:62: unknown field "weight" in providers.local.profiles[0] is ignored`,
		`w.json:7:47: unknown field "context_windw" in models[0] is ignored (did you mean "context_window"?)`,
		`w.json:7:77: unknown field "inptu" in models[0].price is ignored (did you mean "input"?)`,
		`w.json:9:3: unknown field "extra" at the top level is ignored`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if cfg.Providers["local"].API != llm.APIOpenAIChat {
		t.Errorf("known fields next to unknown ones were lost: %s", cfg)
	}
}

func TestDuration(t *testing.T) {
	var f FailoverConfig
	if _, _, err := ParseConfig("d.json", []byte(`{"failover": {"base_delay": "1.5s", "max_delay": 45}}`)); err != nil {
		t.Fatal(err)
	}
	cfg, _, _ := ParseConfig("d.json", []byte(`{"failover": {"base_delay": "1.5s", "max_delay": 45}}`))
	f = cfg.Failover
	if time.Duration(f.BaseDelay) != 1500*time.Millisecond || time.Duration(f.MaxDelay) != 45*time.Second {
		t.Errorf("durations %v %v", time.Duration(f.BaseDelay), time.Duration(f.MaxDelay))
	}
	b, err := Duration(90 * time.Second).MarshalJSON()
	if err != nil || string(b) != `"1m30s"` {
		t.Errorf("marshal = %s %v", b, err)
	}
	for _, bad := range []string{`"-1s"`, `-3`, `true`} {
		var d Duration
		if d.UnmarshalJSON([]byte(bad)) == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestEmptyAndUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	writeFile(t, empty, "  \n")
	cfg, _, err := LoadFiles(empty, filepath.Join(dir, "missing.json"))
	if err != nil || len(cfg.Files) != 1 {
		t.Errorf("empty file: %+v %v", cfg, err)
	}
	// A directory where a file is expected cannot be read.
	_, _, err = LoadFiles(dir)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.File != dir {
		t.Errorf("directory: %v", err)
	}
	// A malformed file stops loading and names itself.
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, "{\n\"model\": }")
	_, _, err = LoadFiles(empty, bad)
	if err == nil || !strings.Contains(err.Error(), bad+":2:10") {
		t.Errorf("malformed: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add(`{"model": "opus", "providers": {"x": {"api": "openai-chat", "base_url": "http://h/v1", "profiles": [{"name": "a", "api_key": "k"}]}}}`)
	f.Add(`{"models": [{"provider": "p", "id": "m", "price": {"input": 1}, "headers": {"a": "b"}}], "bogus": [1, {"a": null}]}`)
	f.Add(`{"failover": {"base_delay": "1s"}}`)
	f.Add(`[`)
	f.Add(`{"a": "\"quoted\"", "b\"c": 1}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, content string) {
		cfg, warns, err := ParseConfig("f.json", []byte(content))
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error is not a *ConfigError: %v", err)
			}
			if ce.Line < 0 || ce.Col < 0 {
				t.Fatalf("negative position: %v", err)
			}
			return
		}
		for _, w := range warns {
			if w.Line < 1 || w.Col < 1 {
				t.Fatalf("warning without position: %v", w)
			}
		}
		c := New(Options{Config: cfg, Getenv: envMap()})
		for _, ref := range append([]string{cfg.Model}, cfg.Fallbacks...) {
			c.Resolve(ref)
		}
		_ = cfg.String()
	})
}
