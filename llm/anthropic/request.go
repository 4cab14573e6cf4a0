package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinhq/rein/llm"
)

// payload is the body of POST /v1/messages.
type payload struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	System      []block   `json:"system,omitempty"`
	Messages    []message `json:"messages"`
	Tools       []tool    `json:"tools,omitempty"`
	Thinking    *thinking `json:"thinking,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	Metadata    *metadata `json:"metadata,omitempty"`
	Stream      bool      `json:"stream"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// thinking is the thinking configuration: "enabled" with a token budget
// for older models, or "adaptive" with an effort (sent as
// output_config.effort) for models that decide their own budget.
type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	Effort       string `json:"-"`
}

type metadata struct {
	UserID string `json:"user_id"`
}

// Token figures for max_tokens and thinking budgets.
const (
	// DefaultMaxTokens is max_tokens when neither the request nor the
	// model sets a limit; every Claude model accepts it.
	DefaultMaxTokens = 4096
	// minBudget is the smallest thinking budget the API accepts.
	minBudget = 1024
	// minAnswer is the room kept for the answer beside the thinking budget.
	minAnswer = 1024
)

// Budget returns the thinking budget in tokens for a level, or zero for
// off, the empty level and unknown levels.
func Budget(l llm.ThinkingLevel) int {
	switch l {
	case llm.ThinkingMinimal:
		return 1024
	case llm.ThinkingLow:
		return 2048
	case llm.ThinkingMedium:
		return 8192
	case llm.ThinkingHigh:
		return 16384
	case llm.ThinkingXHigh:
		return 32768
	}
	return 0
}

// encode builds the wire body for req: the payload, then Options.Extra
// merged over it, then Options.OnPayload.
func encode(ctx context.Context, req *llm.Request) ([]byte, error) {
	p, err := buildPayload(req)
	if err != nil {
		return nil, err
	}
	body, err := p.appendJSON(make([]byte, 0, 4096))
	if err != nil {
		return nil, err
	}
	if len(req.Options.Extra) > 0 {
		if body, err = mergeExtra(body, req.Options.Extra); err != nil {
			return nil, err
		}
	}
	if req.Options.OnPayload != nil {
		if body, err = req.Options.OnPayload(ctx, body); err != nil {
			return nil, err
		}
	}
	return body, nil
}

func formatError(format string, args ...any) error {
	return &llm.Error{Code: llm.CodeFormat, Message: fmt.Sprintf(format, args...)}
}

func buildPayload(req *llm.Request) (*payload, error) {
	if !req.Thinking.Valid() {
		return nil, formatError("unknown thinking level %q (want one of %v)", req.Thinking, llm.ThinkingLevels())
	}
	p := &payload{Model: req.Model.ID, Stream: true, Temperature: req.Temperature}
	p.System = systemBlocks(req.System)
	p.Messages = messages(req.Messages)
	for _, t := range req.Tools {
		schema := json.RawMessage(trimSpace(t.Parameters))
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		} else if !json.Valid(schema) {
			return nil, formatError("tool %q: parameters are not valid JSON", t.Name)
		}
		p.Tools = append(p.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	p.MaxTokens, p.Thinking = limits(req)
	if p.Thinking != nil {
		p.Temperature = nil // the API rejects temperature with thinking
	}
	if id := req.Options.Metadata["user_id"]; id != "" {
		p.Metadata = &metadata{UserID: id}
	}
	return p, nil
}

// limits returns max_tokens and the thinking configuration.
//
// max_tokens is req.MaxTokens, else the model's MaxOutput, else
// DefaultMaxTokens. With thinking, when the budget leaves less than 1024
// tokens for the answer, max_tokens is raised to budget + the requested
// max_tokens, capped at MaxOutput when known; a budget that still does not
// fit is lowered to max_tokens - 1024, and thinking is left off when that
// is below the API's minimum of 1024.
func limits(req *llm.Request) (int, *thinking) {
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = req.Model.MaxOutput
	}
	if maxTok <= 0 {
		maxTok = DefaultMaxTokens
	}
	budget := Budget(req.Thinking)
	if budget == 0 || !req.Model.Reasoning {
		return maxTok, nil
	}
	if Adaptive(req.Model.ID) {
		return maxTok, &thinking{Type: "adaptive", Effort: Effort(req.Thinking)}
	}
	if base := maxTok; budget+minAnswer > base {
		maxTok = base + budget
		if limit := req.Model.MaxOutput; limit > 0 && maxTok > limit {
			maxTok = max(limit, base)
		}
	}
	budget = min(budget, maxTok-minAnswer)
	if budget < minBudget {
		return maxTok, nil
	}
	return maxTok, &thinking{Type: "enabled", BudgetTokens: budget}
}

