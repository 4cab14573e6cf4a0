package gemini

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/internal/wire"
)

// googleError is the google.rpc.Status envelope Gemini uses for failed
// replies and for errors inside a stream.
type googleError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
		Reason     string `json:"reason"`
	} `json:"details"`
}

// parseGoogleError reads {"error": {...}}, a JSON array of those, or the
// bare status object.
func parseGoogleError(body []byte) (googleError, bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return googleError{}, false
		}
		body = arr[0]
	}
	var env struct {
		Error *googleError `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		return *env.Error, true
	}
	var ge googleError
	if json.Unmarshal(body, &ge) == nil && (ge.Message != "" || ge.Status != "") {
		return ge, true
	}
	return googleError{}, false
}

// retryDelay returns the delay of a google.rpc.RetryInfo detail, if any.
func (g *googleError) retryDelay() time.Duration {
	for _, d := range g.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") && d.RetryDelay != "" {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

func (g *googleError) reason() string {
	for _, d := range g.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// refine corrects the generic classification with what Gemini's status
// envelope says: RESOURCE_EXHAUSTED is a rate limit (Gemini words its
// per-minute limits as quota), an invalid API key comes back as 400, and
// RetryInfo carries the wait when there is no Retry-After header.
func refine(le *llm.Error, g *googleError) {
	switch {
	case g.Status == "RESOURCE_EXHAUSTED" || g.Code == http.StatusTooManyRequests:
		le.Code = llm.CodeRateLimit
	case g.reason() == "API_KEY_INVALID" || strings.Contains(strings.ToLower(g.Message), "api key not valid"):
		le.Code = llm.CodeAuth
	}
	if le.RetryAfter == 0 {
		le.RetryAfter = g.retryDelay()
	}
}

// chunkError classifies an "error" object found inside a stream.
func (d *decoder) chunkError(raw []byte) error {
	body := make([]byte, 0, len(raw)+10)
	body = append(append(append(body, `{"error":`...), raw...), '}')
	msg := wire.Redact(wire.ErrorMessage(body), d.secrets...)
	le := &llm.Error{Provider: d.provider, Message: "the stream reported an error: " + msg}
	g, ok := parseGoogleError(body)
	if ok && g.Code >= 400 {
		le.Code = llm.ClassifyHTTP(g.Code, string(body))
	} else {
		le.Code = llm.ClassifyText(string(body))
	}
	if le.Code == llm.CodeUnknown {
		le.Code = llm.CodeServerError
	}
	if ok {
		refine(le, &g)
	}
	return le
}

// maxErrorBody caps how much of a failed reply is kept for inspection.
const maxErrorBody = 64 << 10

// captureTransport keeps the body of a failed reply so that its
// google.rpc details (RetryInfo, ErrorInfo) can be read after wire.Do has
// classified it; the response keeps an identical body.
type captureTransport struct {
	base http.RoundTripper
	body []byte
}

func (t *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	t.body = b
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}
