package gemini

import (
	"strings"

	"github.com/reinhq/rein/llm"
)

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitzero"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitzero"`
	ThinkingLevel   string `json:"thinkingLevel,omitzero"`
}

// budget returns the token budget of a thinking level for budget-based
// (2.5) models, before clamping to the model's range.
func budget(level llm.ThinkingLevel) int {
	switch level {
	case llm.ThinkingMinimal:
		return 128
	case llm.ThinkingLow:
		return 2048
	case llm.ThinkingMedium:
		return 8192
	case llm.ThinkingHigh:
		return 24576
	}
	return 32768
}

// modelName returns the bare, lower-case model name of an id such as
// "models/gemini-2.5-flash".
func modelName(id string) string {
	id = strings.ToLower(id)
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return id
}

// modelMajor returns the major version in a "gemini-N…" model name, or 0.
func modelMajor(id string) int {
	name := modelName(id)
	i := strings.Index(name, "gemini-")
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range name[i+len("gemini-"):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// budgetRange returns the thinking budget a 2.5-style model accepts and
// whether it can turn thinking off (budget 0).
func budgetRange(id string) (lo, hi int, canOff bool) {
	name := modelName(id)
	switch {
	case strings.Contains(name, "pro"):
		return 128, 32768, false
	case strings.Contains(name, "flash-lite"):
		return 512, 24576, true
	case strings.Contains(name, "flash"):
		return 1, 24576, true
	}
	return 128, 32768, true
}

// thinkingFor maps a thinking level to Gemini's thinkingConfig, or nil
// for models that do not reason and for the empty level, which leaves the
// model's own default.
func thinkingFor(m *llm.Model, level llm.ThinkingLevel) *thinkingConfig {
	if !m.Reasoning || level == "" {
		return nil
	}
	on := level.Enabled()
	if modelMajor(m.ID) >= 3 {
		return &thinkingConfig{IncludeThoughts: on, ThinkingLevel: thinkingLevel(m.ID, level)}
	}
	lo, hi, canOff := budgetRange(m.ID)
	var b int
	switch {
	case on:
		b = min(max(budget(level), lo), hi)
	case canOff:
		b = 0
	default:
		b = lo
	}
	return &thinkingConfig{IncludeThoughts: on, ThinkingBudget: &b}
}

// thinkingLevel picks a Gemini 3 thinking level: Pro models take "low" and
// "high"; Flash models also "minimal" and "medium". Thinking cannot be
// turned off on these models, so off asks for the least.
func thinkingLevel(id string, level llm.ThinkingLevel) string {
	if strings.Contains(modelName(id), "pro") {
		switch level {
		case llm.ThinkingMedium, llm.ThinkingHigh, llm.ThinkingXHigh:
			return "high"
		}
		return "low"
	}
	switch level {
	case llm.ThinkingLow:
		return "low"
	case llm.ThinkingMedium:
		return "medium"
	case llm.ThinkingHigh, llm.ThinkingXHigh:
		return "high"
	}
	return "minimal"
}
