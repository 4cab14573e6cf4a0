package llmtest

import (
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/reinhq/rein/llm"
)

// Stream is a stream read to its end.
type Stream struct {
	Events []llm.Event
	// Message is the final event's message; Err the error that came with
	// it (nil after a done event).
	Message llm.Message
	Err     error
}

// Drain reads a stream to its end and checks the contract every provider
// keeps, failing the test at once when it is broken: the first event is
// start, and the only one; exactly one final event (done or error) ends the stream and
// carries the message; an error comes only with an error event, and an
// error event always has one; the blocks are well formed (CheckBlocks);
// and the content the events build (llm.Accumulator) is the final
// message's content.
func Drain(t testing.TB, seq iter.Seq2[llm.Event, error]) Stream {
	t.Helper()
	var s Stream
	var acc llm.Accumulator
	finals := 0
	for ev, err := range seq {
		if finals > 0 {
			t.Fatalf("event %s after the final event", ev.Type)
		}
		if len(s.Events) == 0 && ev.Type != llm.EventStart {
			t.Fatalf("first event is %s, want start", ev.Type)
		}
		if len(s.Events) > 0 && ev.Type == llm.EventStart {
			t.Fatal("a second start event")
		}
		if err != nil && ev.Type != llm.EventError {
			t.Fatalf("error %v on a %s event", err, ev.Type)
		}
		s.Events = append(s.Events, ev)
		if !ev.Final() {
			acc.Add(ev)
			continue
		}
		finals++
		if ev.Message == nil {
			t.Fatalf("final %s event without a message", ev.Type)
		}
		if ev.Type == llm.EventError && err == nil {
			t.Fatal("error event without an error")
		}
		s.Message, s.Err = *ev.Message, err
	}
	if finals != 1 {
		t.Fatalf("the stream ended with %d final events, want 1", finals)
	}
	if err := CheckBlocks(s.Events); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s.Message.Content, acc.Message().Content, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("the events build other content than the final message (-final +built):\n%s", d)
	}
	return s
}

// CheckBlocks checks the block structure of a stream: blocks are opened
// in index order, deltas and ends refer to an open block of their kind,
// and every block is closed before the final event.
func CheckBlocks(events []llm.Event) error {
	type block struct {
		kind string
		open bool
	}
	var blocks []block
	kindOf := func(t llm.EventType) string { return strings.SplitN(string(t), "_", 2)[0] }
	for n, ev := range events {
		switch ev.Type {
		case llm.EventTextStart, llm.EventThinkingStart, llm.EventToolCallStart:
			if ev.Index != len(blocks) {
				return fmt.Errorf("event %d: %s opens block %d, want %d", n, ev.Type, ev.Index, len(blocks))
			}
			blocks = append(blocks, block{kindOf(ev.Type), true})
		case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta,
			llm.EventTextEnd, llm.EventThinkingEnd, llm.EventToolCallEnd:
			if ev.Index < 0 || ev.Index >= len(blocks) || !blocks[ev.Index].open || blocks[ev.Index].kind != kindOf(ev.Type) {
				return fmt.Errorf("event %d: %s for block %d, which is not an open %s block", n, ev.Type, ev.Index, kindOf(ev.Type))
			}
			if strings.HasSuffix(string(ev.Type), "_end") {
				blocks[ev.Index].open = false
			}
		case llm.EventDone, llm.EventError:
			for i, b := range blocks {
				if b.open {
					return fmt.Errorf("block %d still open at the final event", i)
				}
			}
		}
	}
	return nil
}
