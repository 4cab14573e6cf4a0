package openai

import (
	"context"
	"iter"

	"github.com/reinhq/rein/llm"
)

// Responses is a Provider for the Responses API (POST {base}/responses).
// It is safe for concurrent use.
type Responses struct {
	c call
}

var _ llm.Provider = (*Responses)(nil)

// NewResponses returns a Responses API provider.
func NewResponses(opts Options) *Responses {
	cfg := &config{opts: opts}
	return &Responses{c: call{
		cfg:   cfg,
		path:  "/responses",
		build: buildResponses,
		decoder: func(e *llm.Emitter, cp Compat, provider string, secrets []string) decoder {
			return newRespDecoder(e, provider, secrets...)
		},
	}}
}

// Stream sends req and streams the reply; see llm.Provider for the
// contract.
func (p *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return p.c.stream(ctx, req)
}
