package llmtest

import (
	"fmt"
	"iter"
	"net/http"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
)

// fakeTB records the failure Drain reports and stops it as t.Fatal would.
type fakeTB struct {
	testing.TB
	failure string
}

type stopped struct{}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatal(args ...any) {
	f.failure = fmt.Sprint(args...)
	panic(stopped{})
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failure = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func drainFailure(events ...llm.Event) (failure string) {
	f := &fakeTB{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			failure = f.failure
		}
	}()
	var seq iter.Seq2[llm.Event, error] = func(yield func(llm.Event, error) bool) {
		for _, ev := range events {
			var err error
			if ev.Type == llm.EventError {
				err = &llm.Error{Code: llm.CodeServerError, Message: "boom"}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
	Drain(f, seq)
	return ""
}

func TestDrainChecksTheContract(t *testing.T) {
	msg := func(text string) *llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		if text != "" {
			m.Content = []llm.Content{llm.Text(text)}
		}
		return &m
	}
	start := llm.Event{Type: llm.EventStart, Message: msg("")}
	open := llm.Event{Type: llm.EventTextStart, Index: 0}
	delta := llm.Event{Type: llm.EventTextDelta, Index: 0, Delta: "hi"}
	end := llm.Event{Type: llm.EventTextEnd, Index: 0}
	done := llm.Event{Type: llm.EventDone, Message: msg("hi")}
	for _, tc := range []struct {
		name   string
		events []llm.Event
		want   string // "" for no failure
	}{
		{"well formed", []llm.Event{start, open, delta, end, done}, ""},
		{"no start", []llm.Event{open, delta, end, done}, "want start"},
		{"two starts", []llm.Event{start, start, done}, "second start"},
		{"no final", []llm.Event{start, open, delta, end}, "0 final events"},
		{"after final", []llm.Event{start, open, delta, end, done, done}, "after the final event"},
		{"open block", []llm.Event{start, open, delta, done}, "still open"},
		{"delta without block", []llm.Event{start, delta, done}, "not an open text block"},
		{"other content", []llm.Event{start, open, end, done}, "other content"},
	} {
		if got := drainFailure(tc.events...); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: failure %q, want one containing %q", tc.name, got, tc.want)
		}
	}
}

func TestServerRecordsAndReplaysEvents(t *testing.T) {
	s := NewServer(t, SSEEvents([]byte("data: 1\r\n\r\ndata: 2\n\ndata: 3")))
	resp, err := http.Post(s.URL+"/v1/x?k=v", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "data: 1\r\n\r\ndata: 2\n\ndata: 3" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("reply %q, %v", got, resp.Header)
	}
	last := s.Last(t)
	if s.Count() != 1 || last.Method != "POST" || last.Path != "/v1/x" || last.Query != "k=v" || string(last.Body) != `{"a":1}` ||
		s.LastHeader().Get("Content-Type") != "application/json" {
		t.Errorf("recorded %+v", last)
	}
	for _, tc := range []struct {
		in   string
		want int
	}{{"data: 1\n\ndata: 2\n\n", 9}, {"data: 1\r\n\r\nx\n\n", 11}, {"data: 1", 7}, {"a\n\nb\r\n\r\n", 3}} {
		if got := eventEnd([]byte(tc.in)); got != tc.want {
			t.Errorf("eventEnd(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func TestSSEFraming(t *testing.T) {
	if got := SSEData(`{"a":1}`, "[DONE]"); got != "data: {\"a\":1}\n\ndata: [DONE]\n\n" {
		t.Errorf("SSEData: %q", got)
	}
	if got := SSETyped(`{"type":"ping"}`, `{"x"`); got != "event: ping\ndata: {\"type\":\"ping\"}\n\nevent: \ndata: {\"x\"\n\n" {
		t.Errorf("SSETyped: %q", got)
	}
	if got := string(SSEFromJSONL(t, []byte("{\"type\":\"a\"}\n\n {\"type\":\"b\"} \n"))); got != "event: a\ndata: {\"type\":\"a\"}\n\nevent: b\ndata: {\"type\":\"b\"}\n\n" {
		t.Errorf("SSEFromJSONL: %q", got)
	}
}
