package wire

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestKeepAliveLines: keep-alives are told from data however the stream
// is cut into reads.
func TestKeepAliveLines(t *testing.T) {
	cases := []struct {
		stream string
		data   bool
	}{
		{": ping\n\n", false},
		{"event: ping\ndata: {\"type\": \"ping\"}\n\n", false},
		{": OPENROUTER PROCESSING\n\n:\n\n", false},
		{"\n\n\n", false},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n", true},
		{"data: {\"choices\":[]}\n\n", true},
		{`{"error":{"message":"x"}}` + "\n", true},
		{strings.Repeat("x", 200), true}, // a long line counts before it ends
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.stream); cut++ {
			var w lineWatch
			got := w.progress([]byte(c.stream[:cut]))
			got = w.progress([]byte(c.stream[cut:])) || got
			if got != c.data {
				t.Fatalf("%q cut at %d: data = %v, want %v", c.stream, cut, got, c.data)
			}
		}
	}
}

// TestDeadlineHoldsWithData: data resets the idle timer, but a stream
// that sends data without end still fails at the overall deadline.
func TestDeadlineHoldsWithData(t *testing.T) {
	pr, pw := io.Pipe()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				pw.Close()
				return
			default:
			}
			if _, err := pw.Write([]byte("data: {\"x\":1}\n\n")); err != nil {
				return
			}
		}
	}()
	body := StreamTimeout(pr, time.Hour, 100*time.Millisecond)
	_, err := io.Copy(io.Discard, body)
	close(stop)
	body.Close()
	pr.Close()
	<-done
	if !errors.Is(err, ErrDeadline) {
		t.Fatalf("err = %v, want ErrDeadline", err)
	}
}
