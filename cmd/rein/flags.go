package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/failover"
	"github.com/spf13/cobra"
)

// addPeerFlags adds the flags users know from other agent command lines
// to a command that runs the agent.
func addPeerFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.StringVar(&o.systemPrompt, "system-prompt", "", "replace rein's system prompt with this text (@FILE reads it from a file)")
	f.StringVar(&o.appendSystem, "append-system-prompt", "", "append this text to the system prompt (@FILE reads it from a file)")
	f.DurationVar(&o.requestTimeout, "request-timeout", 0, "give up on one model call after this long, retries included (e.g. 2m; 0 = no limit)")
	f.DurationVar(&o.idleTimeout, "idle-timeout", 0, "fail a model stream that sends nothing for this long; it is then retried (default 90s, or the provider's idle_timeout)")
}

// addSessionFlags adds -c/--continue and --resume to a command that
// starts a run or a chat.
func addSessionFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the last session of this workspace")
	f.StringVar(&o.resume, "resume", "", "continue the session with this id (or a unique prefix of it, or a file path)")
}

// sessionRef is the session named by -c or --resume, "" for none.
func (o *runOptions) sessionRef() (string, error) {
	switch {
	case o.cont && o.resume != "":
		return "", errors.New("-c/--continue and --resume both name a session: give one of them")
	case o.cont:
		return "last", nil
	}
	return o.resume, nil
}

// flagText resolves a flag value that may name a file as @FILE.
func flagText(name, v string) (string, error) {
	path, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", name, err)
	}
	return string(b), nil
}

// resolveTextFlags reads the @FILE forms of the system prompt flags.
func (o *runOptions) resolveTextFlags() error {
	var err error
	if o.systemPrompt, err = flagText("system-prompt", o.systemPrompt); err != nil {
		return err
	}
	o.appendSystem, err = flagText("append-system-prompt", o.appendSystem)
	return err
}

// describeRetry says in words what a failover event means, or "" for
// events that need no line of their own (the final error follows them).
func describeRetry(ev failover.Event) string {
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

// errorHint suggests what to do about a failed model call, or "".
func errorHint(err error, baseURL string) string {
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
