package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestErrorMessage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"slow down","type":"rate_limit_error"}}`, "rate_limit_error: slow down"},
		{`{"error":{"message":"bad key","code":"invalid_api_key"}}`, "invalid_api_key: bad key"},
		{`[{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}]`, "RESOURCE_EXHAUSTED: Resource exhausted"},
		{`{"error":"plain"}`, "plain"},
		{`{"message":"top"}`, "top"},
		{`not json at all`, "not json at all"},
		{``, ""},
	}
	for _, tt := range tests {
		if got := ErrorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{h("Retry-After", "7"), 7 * time.Second},
		{h("Retry-After", "1.5"), 1500 * time.Millisecond},
		{h("retry-after-ms", "250", "Retry-After", "7"), 250 * time.Millisecond},
		{h("Retry-After", now.Add(30*time.Second).Format(http.TimeFormat)), 30 * time.Second},
		{h("Retry-After", "garbage"), 0},
		{h("Retry-After", "-3"), 0},
		{h(), 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestDoClassifiesAndRedacts(t *testing.T) {
	const key = "sk-secret-key-1234"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/429":
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"rate limited","type":"rate_limit_error"}}`)
		case "/401":
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	do := func(path string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		return Do(ctx, srv.Client(), req, "test", key)
	}
	_, err := do("/429")
	var le *llm.Error
	if !errors.As(err, &le) || le.Code != llm.CodeRateLimit || le.Status != 429 || le.RetryAfter != 3*time.Second || le.Provider != "test" {
		t.Fatalf("429: %#v", err)
	}
	_, err = do("/401")
	if !errors.Is(err, llm.ErrAuth) || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("401: %v", err)
	}
	resp, err := do("/ok")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	// A server that is not there is a transport failure, classified.
	req, _ := http.NewRequest("GET", "http://127.0.0.1:1/", nil)
	if _, err := Do(ctx, nil, req, "test"); !errors.Is(err, llm.ErrServerError) {
		t.Fatalf("refused: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Do(cctx, srv.Client(), req, "test"); !errors.Is(err, llm.ErrAborted) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestIdleTimeout(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	body := IdleTimeout(pr, 30*time.Millisecond)
	defer body.Close()
	go pw.Write([]byte("hello"))
	buf := make([]byte, 16)
	if n, err := body.Read(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("first read: %q %v", buf[:n], err)
	}
	_, err := body.Read(buf) // nothing more arrives
	if !errors.Is(err, ErrIdle) {
		t.Fatalf("stalled read: %v", err)
	}
	if code := llm.CodeOf(TransportError(context.Background(), err, "p")); code != llm.CodeTimeout {
		t.Fatalf("stall classified as %s", code)
	}
}

// fakeTimer is a timer of fakeClock: it fires only when the test says.
type fakeTimer struct {
	d      time.Duration
	f      func()
	resets int
}

func (f *fakeTimer) Reset(time.Duration) bool { f.resets++; return true }
func (f *fakeTimer) Stop() bool               { return true }

// fakeClock hands out fakeTimers in the order they are started.
type fakeClock struct{ timers []*fakeTimer }

func (c *fakeClock) after(d time.Duration, f func()) timer {
	t := &fakeTimer{d: d, f: f}
	c.timers = append(c.timers, t)
	return t
}

// TestDataDoesNotExtendDeadline: data resets only the idle timer (and
// keep-alive pings not even that, see keepalive.go); once the overall
// deadline passes, the next read fails with ErrDeadline however steadily
// data arrives. A fake clock decides when
// each timer fires, so the machine's load cannot change the outcome.
func TestDataDoesNotExtendDeadline(t *testing.T) {
	pr, pw := io.Pipe()
	clock := &fakeClock{}
	body := streamTimeout(pr, 150*time.Millisecond, TotalFactor*150*time.Millisecond, clock.after)
	defer body.Close()
	if len(clock.timers) != 2 {
		t.Fatalf("%d timers started, want idle and deadline", len(clock.timers))
	}
	idle, deadline := clock.timers[0], clock.timers[1]
	if idle.d != 150*time.Millisecond || deadline.d != TotalFactor*150*time.Millisecond {
		t.Fatalf("timers for %s and %s", idle.d, deadline.d)
	}
	ping := "event: content_block_delta\ndata: {\"type\": \"content_block_delta\"}\n\n"
	go func() {
		for {
			if _, err := pw.Write([]byte(ping)); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, len(ping))
	for i := range 5 {
		if _, err := io.ReadFull(body, buf); err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
	}
	if idle.resets < 5 || deadline.resets != 0 {
		t.Fatalf("idle timer reset %d times, deadline %d times; want every read to reset only the idle one", idle.resets, deadline.resets)
	}
	deadline.f() // the overall deadline passes while data still flows
	_, err := body.Read(buf)
	if !errors.Is(err, ErrDeadline) {
		t.Fatalf("read after the deadline: %v, want ErrDeadline", err)
	}
	if code := llm.CodeOf(TransportError(context.Background(), err, "p")); code != llm.CodeTimeout {
		t.Fatalf("deadline classified as %s", code)
	}
	pw.CloseWithError(io.ErrClosedPipe)
}

func TestRedact(t *testing.T) {
	if got := Redact("key sk-abcdef and sk-abcdef", "sk-abcdef", "", "ab"); got != "key [REDACTED] and [REDACTED]" {
		t.Fatalf("Redact = %q", got)
	}
}
