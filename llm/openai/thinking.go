package openai

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/reinhq/rein/llm"
)

// effort maps a thinking level to an OpenAI reasoning effort for a model;
// "" means send none. See the package documentation for the table.
func effort(model string, l llm.ThinkingLevel) (string, error) {
	name := model
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	switch l {
	case "", llm.ThinkingOff:
		return "", nil
	case llm.ThinkingMinimal:
		if supportsMinimal(name) {
			return "minimal", nil
		}
		return "low", nil
	case llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh:
		return string(l), nil
	case llm.ThinkingXHigh:
		if supportsXHigh(name) {
			return "xhigh", nil
		}
		return "high", nil
	}
	return "", fmt.Errorf("unknown thinking level %q (want off, minimal, low, medium, high or xhigh)", l)
}

// supportsMinimal reports whether a model accepts effort "minimal": the
// first GPT-5 family (gpt-5, gpt-5-mini, gpt-5-nano and their snapshots).
// Later versions replaced it with "none".
func supportsMinimal(name string) bool {
	return name == "gpt-5" || (strings.HasPrefix(name, "gpt-5-") && !strings.Contains(name, "codex"))
}

// supportsXHigh reports whether a model accepts effort "xhigh": GPT-5.2
// and later, and the codex-max models.
func supportsXHigh(name string) bool {
	if strings.Contains(name, "codex-max") {
		return true
	}
	rest, ok := strings.CutPrefix(name, "gpt-5.")
	if !ok {
		return false
	}
	n := 0
	for i := 0; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
		if n > 1000 {
			break
		}
	}
	return n >= 2
}

// defaultToolCallIDLength is OpenAI's limit on tool-call ids.
const defaultToolCallIDLength = 40

// toolCallID returns id as the server accepts it: unchanged when it is
// short enough and made of letters, digits, '_' and '-', otherwise a
// stable id derived from it. The same input always gives the same output,
// so calls and their results still match.
func toolCallID(id string, limit int) string {
	if limit <= 0 {
		limit = defaultToolCallIDLength
	}
	if id != "" && len(id) <= limit && plainID(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:])
	if limit >= 16 {
		return "call_" + h[:min(len(h), limit-5, 32)]
	}
	return h[:limit]
}

func plainID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// dataURL returns an image block as a data URL.
func dataURL(c *llm.Content) string {
	mt := c.MIMEType
	if mt == "" {
		mt = "image/png"
	}
	return "data:" + mt + ";base64," + c.Data
}

// acceptsImages reports whether images may be sent to the model. A model
// that lists no input kinds is assumed to take them; the server decides.
func acceptsImages(m *llm.Model) bool {
	return len(m.Input) == 0 || m.AcceptsImages()
}

const imageOmitted = "[image omitted: this model does not accept images]"

// toolResultImages introduces images taken out of tool results, which the
// APIs accept only as text, in the user message that follows them.
const toolResultImages = "Images returned by the tool calls above:"

// maxTokens returns the reply cap of a request, zero for none.
func maxTokens(req *llm.Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return req.Model.MaxOutput
}

// emptyParams is the schema sent for a tool without parameters.
var emptyParams = []byte(`{"type":"object","properties":{}}`)
