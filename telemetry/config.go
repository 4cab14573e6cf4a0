package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Config is the file telemetry.json: the budget defaults and the trace
// settings. The user's file ($XDG_CONFIG_HOME/rein/telemetry.json, else
// ~/.config/rein/telemetry.json) is read first and the workspace's
// .rein/telemetry.json over it, field by field.
type Config struct {
	Budget BudgetConfig `json:"budget"`
	OTel   OTelConfig   `json:"otel"`
}

// BudgetConfig holds the default limits of every run (0: none); the
// --max-cost, --max-input-tokens and --max-output-tokens flags override
// them one by one.
type BudgetConfig struct {
	MaxCost         float64 `json:"max_cost,omitempty"`
	MaxInputTokens  int     `json:"max_input_tokens,omitempty"`
	MaxOutputTokens int     `json:"max_output_tokens,omitempty"`
}

// Limits returns the budget as limits.
func (b BudgetConfig) Limits() Limits {
	return Limits{Cost: b.MaxCost, InputTokens: b.MaxInputTokens, OutputTokens: b.MaxOutputTokens}
}

// OTelConfig turns traces on without OTEL_* variables; the variables,
// when set, win over it (see package telemetry/otel).
type OTelConfig struct {
	// Enabled exports traces and metrics even when no OTEL_* variable
	// is set.
	Enabled bool `json:"enabled,omitempty"`
	// Endpoint is the OTLP/HTTP base URL (http://127.0.0.1:4318).
	Endpoint string `json:"endpoint,omitempty"`
	// Protocol is http/protobuf, the one protocol rein exports with.
	Protocol string `json:"protocol,omitempty"`
	// Headers are sent with every export (an API key of the backend).
	Headers map[string]string `json:"headers,omitempty"`
	// CaptureContent records prompts, replies and tool arguments and
	// results on spans, after the redactor and cut to ContentMaxBytes.
	CaptureContent  bool `json:"capture_content,omitempty"`
	ContentMaxBytes int  `json:"content_max_bytes,omitempty"`
	// ServiceName is the service.name resource attribute ("rein").
	ServiceName string `json:"service_name,omitempty"`
}

// ConfigFile is the workspace's telemetry config.
func ConfigFile(workspace string) string { return filepath.Join(workspace, ".rein", "telemetry.json") }

// UserConfigFile is the user's telemetry config, or "".
func UserConfigFile(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "rein", "telemetry.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "rein", "telemetry.json")
	}
	return ""
}

// LoadConfig reads the user's and the workspace's telemetry.json; missing
// files are no error. A malformed file is an error naming it; nothing of
// it is used.
func LoadConfig(workspace string, getenv func(string) string) (Config, error) {
	var c Config
	for _, name := range []string{UserConfigFile(getenv), ConfigFile(workspace)} {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, err
		}
		var f Config
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return Config{}, fmt.Errorf("%s: %w (see docs/observability.md for the fields)", name, err)
		}
		if err := f.Budget.Limits().Validate(); err != nil {
			return Config{}, fmt.Errorf("%s: budget: %w", name, err)
		}
		c.merge(f)
	}
	return c, nil
}

func (c *Config) merge(f Config) {
	if f.Budget.MaxCost != 0 {
		c.Budget.MaxCost = f.Budget.MaxCost
	}
	if f.Budget.MaxInputTokens != 0 {
		c.Budget.MaxInputTokens = f.Budget.MaxInputTokens
	}
	if f.Budget.MaxOutputTokens != 0 {
		c.Budget.MaxOutputTokens = f.Budget.MaxOutputTokens
	}
	o := &c.OTel
	o.Enabled = o.Enabled || f.OTel.Enabled
	o.CaptureContent = o.CaptureContent || f.OTel.CaptureContent
	for _, p := range []struct {
		dst *string
		src string
	}{{&o.Endpoint, f.OTel.Endpoint}, {&o.Protocol, f.OTel.Protocol}, {&o.ServiceName, f.OTel.ServiceName}} {
		if p.src != "" {
			*p.dst = p.src
		}
	}
	if f.OTel.ContentMaxBytes != 0 {
		o.ContentMaxBytes = f.OTel.ContentMaxBytes
	}
	for k, v := range f.OTel.Headers {
		if o.Headers == nil {
			o.Headers = map[string]string{}
		}
		o.Headers[k] = v
	}
}

// Override returns l with every limit of o that is set.
func (l Limits) Override(o Limits) Limits {
	if o.Cost != 0 {
		l.Cost = o.Cost
	}
	if o.InputTokens != 0 {
		l.InputTokens = o.InputTokens
	}
	if o.OutputTokens != 0 {
		l.OutputTokens = o.OutputTokens
	}
	return l
}
