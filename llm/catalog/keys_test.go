package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

func TestKeyPrecedence(t *testing.T) {
	tests := []struct {
		name string
		kc   KeyConfig
		envs []string
		env  func(string) string
		want string
	}{
		{"usual variable", KeyConfig{}, []string{"ANTHROPIC_API_KEY"}, envMap("ANTHROPIC_API_KEY", "from-env"), "from-env"},
		{"second usual variable", KeyConfig{}, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, envMap("GOOGLE_API_KEY", "google"), "google"},
		{"first usual variable wins", KeyConfig{}, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, envMap("GEMINI_API_KEY", "gem", "GOOGLE_API_KEY", "google"), "gem"},
		{"configured variable beats the usual one", KeyConfig{APIKeyEnv: "MINE"}, []string{"OPENAI_API_KEY"}, envMap("OPENAI_API_KEY", "usual", "MINE", "mine"), "mine"},
		{"literal beats the usual variable", KeyConfig{APIKey: "literal"}, []string{"OPENAI_API_KEY"}, envMap("OPENAI_API_KEY", "usual"), "literal"},
		{"whitespace trimmed", KeyConfig{}, []string{"K"}, envMap("K", "  padded\n"), "padded"},
		{"no key needed", KeyConfig{}, nil, envMap(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{Getenv: tt.env})
			f, err := c.keyFunc("p", "", tt.kc, tt.envs, "providers.p.api_key_env")
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				if tt.want != "" {
					t.Fatal("no key function")
				}
				return
			}
			got, err := f(context.Background())
			if err != nil || got != tt.want {
				t.Errorf("key = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestKeyIsReadPerRequest(t *testing.T) {
	var mu sync.Mutex
	val := "first"
	c := New(Options{Getenv: func(k string) string {
		mu.Lock()
		defer mu.Unlock()
		if k == "K" {
			return val
		}
		return ""
	}})
	f, err := c.keyFunc("p", "", KeyConfig{}, []string{"K"}, "")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	val = "rotated"
	mu.Unlock()
	if k, _ := f(context.Background()); k != "rotated" {
		t.Errorf("key = %q, want the rotated value", k)
	}
}

func TestMissingKeyErrors(t *testing.T) {
	home := t.TempDir()
	cfg := &Config{Files: []string{"/ws/.rein/config.json"}}
	tests := []struct {
		name    string
		cfg     *Config
		profile string
		kc      KeyConfig
		envs    []string
		field   string
		want    string
	}{
		{"usual variable", nil, "", KeyConfig{}, []string{"ANTHROPIC_API_KEY"}, "providers.anthropic.api_key_env",
			"no API key for provider anthropic: $ANTHROPIC_API_KEY is empty or unset; set ANTHROPIC_API_KEY, or fill providers.anthropic.api_key_env (or api_key / api_key_command) in " + filepath.Join(home, ".config/rein/config.json")},
		{"two variables", cfg, "", KeyConfig{}, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, "providers.anthropic.api_key_env",
			"no API key for provider anthropic: $GEMINI_API_KEY and $GOOGLE_API_KEY are empty or unset; set GEMINI_API_KEY, or fill providers.anthropic.api_key_env (or api_key / api_key_command) in /ws/.rein/config.json"},
		{"configured variable", cfg, "work", KeyConfig{APIKeyEnv: "WORK_KEY"}, nil, "providers.anthropic.profiles[0]",
			"no API key for profile work of provider anthropic: $WORK_KEY is empty or unset; set WORK_KEY, or fill providers.anthropic.profiles[0] (or api_key / api_key_command) in /ws/.rein/config.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{Config: tt.cfg, Getenv: envMap("HOME", home)})
			f, err := c.keyFunc("anthropic", tt.profile, tt.kc, tt.envs, tt.field)
			var mk *MissingKeyError
			if !errors.As(err, &mk) {
				t.Fatalf("err = %v, want *MissingKeyError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			// At request time the same explanation comes as an auth error.
			_, rerr := f(context.Background())
			if llm.CodeOf(rerr) != llm.CodeAuth || !errors.As(rerr, &mk) || !strings.Contains(rerr.Error(), tt.want) {
				t.Errorf("request-time error = %v", rerr)
			}
		})
	}
}

func TestKeyCommandIsCached(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "runs")
	cmd := fmt.Sprintf("echo run >> %q; echo cmd-key-$(wc -l < %q | tr -d ' ')", counter, counter)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := New(Options{Getenv: envMap(), Now: clock})
	f, err := c.keyFunc("p", "", KeyConfig{APIKeyCommand: cmd, APIKeyTTL: Duration(time.Minute)}, []string{"UNUSED"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	keys := make([]string, 8)
	for i := range keys {
		wg.Go(func() {
			k, err := f(context.Background())
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys {
		if k != "cmd-key-1" {
			t.Errorf("keys = %v, want one run shared by all", keys)
			break
		}
	}
	mu.Lock()
	now = now.Add(59 * time.Second)
	mu.Unlock()
	if k, _ := f(context.Background()); k != "cmd-key-1" {
		t.Errorf("within the TTL: %q", k)
	}
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	if k, _ := f(context.Background()); k != "cmd-key-2" {
		t.Errorf("after the TTL: %q", k)
	}
	data, _ := os.ReadFile(counter)
	if n := strings.Count(string(data), "run"); n != 2 {
		t.Errorf("command ran %d times, want 2", n)
	}
	// Another key function for the same command shares the cache.
	g, _ := c.keyFunc("p", "other", KeyConfig{APIKeyCommand: cmd, APIKeyTTL: Duration(time.Minute)}, nil, "")
	if k, _ := g(context.Background()); k != "cmd-key-2" {
		t.Errorf("second function: %q", k)
	}
}

func TestKeyCommandFailures(t *testing.T) {
	const secret = "sk-command-secret-123"
	tests := []struct{ cmd, want string }{
		{"exit 3", "exit status 3"},
		{"printf 'sk-command-%s' secret-123 >&2; exit 1", "[REDACTED]"},
		{"true", "printed nothing"},
		{"printf 'a\\nb\\n'", "printed several lines"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			c := New(Options{Getenv: envMap()})
			f, err := c.keyFunc("p", "", KeyConfig{APIKeyCommand: tt.cmd}, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			c.command(tt.cmd, 0).key = secret // a previously cached key, now expired
			_, err = f(context.Background())
			if llm.CodeOf(err) != llm.CodeAuth || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want auth error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("key leaked: %v", err)
			}
		})
	}
	// A cancelled context stops a slow command.
	c := New(Options{Getenv: envMap()})
	f, _ := c.keyFunc("p", "", KeyConfig{APIKeyCommand: "sleep 30; echo late"}, nil, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestStringNeverShowsKeys(t *testing.T) {
	const secret = "sk-literal-secret-456"
	cfg, _, err := ParseConfig("c.json", []byte(`{"providers": {
		"openai": {"api_key": "`+secret+`"},
		"anthropic": {"profiles": [{"name": "a", "api_key": "`+secret+`"}, {"name": "b", "api_key_env": "B"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	outs := []string{
		cfg.String(), fmt.Sprint(cfg), fmt.Sprintf("%v", *cfg), fmt.Sprintf("%+v", *cfg), fmt.Sprintf("%#v", cfg.Providers),
		fmt.Sprint(cfg.Providers["openai"]), fmt.Sprintf("%#v", cfg.Providers["openai"].KeyConfig),
		fmt.Sprint(cfg.Providers["anthropic"].Profiles), fmt.Sprintf("%+v", cfg.Providers["anthropic"].Profiles[0]),
	}
	for _, s := range outs {
		if strings.Contains(s, secret) {
			t.Errorf("key shown: %s", s)
		}
	}
	if !strings.Contains(fmt.Sprint(cfg.Providers["anthropic"]), "a(literal key [REDACTED]) b($B)") {
		t.Errorf("profile description: %s", cfg.Providers["anthropic"])
	}
}
