package coding

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/tool/builtin"
)

// Inspect returns what the first request of an agent opened with o would
// start with — the system prompt and the tools on offer (MCP tools
// aside) — without starting anything or opening a session. Notes about
// the workspace go to o.Warn.
func Inspect(ctx context.Context, o Options) ([]llm.SystemPart, *tool.Registry, error) {
	s, err := newSetup(o)
	if err != nil {
		return nil, nil, err
	}
	reg, err := s.toolset(&builtin.Jobs{})
	if err != nil {
		return nil, nil, err
	}
	b := s.builder(s.discover(true), false)
	if reg, err = s.withSkillTool(reg, b); err != nil {
		return nil, nil, err
	}
	sys, err := b.System(ctx, prompt.Turn{Tools: reg.Names(), Turn: 1})
	if err != nil {
		return nil, nil, err
	}
	return sys, reg, nil
}

// errCaptured stops a request once its body is captured.
var errCaptured = errors.New("request captured, not sent")

// FirstRequest returns the body of the first request an agent opened with
// o would send to its provider for text (a template is expanded), as
// the provider wrote it; nothing is sent and no session is written. A
// provider that exposes no body (the scripted faux model) is an error.
func FirstRequest(ctx context.Context, o Options, text string) ([]byte, error) {
	o.NoSession = true
	a, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	h := a.Harness()
	var body []byte
	so := h.StreamOptions()
	so.OnPayload = func(_ context.Context, b []byte) ([]byte, error) {
		if body == nil {
			body = append([]byte(nil), b...)
		}
		return nil, errCaptured
	}
	h.SetStreamOptions(so)
	h.Prompt(ctx, a.Expand(text)) // no UserPromptSubmit hooks: nothing is sent
	if body == nil {
		return nil, fmt.Errorf("the %s provider does not expose its request body (the faux model sends none)", h.Model().Provider)
	}
	return body, nil
}
