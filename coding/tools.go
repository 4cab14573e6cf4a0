package coding

import (
	"slices"
	"strings"

	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/tool/builtin"
)

// toolset builds the registry named by Options.Tools from the built-in
// tools; bash gets the sandbox and an environment without secrets, and
// its background jobs go to jobs.
func (s *setup) toolset(jobs *builtin.Jobs) (*tool.Registry, error) {
	ws := s.ws
	ws.Files = s.o.Files
	tools := builtin.Tools(ws)
	for i, t := range tools {
		if t.Name == "bash" {
			tools[i] = builtin.Bash(s.ws, s.bashOptions(jobs))
		}
	}
	if c := s.o.child; c != nil {
		// A child gets the parent's tools its definition allows, no more.
		tools = slices.DeleteFunc(tools, func(t *tool.Tool) bool { return !c.tools[t.Name] })
		return tool.NewRegistry(tools...)
	}
	all, err := tool.NewRegistry(tools...)
	if err != nil {
		return nil, err
	}
	spec := strings.TrimSpace(s.o.Tools)
	if s.o.restoreTools && spec == "" {
		return all, nil
	}
	if spec == "" {
		spec = "coding"
	}
	if spec == "none" {
		return tool.NewRegistry()
	}
	var allow, deny []string
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if strings.HasPrefix(item, "-") {
			deny = append(deny, item[1:])
		} else if item != "" {
			allow = append(allow, item)
		}
	}
	allow, deny = withoutAgentTools(allow), withoutAgentTools(deny)
	if len(allow) == 0 {
		allow = []string{"coding"}
	}
	return all.Select(allow, deny)
}

// noTools reports whether Options.Tools offers no tools at all.
func (s *setup) noTools() bool { return strings.TrimSpace(s.o.Tools) == "none" }

// withSkillTool adds the skill tool to reg when skills were found and
// tools are offered at all, unless Options.Tools says -skill.
func (s *setup) withSkillTool(reg *tool.Registry, b *prompt.Builder) (*tool.Registry, error) {
	if c := s.o.child; c != nil && !c.tools[prompt.SkillToolName] {
		return reg, nil
	}
	if len(b.Found().Skills) == 0 || len(reg.Names()) == 0 || reg.Get(prompt.SkillToolName) != nil {
		return reg, nil
	}
	for _, item := range strings.Split(s.o.Tools, ",") {
		if strings.TrimSpace(item) == "-"+prompt.SkillToolName {
			return reg, nil
		}
	}
	return tool.NewRegistry(append(slices.Clone(reg.Tools()), b.SkillTool())...)
}

// limitOptions configures the output limit; the context window is
// filled in from each turn's model.
func (s *setup) limitOptions() tool.LimitOptions {
	return tool.LimitOptions{Workdir: s.ws.Root, Redact: s.o.Redactor.String}
}