// Adaptive reports whether a Claude model takes adaptive thinking
// (thinking.type "adaptive" with an effort) rather than a fixed token
// budget: Claude 4.6 and later. The newest models accept nothing else; the
// fixed budget is deprecated on 4.6. Ids that are not Claude model ids
// (a proxy's own names, say) are treated as older models.
func Adaptive(id string) bool {
	rest, ok := strings.CutPrefix(id, "claude-")
	if !ok {
		return false
	}
	// claude-<family>-<major>[-<minor>][-<date>], e.g. claude-opus-4-6,
	// claude-sonnet-5, claude-fable-5-2, claude-sonnet-4-5-20250929; older
	// ids put the version first: claude-3-7-sonnet-20250219.
	parts := strings.Split(rest, "-")
	if len(parts) < 2 {
		return false
	}
	at := 1
	if _, numeric := smallNumber(parts[0]); numeric {
		at = 0
	}
	major, ok := smallNumber(parts[at])
	if !ok {
		return false
	}
	minor := 0
	if len(parts) > at+1 {
		if n, ok := smallNumber(parts[at+1]); ok {
			minor = n
		}
	}
	return major > 4 || major == 4 && minor >= 6
}

// smallNumber parses a one- or two-digit version number; dates (eight
// digits) are not version numbers.
func smallNumber(s string) (int, bool) {
	if len(s) == 0 || len(s) > 2 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// Effort returns the output effort for a thinking level on models with
// adaptive thinking: minimal and low are "low", medium "medium", high
// "high", xhigh "max".
func Effort(l llm.ThinkingLevel) string {
	switch l {
	case llm.ThinkingMinimal, llm.ThinkingLow:
		return "low"
	case llm.ThinkingMedium:
		return "medium"
	case llm.ThinkingXHigh:
		return "max"
	}
	return "high"
}

// systemBlocks returns the system prompt as at most two text blocks: the
// stable parts (before the first volatile one) joined, ending with a cache
// breakpoint, and the volatile parts joined.
func systemBlocks(parts []llm.SystemPart) []block {
	cut := len(parts)
	for i, p := range parts {
		if p.Volatile {
			cut = i
			break
		}
	}
	var out []block
	if s := llm.SystemText(nonEmpty(parts[:cut])); s != "" {
		out = append(out, block{Type: "text", Text: s, CacheControl: ephemeral})
	}
	if s := llm.SystemText(nonEmpty(parts[cut:])); s != "" {
		out = append(out, block{Type: "text", Text: s})
	}
	return out
}

func nonEmpty(parts []llm.SystemPart) []llm.SystemPart {
	out := parts[:0:0]
	for _, p := range parts {
		if strings.TrimSpace(p.Text) != "" {
			out = append(out, p)
		}
	}
	return out
}

// messageBreakpoints is how many of the latest user messages get a cache
// breakpoint. With the system prompt's, that makes three of the four the
// API allows. The second one matters in long tool loops: it marks where
// the previous request wrote its cache, which the API would otherwise
// find only within 20 blocks of the newest breakpoint.
const messageBreakpoints = 2

// messages converts the conversation: tool results become tool_result
// blocks, and consecutive user-side messages (tool results and user
// messages) are merged into one user message, tool results first as they
// came.
func messages(msgs []llm.Message) []message {
	sendable := llm.Sendable(msgs, llm.APIAnthropicMessages)
	out := make([]message, 0, len(sendable))
	addUser := func(bs ...block) {
		if len(bs) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == "user" {
			out[n-1].Content = append(out[n-1].Content, bs...)
			return
		}
		out = append(out, message{Role: "user", Content: bs})
	}
	for i := range sendable {
		m := &sendable[i]
		switch m.Role {
		case llm.RoleAssistant:
			if bs := assistantBlocks(m); len(bs) > 0 {
				out = append(out, message{Role: "assistant", Content: bs})
			}
		case llm.RoleToolResult:
			addUser(toolResultBlock(m))
		default:
			addUser(userBlocks(m.Content)...)
		}
	}
	marked := 0
	for i := len(out) - 1; i >= 0 && marked < messageBreakpoints; i-- {
		if out[i].Role == "user" {
			out[i].Content[len(out[i].Content)-1].CacheControl = ephemeral
			marked++
		}
	}
	return out
}
