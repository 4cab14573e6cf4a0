package openai

import (
	"context"
	"net/http"
	"testing"

	"go.uber.org/goleak"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func TestMain(m *testing.M) {
	llmtest.QuickMinimize()
	goleak.VerifyTestMain(m)
}

const fixtures = "../../testdata/providers/"

func readFixture(t testing.TB, name string) []byte { return llmtest.Fixture(t, fixtures, name) }

// replay answers every request with body as an event stream.
func replay(body []byte) http.HandlerFunc { return llmtest.SSE(body, 0) }

// result is a drained stream.
type result struct {
	events []llm.Event
	final  llm.Message
	err    error
}

// drainStream reads a stream with llmtest.Drain, which checks the
// provider contract.
func drainStream(t testing.TB, p llm.Provider, ctx context.Context, req *llm.Request) result {
	t.Helper()
	s := llmtest.Drain(t, p.Stream(ctx, req))
	return result{events: s.Events, final: s.Message, err: s.Err}
}

func chatProvider(s *llmtest.Server, cp Compat) *Chat {
	return NewChat(Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: cp})
}

func respProvider(s *llmtest.Server, cp Compat) *Responses {
	return NewResponses(Options{BaseURL: s.URL, HTTPClient: s.Client(), Compat: cp})
}

// openaiCompat forces api.openai.com behaviour on the loopback server.
var openaiCompat = Compat{MaxTokensField: "max_completion_tokens"}
