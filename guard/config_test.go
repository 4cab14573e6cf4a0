package guard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadConfig(t *testing.T) {
	yes, no := true, false
	def := DefaultConfig()
	tests := []struct {
		name    string
		file    string // "" means no file
		want    func(c *Config)
		wantErr string
	}{
		{name: "seed shape", file: `{"tools":{"read":{"cascadeThreshold":6,"passThrough":false},"bash":{"cascadeThreshold":4},"ask_user":{"passThrough":true}}}`,
			want: func(c *Config) {
				c.Tools["read"] = ToolConfig{CascadeThreshold: 6, PassThrough: &no}
				c.Tools["bash"] = ToolConfig{CascadeThreshold: 4}
			}},
		{name: "disable and loop detection", file: `{"disable":["cascade","loop.ping_pong"],"loopDetection":{"historySize":50,"warningThreshold":5}}`,
			want: func(c *Config) {
				c.Disable = []string{"cascade", "loop.ping_pong"}
				c.LoopDetection.HistorySize, c.LoopDetection.WarningThreshold = 50, 5
			}},
		{name: "partial tool entry keeps the default", file: `{"tools":{"ask_user":{"cascadeThreshold":3}}}`,
			want: func(c *Config) { c.Tools["ask_user"] = ToolConfig{CascadeThreshold: 3, PassThrough: &yes} }},
		{name: "extras", file: `{"errorRetryLimit":4,"readCacheTurns":2}`,
			want: func(c *Config) { c.ErrorRetryLimit, c.ReadCacheTurns = 4, 2 }},
		{name: "empty object", file: `{}`, want: func(*Config) {}},
		{name: "missing file", wantErr: "no such file", want: func(*Config) {}},
		{name: "broken JSON", file: `{"tools": {`, wantErr: "not valid JSON", want: func(*Config) {}},
		{name: "wrong types", file: `{"tools": {"read": {"cascadeThreshold": "six"}}}`, wantErr: "not valid JSON", want: func(*Config) {}},
		{name: "unknown field is reported and ignored", file: `{"tool":{},"readCacheTurns":3}`, wantErr: `unknown field "tool"`,
			want: func(c *Config) { c.ReadCacheTurns = 3 }},
		{name: "unknown rule is reported", file: `{"disable":["cascades"]}`, wantErr: `unknown rule "cascades"`,
			want: func(c *Config) { c.Disable = []string{"cascades"} }},
		{name: "negative values fall back", file: `{"tools":{"read":{"cascadeThreshold":-1}},"loopDetection":{"criticalThreshold":-5}}`, wantErr: "negative",
			want: func(c *Config) { c.Tools["read"] = ToolConfig{} }},
		{name: "critical below warning", file: `{"loopDetection":{"warningThreshold":20,"criticalThreshold":10}}`, wantErr: "below warningThreshold", want: func(*Config) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "harness-config.json")
			if tt.file != "" {
				writeFile(t, p, tt.file)
			}
			got, err := LoadConfig(p)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr != "" {
				var ce *ConfigError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ce) || ce.Path != p {
					t.Fatalf("err = %v, want a *ConfigError containing %q", err, tt.wantErr)
				}
			}
			want := def.Merge(Config{})
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindConfig(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"none", nil, ""},
		{"rein", map[string]string{".rein/harness-config.json": "{}"}, ".rein/harness-config.json"},
		{"pi fallback", map[string]string{".pi/harness-config.json": "{}"}, ".pi/harness-config.json"},
		{"rein wins", map[string]string{".rein/harness-config.json": "{}", ".pi/harness-config.json": "{}"}, ".rein/harness-config.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, c := range tt.files {
				writeFile(t, filepath.Join(dir, name), c)
			}
			got := FindConfig(dir)
			want := ""
			if tt.want != "" {
				want = filepath.Join(dir, tt.want)
			}
			if got != want {
				t.Fatalf("FindConfig = %q, want %q", got, want)
			}
		})
	}
}

