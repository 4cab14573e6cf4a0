package coding

import (
	"context"

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
