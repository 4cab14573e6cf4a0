package gemini

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/llmtest"
)

func TestMain(m *testing.M) {
	llmtest.QuickMinimize()
	goleak.VerifyTestMain(m)
}

// fixtures is the folder of recorded Gemini exchanges.
const fixtures = "../../testdata/providers/gemini"

func readFixture(t testing.TB, name string) []byte { return llmtest.Fixture(t, fixtures, name) }

// sseServer replays body as a streaming reply, one SSE event per write
// and flush, and records the requests.
func sseServer(t testing.TB, body []byte) *llmtest.Server {
	t.Helper()
	return llmtest.NewServer(t, llmtest.SSEEvents(body))
}

func testModel(id, base string) llm.Model {
	return llm.Model{ID: id, Provider: "google", API: llm.APIGemini, BaseURL: base}
}

// result is a drained stream.
type result struct {
	events []llm.Event
	msg    llm.Message
	err    error
}

// drain reads a stream with llmtest.Drain, which checks the provider
// contract.
func drain(t testing.TB, seq func(func(llm.Event, error) bool)) result {
	t.Helper()
	s := llmtest.Drain(t, seq)
	return result{events: s.Events, msg: s.Message, err: s.Err}
}

func stream(t testing.TB, c *Client, req *llm.Request) result {
	t.Helper()
	return drain(t, c.Stream(context.Background(), req))
}