// Discover finds and loads a workspace's file; none gives the defaults,
// a broken one a *ConfigError naming it and the defaults.
func TestDiscover(t *testing.T) {
	ws, bad, none := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".rein", "harness-config.json"), `{"disable": ["mismatch"]}`)
	writeFile(t, filepath.Join(bad, ".rein", "harness-config.json"), `{"disable": [`)
	cfg, path, err := Discover(ws)
	if err != nil || path != filepath.Join(ws, ".rein", "harness-config.json") || len(cfg.Disable) != 1 {
		t.Fatalf("Discover = %+v, %q, %v", cfg.Disable, path, err)
	}
	cfg, path, err = Discover(bad)
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "harness-config.json") || path == "" || len(cfg.Disable) != 0 {
		t.Fatalf("broken file: %+v, %q, %v", cfg.Disable, path, err)
	}
	cfg, path, err = Discover(none)
	if err != nil || path != "" || len(cfg.Tools) == 0 {
		t.Fatalf("no file: %+v, %q, %v", cfg, path, err)
	}
}

func TestLoaderWarnsOnceAndFallsBack(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".pi/harness-config.json"), `{"tools":{"bash":{"cascadeThreshold":4}}}`)
	var mu sync.Mutex
	var warnings []string
	l := &Loader{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }}

	if got := l.Load(dir).Tools["bash"].CascadeThreshold; got != 4 {
		t.Fatalf(".pi config not used: bash cascade = %d", got)
	}
	// A broken rein file wins over pi's and gives the defaults.
	writeFile(t, filepath.Join(dir, ".rein/harness-config.json"), `{broken`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if c := l.Load(dir); c.Tools["bash"].CascadeThreshold != 0 {
				t.Error("broken config did not give the defaults")
			}
		})
	}
	wg.Wait()
	if len(warnings) != 1 || !strings.Contains(warnings[0], ".rein/harness-config.json") || !strings.Contains(warnings[0], "using the defaults") {
		t.Fatalf("warnings = %q, want one naming the file", warnings)
	}
	// A guard built from the fallback config blocks nothing extra.
	cfg := l.Load(dir)
	g := New(Options{Config: &cfg})
	if d := g.Decide(Call{Tool: "bash", Args: json.RawMessage(`{"command":"make"}`), Turn: 1}); d.Action != Allow {
		t.Fatalf("decision = %+v", d)
	}
}

func TestZeroConfigMeansDefaults(t *testing.T) {
	g := New(Options{Config: &Config{}})
	want := resolve(DefaultConfig())
	if diff := cmp.Diff(want, g.s, cmp.AllowUnexported(settings{})); diff != "" {
		t.Fatalf("settings (-want +got):\n%s", diff)
	}
	if !g.s.pass["ask_user"] || g.s.cascadeAll != 8 || g.s.retries != 2 || g.s.readTurns != 6 || g.s.history != 29 || g.s.breaker != 30 { // 29 past calls and the current one
		t.Fatalf("defaults = %+v", g.s)
	}
}

func TestHistorySizeBelowThresholdsIsReported(t *testing.T) {
	err := Config{LoopDetection: LoopConfig{HistorySize: 12}}.Check()
	if err == nil || !strings.Contains(err.Error(), "historySize (12) is below circuitBreakerThreshold (30)") {
		t.Fatalf("Check = %v", err)
	}
	if err := (Config{LoopDetection: LoopConfig{HistorySize: 40}}).Check(); err != nil {
		t.Fatalf("a wide window: %v", err)
	}
	// The window still holds enough calls for the breaker.
	g := New(Options{Config: &Config{LoopDetection: LoopConfig{HistorySize: 12}}})
	if g.s.history != 29 {
		t.Fatalf("history = %d", g.s.history)
	}
}

func TestPassThroughEveryTool(t *testing.T) {
	on := true
	g := New(Options{Config: &Config{Tools: map[string]ToolConfig{"*": {PassThrough: &on}}}})
	for range 5 {
		c := Call{Tool: "bash", Args: json.RawMessage(`{"command":"cat a.txt"}`), Turn: 1}
		if d := g.Decide(c); d.Action != Allow {
			t.Fatalf("decision = %+v", d)
		}
	}
}
