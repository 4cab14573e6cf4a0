package llm

import (
	"strings"
	"testing"
)

// TestAccumulatorStreamedText checks text built from many deltas: the
// result, that partial texts seen earlier are not changed by later
// deltas, and that a block whose text was replaced in between continues
// from the replacement.
func TestAccumulatorStreamedText(t *testing.T) {
	var a Accumulator
	a.Add(Event{Type: EventStart, Message: &Message{}})
	a.Add(Event{Type: EventThinkingStart, Index: 0})
	a.Add(Event{Type: EventTextStart, Index: 1})
	var want strings.Builder
	var seen []string
	for i := range 2000 {
		d := string(rune('a' + i%26))
		want.WriteString(d)
		a.Add(Event{Type: EventTextDelta, Index: 1, Delta: d})
		a.Add(Event{Type: EventThinkingDelta, Index: 0, Delta: "."})
		if i%500 == 0 {
			seen = append(seen, a.Partial().Content[1].Text)
		}
	}
	if got := a.Partial().Content[1].Text; got != want.String() {
		t.Fatalf("text has %d bytes, want %d", len(got), want.Len())
	}
	for n, s := range seen {
		if s != want.String()[:n*500+1] {
			t.Errorf("partial text %d changed after later deltas: %q", n, s)
		}
	}
	if got := a.Partial().Content[0].Text; got != strings.Repeat(".", 2000) {
		t.Errorf("thinking has %d bytes", len(got))
	}
	a.Partial().Content[0].Text = "replaced"
	a.Add(Event{Type: EventThinkingDelta, Index: 0, Delta: "!"})
	if got := a.Partial().Content[0].Text; got != "replaced!" {
		t.Errorf("thinking after replacement = %q", got)
	}
}

func BenchmarkAccumulatorTextDeltas(b *testing.B) {
	b.ReportAllocs()
	var a Accumulator
	for b.Loop() {
		a.Reset()
		a.Add(Event{Type: EventStart, Message: &Message{}})
		a.Add(Event{Type: EventTextStart, Index: 0})
		for range 4000 {
			a.Add(Event{Type: EventTextDelta, Index: 0, Delta: "word "})
		}
		a.Add(Event{Type: EventTextEnd, Index: 0})
	}
}
