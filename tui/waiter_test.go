package tui

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWaiterShowsWaitAndRetries(t *testing.T) {
	var buf syncBuffer
	w := NewWaiter(&buf, false)
	w.ticks = make(chan time.Time)
	start := time.Unix(0, 0)
	var calls atomic.Int64
	w.now = func() time.Time { return start.Add(time.Duration(calls.Add(1)) * time.Second) }
	w.begin()
	// A tick is taken only once the previous one is drawn.
	w.ticks <- time.Time{}
	w.ticks <- time.Time{}
	w.Retry(failover.Event{Kind: failover.EventRetry, Reason: llm.CodeTimeout, Attempt: 2, Delay: time.Second, Message: "no bytes for 90s"})
	w.ticks <- time.Time{}
	w.ticks <- time.Time{}
	w.Close()
	s := buf.String()
	for _, want := range []string{"waiting for the model · 1s", "waiting for the model · 2s", "rein: retrying in 1s (attempt 2): timeout — no bytes for 90s\n", "retry 2: timeout"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q: %q", want, s)
		}
	}
	if !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", s[max(0, len(s)-40):])
	}
}
