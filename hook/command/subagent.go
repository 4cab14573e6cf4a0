package command

import "context"

// SubagentStart runs the SubagentStart hooks whose matcher matches
// agentType, as the parent spawns (or resumes) a sub-agent. Like Claude
// Code's, these hooks cannot block: Context (their additionalContext) is
// for the sub-agent, to add before its first prompt. The hooks of a
// child's own session report agent_id and agent_type through
// Runner.AgentID instead.
func (c *Runner) SubagentStart(ctx context.Context, agentID, agentType string) Verdict {
	if !c.Has(SubagentStart) {
		return Verdict{}
	}
	v := c.Run(ctx, Input{HookEventName: SubagentStart, AgentID: agentID, AgentType: agentType}, agentType)
	v.Decision, v.Reason = "", ""
	return v
}

// SubagentStopInput is what a SubagentStop hook is told about a
// sub-agent that is about to finish.
type SubagentStopInput struct {
	AgentID, AgentType string
	// TranscriptPath is the sub-agent's own log.
	TranscriptPath string
	// LastAssistantMessage is the text of its final reply.
	LastAssistantMessage string
	// StopHookActive is set when the sub-agent is already going on
	// because a SubagentStop hook blocked its end.
	StopHookActive bool
}

// SubagentStop runs the SubagentStop hooks whose matcher matches the
// agent type, from the parent's side. A Decision of "block" means the
// sub-agent must go on, with Reason as its next instruction. A runtime
// that gives each child its own Runner with AgentID set gets the same
// hooks from Install instead, at the end of the child's run; use one or
// the other.
func (c *Runner) SubagentStop(ctx context.Context, in SubagentStopInput) Verdict {
	if !c.Has(SubagentStop) {
		return Verdict{}
	}
	active, last := in.StopHookActive, in.LastAssistantMessage
	return c.Run(ctx, Input{HookEventName: SubagentStop, AgentID: in.AgentID, AgentType: in.AgentType,
		AgentTranscriptPath: in.TranscriptPath, LastAssistantMessage: &last, StopHookActive: &active}, in.AgentType)
}
