package coding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm/catalog"
)

// ContextConfig is the file .rein/context.json of a workspace (and the
// --config of rein context replay): the context settings, the models that
// write compaction summaries, and for replay the window to simulate.
type ContextConfig struct {
	compact.Settings
	// CompactionModels write summaries, tried in order before the
	// session's own model.
	CompactionModels []string `json:"compaction_models,omitempty"`
	// Window and MaxOutput give the model limits a replay simulates.
	Window    int `json:"window,omitempty"`
	MaxOutput int `json:"max_output,omitempty"`
}

// ContextConfigFile is where a workspace keeps its context settings.
func ContextConfigFile(root string) string { return filepath.Join(root, ".rein", "context.json") }

// LoadContextConfig reads a context config; unknown keys are errors, so
// that a misspelt threshold does not silently keep the default. A file
// that cannot be used is a *ConfigError.
func LoadContextConfig(path string) (ContextConfig, error) {
	var c ContextConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		line := jsonErrorLine(data)
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line = lineAt(data, te.Offset)
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(data, []byte(name)); i >= 0 {
				line = lineAt(data, int64(i))
			}
		}
		return c, &ConfigError{File: path, Line: line, Err: fmt.Errorf("%s: %w (keys: off, no_masking, soft, hard, keep_tokens, keep_turns, reserve, margin, compaction_models, window, max_output)", path, err)}
	}
	if err := c.Settings.Validate(); err != nil {
		return c, &ConfigError{File: path, Err: fmt.Errorf("%s: %w", path, err)}
	}
	return c, nil
}

// applyContext sets the context options of the harness from the
// workspace's .rein/context.json, when there is one.
func (s *setup) applyContext(opts *harness.Options) error {
	c, err := LoadContextConfig(ContextConfigFile(s.ws.Root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return configError(err, ContextConfigFile(s.ws.Root))
	}
	opts.Context = c.Settings
	if len(c.CompactionModels) == 0 {
		return nil
	}
	cat := s.catalog()
	for _, ref := range c.CompactionModels {
		res, err := cat.Resolve(ref)
		if err != nil {
			return fmt.Errorf("compaction model %q: %w", ref, err)
		}
		built, err := cat.Build(res.Model, catalog.BuildOptions{DefaultStatePath: catalog.DefaultStatePath(s.o.Getenv)})
		if err != nil {
			return fmt.Errorf("compaction model %q: %w", ref, err)
		}
		opts.Summarizers = append(opts.Summarizers, compact.Model{Provider: built.Provider, Model: built.Model})
	}
	return nil
}
