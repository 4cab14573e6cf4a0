package openai

import (
	"bytes"
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
		wrapJSON: func(body []byte) []byte {
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte(`{"type"`)) {
				return sseFrame("", body) // a single event
			}
			// A whole response object, or an error envelope.
			return sseFrame("", append(append([]byte(`{"type":"response.completed","response":`), body...), '}'))
		},
	}}
}

// Stream sends req and streams the reply; see llm.Provider for the
// contract.
func (p *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return p.c.stream(ctx, req)
}
