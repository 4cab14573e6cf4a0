package coding

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
)

// DescribeRetry says in words what a failover event means, or "" for
// events that need no line of their own (the final error follows them).
func DescribeRetry(ev failover.Event) string {
	msg := ev.Message
	if len(msg) > 160 {
		msg = msg[:157] + "…"
	}
	switch ev.Kind {
	case failover.EventRetry:
		return fmt.Sprintf("retrying in %s (attempt %d): %s — %s", ev.Delay.Round(100*time.Millisecond), ev.Attempt, ev.Reason, msg)
	case failover.EventRotate:
		return fmt.Sprintf("trying the next key of %s (%s)", ev.Provider, ev.Reason)
	case failover.EventFallback:
		return fmt.Sprintf("falling back to %s/%s after %s failed (%s)", ev.Provider, ev.Model, ev.From, ev.Reason)
	case failover.EventCooldown:
		return fmt.Sprintf("%s rests for %s (%s)", ev.Profile, ev.Delay.Round(time.Second), ev.Reason)
	case failover.EventState:
		return "cooldown state: " + msg
	}
	return ""
}

// Hint suggests what to do about a failed model call, or "".
func Hint(err error, baseURL string) string {
	if err == nil {
		return ""
	}
	var host string
	if u, perr := url.Parse(baseURL); perr == nil {
		host = u.Host
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		if host == "" {
			return "the connection was refused: is the server running?"
		}
		return fmt.Sprintf("nothing answers at %s: is the server running?", host)
	case llm.CodeOf(err) == llm.CodeModelNotFound && baseURL != "" && !hasVersionPath(baseURL):
		return fmt.Sprintf("the server at %s answered 404: the API path may be missing; "+
			"OpenAI- and Anthropic-compatible servers usually serve under /v1 (--base-url %s/v1), Gemini under /v1beta",
			host, strings.TrimRight(baseURL, "/"))
	case llm.CodeOf(err) == llm.CodeModelNotFound:
		return "rein models lists the models rein knows; a model missing there can still be named as provider/<id>"
	case llm.CodeOf(err) == llm.CodeTimeout:
		return "the model did not answer in time: check the server, or raise --idle-timeout / --request-timeout"
	case llm.CodeOf(err) == llm.CodeAuth && baseURL != "":
		return "the server at " + host + " refused the request: set the provider's API key (e.g. ANTHROPIC_API_KEY or OPENAI_API_KEY) if it needs one"
	}
	return ""
}

func hasVersionPath(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return true
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}
