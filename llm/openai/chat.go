package openai

import (
	"context"
	"iter"
	"strings"

	"github.com/reinhq/rein/llm"
)

// Chat is a Provider for the Chat Completions API (POST
// {base}/chat/completions), spoken by OpenAI and most OpenAI-compatible
// servers. It is safe for concurrent use.
type Chat struct {
	c call
}

var _ llm.Provider = (*Chat)(nil)

// NewChat returns a Chat Completions provider.
func NewChat(opts Options) *Chat {
	cfg := &config{opts: opts}
	return &Chat{c: call{
		cfg:   cfg,
		path:  "/chat/completions",
		build: buildChat,
		decoder: func(e *llm.Emitter, cp Compat, provider string, secrets []string) decoder {
			return newChatDecoder(e, provider, cp, secrets...)
		},
		onError: developerHint,
		wrapJSON: func(body []byte) []byte {
			return append(sseFrame("", body), "data: [DONE]\n\n"...)
		},
	}}
}

// Stream sends req and streams the reply; see llm.Provider for the
// contract.
func (p *Chat) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return p.c.stream(ctx, req)
}

// developerHint points at the compat switch when a server rejects the
// developer role.
func developerHint(e *llm.Error, cp Compat) {
	if e.Status == 400 && !cp.NoDeveloperRole && strings.Contains(strings.ToLower(e.Message), "developer") {
		e.Message += ` (this server or model does not accept the "developer" role; set Compat.NoDeveloperRole to send the system prompt with role "system")`
	}
}
