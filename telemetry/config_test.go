package telemetry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConfigMergesUserAndWorkspace(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	}
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(name), 0o755)
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(UserConfigFile(getenv), `{"budget":{"max_cost":5,"max_output_tokens":1000},"otel":{"endpoint":"http://127.0.0.1:4318","headers":{"a":"1"}}}`)
	write(ConfigFile(ws), `{"budget":{"max_cost":1.5},"otel":{"enabled":true,"headers":{"b":"2"}}}`)
	c, err := LoadConfig(ws, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Budget.Limits(); got != (Limits{Cost: 1.5, OutputTokens: 1000}) {
		t.Errorf("limits %+v", got)
	}
	if !c.OTel.Enabled || c.OTel.Endpoint != "http://127.0.0.1:4318" || len(c.OTel.Headers) != 2 {
		t.Errorf("otel %+v", c.OTel)
	}
	if got := c.Budget.Limits().Override(Limits{OutputTokens: 5}); got != (Limits{Cost: 1.5, OutputTokens: 5}) {
		t.Errorf("override %+v", got)
	}
}

func TestLoadConfigBadInput(t *testing.T) {
	for body, want := range map[string]string{
		`{"budget":{"max_cost":"lots"}}`: "telemetry.json",
		`{"budjet":{}}`:                  "unknown field",
		`{"budget":{"max_cost":-1}}`:     "negative",
		`{`:                              "unexpected EOF",
	} {
		ws := t.TempDir()
		os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
		os.WriteFile(ConfigFile(ws), []byte(body), 0o644)
		_, err := LoadConfig(ws, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}
