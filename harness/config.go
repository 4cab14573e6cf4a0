package harness

import (
	"fmt"
	"maps"
	"slices"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Configuration setters and getters. Setters validate, then change the
// configuration at once, whatever the phase: the change applies from the
// next snapshot (the next prompt, or the next save point of a running
// turn) and never to a request already in flight. The log records a
// model, thinking or tools change (as model_change, thinking_change and
// tools_change entries) when a snapshot first uses it. Getters return the
// latest configuration, not the snapshot of a running turn. All are safe
// to call from listeners and hooks.

// SetProvider replaces the provider.
func (h *Harness) SetProvider(p llm.Provider) error {
	if p == nil {
		return errorf(CodeConfig, "set_provider", "the provider is nil")
	}
	h.mu.Lock()
	h.cfg.provider = p
	h.mu.Unlock()
	return nil
}

// Provider returns the configured provider.
func (h *Harness) Provider() llm.Provider {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.provider
}

// SetModel replaces the model.
func (h *Harness) SetModel(m llm.Model) error {
	if m.ID == "" {
		return errorf(CodeConfig, "set_model", "the model has no ID")
	}
	h.mu.Lock()
	h.cfg.model = m
	h.mu.Unlock()
	return nil
}

// Model returns the configured model.
func (h *Harness) Model() llm.Model {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.model
}

// SetThinking replaces the thinking level.
func (h *Harness) SetThinking(l llm.ThinkingLevel) error {
	if !l.Valid() {
		return errorf(CodeConfig, "set_thinking", "unknown thinking level %q; use one of %v", l, llm.ThinkingLevels())
	}
	h.mu.Lock()
	h.cfg.thinking = l
	h.mu.Unlock()
	return nil
}

// Thinking returns the configured thinking level.
func (h *Harness) Thinking() llm.ThinkingLevel {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.thinking
}

// SetMaxTokens caps each reply from the next turn on; zero means the
// model's MaxOutput. Safe to call at any time, from listeners too.
func (h *Harness) SetMaxTokens(n int) {
	h.mu.Lock()
	h.cfg.maxTokens = max(n, 0)
	h.mu.Unlock()
}

// MaxTokens returns the configured reply cap.
func (h *Harness) MaxTokens() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.maxTokens
}

// SetTemperature sets the sampling temperature from the next turn on; nil
// leaves it to the provider. Safe to call at any time, from listeners too.
func (h *Harness) SetTemperature(t *float64) {
	h.mu.Lock()
	h.cfg.temp = cloneFloat(t)
	h.mu.Unlock()
}

// Temperature returns the configured temperature, or nil.
func (h *Harness) Temperature() *float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return cloneFloat(h.cfg.temp)
}

func cloneFloat(f *float64) *float64 {
	if f == nil {
		return nil
	}
	v := *f
	return &v
}

// SetSystem sets a static system prompt and drops any SystemFunc.
func (h *Harness) SetSystem(parts []llm.SystemPart) {
	parts = slices.Clone(parts)
	h.mu.Lock()
	h.cfg.system, h.cfg.systemFunc = parts, nil
	h.mu.Unlock()
}

// SetSystemFunc makes f build the system prompt of every snapshot; nil
// goes back to the static system prompt.
func (h *Harness) SetSystemFunc(f SystemFunc) {
	h.mu.Lock()
	h.cfg.systemFunc = f
	h.mu.Unlock()
}

// System returns the static system prompt (a copy).
func (h *Harness) System() []llm.SystemPart {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.cfg.system)
}

// SetTools replaces the tools and the active tool names (nil: all, or,
// on a resumed session whose active tools were not named since, the
// tools its log records that tools holds; see GoneTools).
func (h *Harness) SetTools(tools *tool.Registry, active []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.cfg
	var err error
	if active == nil && h.restoring {
		err = h.restoreLocked(&c, tools)
	} else {
		err = h.setTools(&c, tools, active)
	}
	if err != nil {
		return &Error{Code: CodeConfig, Op: "set_tools", Err: err}
	}
	h.restoring = h.restoring && active == nil
	h.cfg = c
	return nil
}

// SetActiveTools narrows the tools offered to the model to names (tool or
// toolset names); nil offers every tool. Unknown names are an error that
// lists the known ones.
func (h *Harness) SetActiveTools(names []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.cfg
	if err := h.setTools(&c, c.tools, names); err != nil {
		return &Error{Code: CodeConfig, Op: "set_active_tools", Err: err}
	}
	h.cfg, h.restoring = c, false
	return nil
}

// Tools returns every configured tool.
func (h *Harness) Tools() *tool.Registry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.tools
}

// ActiveTools returns the names of the active tools, in registry order.
func (h *Harness) ActiveTools() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.cfg.names)
}

// SetStreamOptions replaces the request options (copied: later changes
// to o's maps do not affect the harness).
func (h *Harness) SetStreamOptions(o llm.Options) {
	o = cloneOptions(o)
	h.mu.Lock()
	h.cfg.options = o
	h.mu.Unlock()
}

// StreamOptions returns a copy of the request options.
func (h *Harness) StreamOptions() llm.Options {
	h.mu.Lock()
	defer h.mu.Unlock()
	return cloneOptions(h.cfg.options)
}

// setTools computes the offered registry of c for tools and active.
func (h *Harness) setTools(c *config, tools *tool.Registry, active []string) error {
	offered := tools
	if active != nil {
		switch {
		case len(active) == 0:
			offered = nil
		case tools == nil:
			return fmt.Errorf("active tools %v named, but no tools are configured", active)
		default:
			sel, err := tools.Select(active, nil)
			if err != nil {
				return err
			}
			offered = sel
		}
	}
	names := offered.Names()
	if names == nil {
		names = []string{}
	}
	if h.wc != nil && offered.Get(h.wc.Name) == nil {
		var err error
		if offered, err = tool.NewRegistry(append(slices.Clone(offered.Tools()), h.wc)...); err != nil {
			return err
		}
	}
	c.tools, c.active, c.offered, c.names = tools, slices.Clone(active), offered, names
	return nil
}

func cloneOptions(o llm.Options) llm.Options {
	o.Headers = maps.Clone(o.Headers)
	o.Metadata = maps.Clone(o.Metadata)
	o.Extra = maps.Clone(o.Extra)
	return o
}
