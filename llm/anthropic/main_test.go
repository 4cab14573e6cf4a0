package anthropic

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestMain(m *testing.M) {
	llmtest.QuickMinimize()
	goleak.VerifyTestMain(m)
}

const recorded = "../../testdata/providers/anthropic-messages"

var fixedNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// sonnet is the model most recordings used.
var sonnet = llm.Model{
	ID: "claude-sonnet-4-20250514", Provider: "anthropic", API: llm.APIAnthropicMessages,
	ContextWindow: 200000, MaxOutput: 64000, Reasoning: true,
	Price: llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
}

func readFile(t testing.TB, name string) []byte { return llmtest.Fixture(t, recorded, name) }

func newClient(url string, opts Options) *Client {
	opts.BaseURL = url
	c := New(opts)
	c.now = func() time.Time { return fixedNow }
	return c
}

// run drains a stream with llmtest.Drain, which checks the provider
// contract, and returns the final message, the events and the final
// error.
func run(t testing.TB, ctx context.Context, p llm.Provider, req *llm.Request) (llm.Message, []llm.Event, error) {
	t.Helper()
	s := llmtest.Drain(t, p.Stream(ctx, req))
	return s.Message, s.Events, s.Err
}

func userReq(model llm.Model, text string) *llm.Request {
	return &llm.Request{Model: model, Messages: []llm.Message{llm.UserText(text)}}
}
