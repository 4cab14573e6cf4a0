// Package wire holds the HTTP plumbing the model wire clients share:
// sending a request, turning a failed reply into a classified *llm.Error,
// honouring Retry-After, and guarding a stream against stalls.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reinhq/rein/redact"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reinhq/rein/llm"
)

// maxErrorBody caps how much of a failed reply is read.
const maxErrorBody = 64 << 10

// Do sends req with client and returns the response when its status is
// 2xx. Otherwise it reads the body, closes it and returns a classified
// *llm.Error naming provider. Transport failures are classified too:
// cancellation as aborted, deadlines as timeout, anything else as
// server_error. Secrets are removed from every message.
func Do(ctx context.Context, client *http.Client, req *http.Request, provider string, secrets ...string) (*http.Response, error) {
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, TransportError(ctx, err, provider, secrets...)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := Redact(ErrorMessage(body), secrets...)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return nil, &llm.Error{
		Code:       llm.ClassifyHTTP(resp.StatusCode, string(body)),
		Status:     resp.StatusCode,
		Message:    msg,
		Provider:   provider,
		RetryAfter: RetryAfter(resp.Header, time.Now()),
	}
}

// TransportError classifies an error from reading or sending over HTTP.
func TransportError(ctx context.Context, err error, provider string, secrets ...string) error {
	if errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled) {
		return &llm.Error{Code: llm.CodeAborted, Provider: provider, Message: "request cancelled", Err: context.Canceled}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrIdle) || errors.Is(err, ErrDeadline) || (errors.As(err, &ne) && ne.Timeout()) {
		return &llm.Error{Code: llm.CodeTimeout, Provider: provider, Message: Redact(err.Error(), secrets...), Err: err}
	}
	return &llm.Error{Code: llm.CodeServerError, Provider: provider, Message: Redact(err.Error(), secrets...), Err: err}
}

// ErrorMessage extracts a human-readable message from an error body in
// the shapes providers use: {"error": {"message": …}}, {"error": "…"},
// {"message": …}, a JSON array of those (Gemini), or plain text.
func ErrorMessage(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		if len(s) > 500 {
			s = s[:500] + "…"
		}
		return s
	}
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return s
	}
	if e, ok := obj["error"]; ok {
		switch e := e.(type) {
		case string:
			return e
		case map[string]any:
			msg, _ := e["message"].(string)
			typ, _ := e["type"].(string)
			if typ == "" {
				typ, _ = e["status"].(string)
			}
			if typ == "" {
				typ, _ = e["code"].(string)
			}
			if msg != "" && typ != "" && !strings.Contains(msg, typ) {
				return typ + ": " + msg
			}
			if msg != "" {
				return msg
			}
		}
	}
	if msg, ok := obj["message"].(string); ok {
		return msg
	}
	return s
}

// RetryAfter reads the delay a server asked for from retry-after-ms or
// Retry-After (seconds or an HTTP date), relative to now. It returns zero
// when there is none.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// Redact masks every occurrence of each secret in s (redact.Values).
func Redact(s string, secrets ...string) string { return redact.Values(s, secrets...) }

// ErrIdle is the cause of a stream that stalled longer than its idle
// timeout: nothing arrived, or only keep-alives (SSE comments, ping
// events), which do not count as data.
var ErrIdle = errors.New("stream stalled: no data (keep-alive pings aside) received within the idle timeout")

// ErrDeadline is the cause of a stream that went on longer than its
// overall deadline, however steadily data (keep-alive pings included)
// arrived. Classified as timeout, like ErrIdle.
var ErrDeadline = errors.New("stream too long: the reply did not finish within the overall deadline")

// TotalFactor is how many idle timeouts make the overall deadline that
// IdleTimeout also applies: 60 s idle gives 30 minutes.
const TotalFactor = 30

// DefaultIdle is the idle timeout the provider clients use when none is
// configured: a stream that sends nothing but keep-alives for a minute
// fails then, with the reason, instead of holding the run.
const DefaultIdle = 60 * time.Second

// IdleTimeout is StreamTimeout with an overall deadline of TotalFactor
// times d. d <= 0 returns body unchanged. The returned body must be
// closed.
func IdleTimeout(body io.ReadCloser, d time.Duration) io.ReadCloser {
	if d <= 0 {
		return body
	}
	return StreamTimeout(body, d, TotalFactor*d)
}

// StreamTimeout wraps a response body so that a read waiting longer than
// idle for data fails with ErrIdle, and any read after total has passed
// since the call fails with ErrDeadline; either closes the body,
// unblocking the read. Data resets only the idle timer, and keep-alives
// do not count as data: a line that is blank, an SSE comment (": ping"),
// "event: ping" or a ping event's data line leaves the idle timer
// running, so a server that only pings fails after idle. A zero or
// negative duration disables its guard. The returned body must be
// closed.
func StreamTimeout(body io.ReadCloser, idle, total time.Duration) io.ReadCloser {
	return streamTimeout(body, idle, total, realAfter)
}

// timer is what idleBody needs of a *time.Timer.
type timer interface {
	Reset(time.Duration) bool
	Stop() bool
}

// afterFunc starts a timer that calls f after d: time.AfterFunc, or a
// fake clock in tests.
type afterFunc func(d time.Duration, f func()) timer

func realAfter(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

func streamTimeout(body io.ReadCloser, idle, total time.Duration, after afterFunc) io.ReadCloser {
	if idle <= 0 && total <= 0 {
		return body
	}
	ib := &idleBody{body: body, d: idle}
	if idle > 0 {
		ib.timer = after(idle, func() { ib.expire(&ib.idle) })
	}
	if total > 0 {
		ib.total = total
		ib.deadline = after(total, func() { ib.expire(&ib.late) })
	}
	return ib
}

type idleBody struct {
	body     io.ReadCloser
	d, total time.Duration
	timer    timer
	deadline timer
	mu       sync.Mutex
	idle     bool
	late     bool
	lines    lineWatch
}

func (b *idleBody) expire(flag *bool) {
	b.mu.Lock()
	*flag = true
	b.mu.Unlock()
	b.body.Close()
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	idle, late := b.idle, b.late
	b.mu.Unlock()
	if late {
		return n, fmt.Errorf("%w (%s)", ErrDeadline, b.total)
	}
	if idle {
		return n, fmt.Errorf("%w (%s)", ErrIdle, b.d)
	}
	if n > 0 && b.timer != nil && b.lines.progress(p[:n]) {
		b.timer.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	if b.deadline != nil {
		b.deadline.Stop()
	}
	return b.body.Close()
}
