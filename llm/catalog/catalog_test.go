package catalog

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/llm"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// envMap is an injected environment.
func envMap(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestBuiltinCatalogIsConsistent(t *testing.T) {
	ms := Builtin()
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, m := range ms {
		key := m.Provider + "/" + m.ID
		if seen[key] {
			t.Errorf("%s appears twice", key)
		}
		seen[key] = true
		counts[m.Provider]++
		if m.ContextWindow <= 0 || m.MaxOutput <= 0 || m.MaxOutput > m.ContextWindow {
			t.Errorf("%s: window %d, output %d", key, m.ContextWindow, m.MaxOutput)
		}
		if m.Price.Input <= 0 || m.Price.Output < m.Price.Input || m.Price.CacheRead >= m.Price.Input {
			t.Errorf("%s: implausible price %+v", key, m.Price)
		}
		if m.Name == "" || len(m.Input) == 0 {
			t.Errorf("%s: missing name or input kinds", key)
		}
		wantAPI := map[string]llm.API{Anthropic: llm.APIAnthropicMessages, Gemini: llm.APIGemini}[m.Provider]
		if m.Provider == OpenAI {
			wantAPI = llm.APIOpenAIChat
			if m.Reasoning {
				wantAPI = llm.APIOpenAIResponses
			}
		}
		if m.API != wantAPI {
			t.Errorf("%s: api %s, want %s", key, m.API, wantAPI)
		}
	}
	for _, want := range []string{
		"anthropic/claude-opus-5-5", "anthropic/claude-sonnet-5-5", "anthropic/claude-haiku-5-5", "anthropic/claude-haiku-4-5",
		"openai/gpt-6.2-sol", "openai/gpt-5", "openai/gpt-5-mini", "openai/gpt-4.1", "openai/gpt-4o", "openai/o3", "openai/o4-mini",
		"gemini/gemini-2.5-pro", "gemini/gemini-2.5-flash", "gemini/gemini-3.1-pro-preview", "gemini/gemini-3-flash-preview", "gemini/gemini-3.8-flash",
	} {
		if !seen[want] {
			t.Errorf("catalog lacks %s", want)
		}
	}
	// Builtin returns fresh values.
	ms[0].Input[0] = "mutated"
	if Builtin()[0].Input[0] == "mutated" {
		t.Error("Builtin shares state between calls")
	}
	c := New(Options{Getenv: envMap()})
	for p, ref := range builtinAliases() {
		if _, err := c.Resolve(ref); err != nil {
			t.Errorf("alias %s → %s: %v", p, ref, err)
		} else if r, _ := c.Resolve(ref); !r.Known {
			t.Errorf("alias %s → %s is not in the catalog", p, ref)
		}
	}
	for _, name := range []string{Anthropic, OpenAI, Gemini} {
		if r, err := c.Resolve(name); err != nil || !r.Known {
			t.Errorf("default model of %s: %+v %v", name, r, err)
		}
	}
}

func TestResolve(t *testing.T) {
	cfg, _, err := ParseConfig("cfg.json", []byte(`{
		"model": "opus",
		"aliases": {"mine": "local/qwen3", "fast": "flash"},
		"providers": {"local": {"api": "openai-chat", "base_url": "http://127.0.0.1:8080/v1", "no_key": true, "default_model": "qwen3"}},
		"models": [
			{"provider": "local", "id": "qwen3", "context_window": 262144, "max_output": 32768},
			{"provider": "anthropic", "id": "claude-opus-5-5", "max_output": 64000}
		]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: cfg, Getenv: envMap()})
	tests := []struct {
		ref      string
		provider string
		id       string
		known    bool
		api      llm.API
		window   int
		maxOut   int
	}{
		{"anthropic/claude-sonnet-5-5", "anthropic", "claude-sonnet-5-5", true, llm.APIAnthropicMessages, 1_000_000, 128_000},
		{"sonnet", "anthropic", "claude-sonnet-5-5", true, llm.APIAnthropicMessages, 1_000_000, 128_000},
		{"  haiku ", "anthropic", "claude-haiku-5-5", true, llm.APIAnthropicMessages, 1_000_000, 128_000},
		{"gpt", "openai", "gpt-6.2-sol", true, llm.APIOpenAIResponses, 1_050_000, 128_000},
		{"gemini", "gemini", "gemini-3.8-flash", true, llm.APIGemini, 1_048_576, 65_536},
		{"fast", "gemini", "gemini-3.8-flash", true, llm.APIGemini, 1_048_576, 65_536},
		{"openai/gpt-4o", "openai", "gpt-4o", true, llm.APIOpenAIChat, 128_000, 16_384},
		{"gpt-4.1-mini", "openai", "gpt-4.1-mini", true, llm.APIOpenAIChat, 1_047_576, 32_768},
		{"", "anthropic", "claude-opus-5-5", true, llm.APIAnthropicMessages, 1_000_000, 64_000}, // config default, overridden max_output
		{"opus", "anthropic", "claude-opus-5-5", true, llm.APIAnthropicMessages, 1_000_000, 64_000},
		{"mine", "local", "qwen3", true, llm.APIOpenAIChat, 262_144, 32_768},
		{"local", "local", "qwen3", true, llm.APIOpenAIChat, 262_144, 32_768},
		{"openai/gpt-7-preview", "openai", "gpt-7-preview", false, llm.APIOpenAIResponses, DefaultContextWindow, DefaultMaxOutput},
		{"openai/my-finetune", "openai", "my-finetune", false, llm.APIOpenAIChat, DefaultContextWindow, DefaultMaxOutput},
		{"claude-next", "anthropic", "claude-next", false, llm.APIAnthropicMessages, DefaultContextWindow, DefaultMaxOutput},
		{"openrouter/anthropic/claude-opus-5-5", "openrouter", "anthropic/claude-opus-5-5", false, llm.APIOpenAIChat, DefaultContextWindow, DefaultMaxOutput},
		{"ollama/qwen3-coder:30b", "ollama", "qwen3-coder:30b", false, llm.APIOpenAIChat, DefaultContextWindow, DefaultMaxOutput},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			r, err := c.Resolve(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Model
			got := []any{m.Provider, m.ID, r.Known, m.API, m.ContextWindow, m.MaxOutput, m.Assumed}
			want := []any{tt.provider, tt.id, tt.known, tt.api, tt.window, tt.maxOut, !tt.known}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("resolution (-want +got):\n%s", diff)
			}
			if r.Known != (r.Note == "") {
				t.Errorf("known %v with note %q", r.Known, r.Note)
			}
			if !r.Known {
				for _, s := range []string{`"models"`, `"provider": "` + tt.provider + `"`, `"id": "` + tt.id + `"`, `"context_window"`, "128000"} {
					if !strings.Contains(r.Note, s) {
						t.Errorf("note lacks %s: %s", s, r.Note)
					}
				}
				if m.Price != (llm.Price{}) || m.AcceptsImages() {
					t.Errorf("unknown model is not conservative: %+v", m)
				}
			}
		})
	}
	// The config override kept the other built-in fields.
	r, _ := c.Resolve("opus")
	if r.Model.Price.Input != 4 || r.Model.Name != "Claude Opus 5.5" || !r.Model.Reasoning {
		t.Errorf("override lost built-in fields: %+v", r.Model)
	}
	// Resolutions do not share state with the catalog.
	r.Model.Input[0] = "x"
	if r2, _ := c.Resolve("opus"); r2.Model.Input[0] != llm.InputText {
		t.Error("Resolve returns shared slices")
	}
}

func TestResolveErrors(t *testing.T) {
	cfg := &Config{Aliases: map[string]string{"loop": "loop2", "loop2": "loop"}}
	c := New(Options{Config: cfg, Getenv: envMap()})
	tests := []struct{ ref, want string }{
		{"nosuch/model", `unknown provider "nosuch"`},
		{"openai/", "names no model"},
		{"ollama", "has no default model"},
		{"mystery-model", "write it as provider/model"},
		{"loop", "write it as provider/model"},
	}
	for _, tt := range tests {
		_, err := c.Resolve(tt.ref)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%q) = %v, want %q", tt.ref, err, tt.want)
		}
	}
	if _, err := c.Resolve("nosuch/x"); !errors.Is(err, ErrUnknownProvider) {
		t.Errorf("unknown provider error does not match ErrUnknownProvider: %v", err)
	}
}

func TestModelsListsBuiltinAndDeclared(t *testing.T) {
	cfg, _, err := ParseConfig("c.json", []byte(`{
		"providers": {"local": {"api": "openai-chat", "base_url": "http://127.0.0.1:1/v1"}},
		"models": [{"provider": "local", "id": "tiny", "context_window": 4096, "max_output": 1024},
		           {"provider": "gemini", "id": "gemini-2.5-pro", "price": {"input": 9, "output": 99}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: cfg, Getenv: envMap()})
	ms := c.Models()
	if len(ms) != len(Builtin())+1 {
		t.Fatalf("%d models, want %d", len(ms), len(Builtin())+1)
	}
	var providers []string
	for _, m := range ms {
		if len(providers) == 0 || providers[len(providers)-1] != m.Provider {
			providers = append(providers, m.Provider)
		}
		if m.Provider == "gemini" && m.ID == "gemini-2.5-pro" && m.Price.Input != 9 {
			t.Errorf("override not listed: %+v", m.Price)
		}
	}
	if diff := cmp.Diff([]string{"anthropic", "gemini", "local", "openai"}, providers); diff != "" {
		t.Errorf("provider order (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, ms); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != len(ms)+1 {
		t.Fatalf("%d lines for %d models", len(lines), len(ms))
	}
	fields := func(s string) []string { return strings.Fields(s) }
	if diff := cmp.Diff([]string{"MODEL", "CONTEXT", "MAX", "OUT", "$IN/M", "$OUT/M", "$CACHE", "R/M", "$CACHE", "W/M", "REASONING", "IMAGES"}, fields(lines[0])); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	want := map[string][]string{
		"anthropic/claude-opus-5-5": {"anthropic/claude-opus-5-5", "1M", "128K", "4", "20", "0.2", "5", "yes", "yes"},
		"openai/gpt-6.2-sol":        {"openai/gpt-6.2-sol", "1.05M", "128K", "2", "10", "0.1", "2.5", "yes", "yes"},
		"openai/gpt-4o":             {"openai/gpt-4o", "128K", "16.4K", "2.5", "10", "1.25", "-", "-", "yes"},
		"openai/o3-mini":            {"openai/o3-mini", "200K", "100K", "1.1", "4.4", "0.55", "-", "yes", "-"},
		"gemini/gemini-2.5-flash":   {"gemini/gemini-2.5-flash", "1.05M", "65.5K", "0.3", "2.5", "0.03", "-", "yes", "yes"},
		"local/tiny":                {"local/tiny", "4.1K", "1.02K", "-", "-", "-", "-", "-", "-"},
	}
	found := 0
	for _, l := range lines[1:] {
		f := fields(l)
		if w, ok := want[f[0]]; ok {
			found++
			if diff := cmp.Diff(w, f); diff != "" {
				t.Errorf("row %s (-want +got):\n%s", f[0], diff)
			}
		}
	}
	if found != len(want) {
		t.Errorf("found %d of %d expected rows:\n%s", found, len(want), buf.String())
	}
}

func TestDocExampleParsesCleanly(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "//\t{"):
			in = true
		case in && !strings.HasPrefix(line, "//\t"):
			in = false
		}
		if in {
			b.WriteString(strings.TrimPrefix(line, "//\t") + "\n")
		}
	}
	if b.Len() == 0 {
		t.Fatal("no example found in doc.go")
	}
	cfg, warns, err := ParseConfig("doc.go example", []byte(b.String()))
	if err != nil || len(warns) > 0 {
		t.Fatalf("example: %v, warnings %v", err, warns)
	}
	c := New(Options{Config: cfg, Getenv: envMap()})
	for _, ref := range append([]string{cfg.Model, "local", "proxy/claude-opus-5-5"}, cfg.Fallbacks...) {
		if r, err := c.Resolve(ref); err != nil || !r.Known {
			t.Errorf("example reference %q: %+v %v", ref, r, err)
		}
	}
	if len(cfg.Providers["anthropic"].Profiles) != 2 || cfg.Failover.MaxAttempts != 4 {
		t.Errorf("example decoded wrong: %s", cfg)
	}
}
