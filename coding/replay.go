package coding

import (
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/catalog"
	"github.com/reinhq/rein/session"
)

// Where the window of a context replay came from (ContextReplay.WindowFrom).
const (
	WindowFromModel   = "model"   // the recording's model
	WindowFromFlag    = "flag"    // ContextReplayer.Window
	WindowFromConfig  = "config"  // ContextReplayer.Config.Window
	WindowFromAssumed = "assumed" // compact.AssumedWindow: the model is unknown
)

// ContextReplay is the replay of one recording under context management.
type ContextReplay struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Model is the model the recording names ("" when none); Window the
	// window replayed and WindowFrom where it came from (WindowFrom…).
	Model      string `json:"model,omitempty"`
	Window     int    `json:"window"`
	WindowFrom string `json:"window_from"`
	// Budget holds the thresholds the replay used.
	Budget compact.Budget `json:"-"`
	compact.ReplayResult
}

// ContextReplayer replays recordings (rein session logs and every
// format ReadConversation reads) under context management and reports
// the input tokens each model request would have held (compact.Replay).
// Each recording is replayed at the window of the model it names,
// looked up in Catalog, unless Window or Config.Window is set; an
// unknown model gets compact.AssumedWindow. The zero value replays with
// the default settings. A ContextReplayer is not safe for concurrent use.
type ContextReplayer struct {
	Config ContextConfig
	// Window, when positive, replaces every recording's window.
	Window int
	// Catalog resolves recorded models; nil makes one when first needed.
	Catalog *catalog.Catalog
}

// Replay reads the recording at path and replays it.
func (r *ContextReplayer) Replay(path string) (ContextReplay, error) {
	msgs, format, err := ReadConversation(path)
	if err != nil {
		return ContextReplay{}, err
	}
	c := r.Config
	ref, recorded := recordedModelOf(path, format)
	model := llm.Model{ContextWindow: c.Window, MaxOutput: c.MaxOutput}
	from := WindowFromConfig
	switch {
	case r.Window > 0:
		model.ContextWindow, from = r.Window, WindowFromFlag
	case c.Window > 0:
	case recorded > 0:
		model.ContextWindow, from = recorded, WindowFromModel
	default:
		if r.Catalog == nil {
			r.Catalog = catalog.New(catalog.Options{})
		}
		if m, ok := recordedWindow(r.Catalog, ref); ok {
			model.ContextWindow, from = m.ContextWindow, WindowFromModel
			if model.MaxOutput == 0 {
				model.MaxOutput = m.MaxOutput
			}
		} else {
			model.ContextWindow, from = compact.AssumedWindow, WindowFromAssumed
		}
	}
	b := c.Settings.BudgetFor(model, 0)
	res := compact.Replay(msgs, compact.ReplayOptions{Settings: c.Settings, Model: model})
	return ContextReplay{File: path, Format: format, Model: ref, Window: b.Window, WindowFrom: from, Budget: b, ReplayResult: res}, nil
}

// recordedWindow looks the model a recording names up in the catalog:
// as written ("anthropic/claude-sonnet-4-5"), then by its last part
// ("openrouter/google/gemini-…" → "gemini-…"), each also without a
// date suffix. Only a model the catalog knows counts.
func recordedWindow(cat *catalog.Catalog, ref string) (llm.Model, bool) {
	if ref == "" {
		return llm.Model{}, false
	}
	refs := []string{ref}
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		refs = append(refs, ref[i+1:])
	}
	// A dated snapshot ("claude-sonnet-4-5-20250929") has the window of
	// its model.
	for _, r := range refs {
		if i := strings.LastIndexByte(r, '-'); i > 0 && len(r)-i-1 == 8 && strings.Trim(r[i+1:], "0123456789") == "" {
			refs = append(refs, r[:i])
		}
	}
	for _, r := range refs {
		if res, err := cat.Resolve(r); err == nil && res.Known && res.Model.ContextWindow > 0 {
			return res.Model, true
		}
	}
	return llm.Model{}, false
}

// recordedModelOf returns the model a recording names ("" when none)
// and its context window when the recording says (rein logs do), else 0.
func recordedModelOf(path, format string) (ref string, window int) {
	if format == "rein" {
		if _, entries, _, err := session.ReadFile(path); err == nil {
			c := session.BuildContext(entries, session.LastLeaf(entries))
			if c.Model != "" {
				ref = c.Provider + "/" + c.Model
			}
			return ref, c.ContextWindow
		}
	}
	return RecordedModel(path), 0
}

// maxModelScan bounds how much of a recording is searched for the model
// it names.
const maxModelScan = 64 << 20

// RecordedModel returns the model a recording of another agent names:
// the last string under a "model", "model_name" or "modelId" key in any
// of its JSON values (Claude Code's message.model, pi's model_change,
// mini-swe-agent's info.config.model.model_name). "" when none or when
// the file cannot be read; only the first 64 MiB are searched.
func RecordedModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, maxModelScan))
	found := ""
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			return found
		}
		if m := modelIn(v, 0); m != "" {
			found = m
		}
	}
}

func modelIn(v any, depth int) string {
	if depth > 12 {
		return ""
	}
	found := ""
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "model" || k == "model_name" || k == "modelId") && plausibleModel(s) {
				found = s
			} else if m := modelIn(val, depth+1); m != "" && found == "" {
				found = m
			}
		}
	case []any:
		for _, val := range x {
			if m := modelIn(val, depth+1); m != "" {
				found = m
			}
		}
	}
	return found
}

// plausibleModel reports whether s looks like a model id, not prose.
func plausibleModel(s string) bool {
	return s != "" && len(s) <= 100 && !strings.ContainsAny(s, " \n\t") && strings.ContainsAny(s, "0123456789")
}
