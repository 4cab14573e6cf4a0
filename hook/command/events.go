package command

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/reinhq/rein/hook"
	"github.com/reinhq/rein/tool"
)

// ToolVerdict is what PreToolUse hooks decided about one call, in rein's
// terms.
type ToolVerdict struct {
	// Decision is "deny", "ask", "allow" or "".
	Decision string
	Reason   string
	// Args, when non-nil, are the call's new arguments (from
	// updatedInput, translated back to rein's shape).
	Args    json.RawMessage
	Context string
	// Stop is set when a hook said "continue": false.
	Stop string
}

// PreToolUse runs the PreToolUse hooks matching the call's tool (by rein's
// name and by Claude Code's name for it: bash and Bash). mode is the
// permission mode in Claude Code's words.
func (c *Runner) PreToolUse(ctx context.Context, call *tool.Call, mode string) ToolVerdict {
	if !c.Has(PreToolUse) {
		return ToolVerdict{}
	}
	name, input := claudeTool(reinName(call), call.Args, c.ProjectDir)
	v := c.Run(ctx, Input{HookEventName: PreToolUse, PermissionMode: mode, ToolName: name, ToolInput: input, ToolUseID: call.ID,
		Rein: &ReinTool{ToolName: call.Name, ToolInput: call.Args}}, toolNames(name, reinName(call))...)
	tv := ToolVerdict{Decision: v.Decision, Reason: v.Reason, Context: v.Context}
	if v.Stopped {
		tv.Stop = v.Stop
	}
	if v.UpdatedInput != nil {
		if rn := reinName(call); name != rn {
			tv.Args = reinInput(rn, call.Args, v.UpdatedInput)
		} else {
			tv.Args = v.UpdatedInput
		}
	}
	return tv
}

// NotePostToolUse marks results that PostToolUse hooks added to.
const NotePostToolUse = "hook:post_tool_use"

// ToolMiddleware returns middleware that runs the PostToolUse hooks after
// each call: a block (exit status 2 or "decision": "block") and
// additionalContext are added to the result for the model; "continue":
// false ends the run after the batch. Install runs the same hooks as a
// typed tool_result handler instead, so that they sit where the other
// hooks do; use one or the other.
func (c *Runner) ToolMiddleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		if !c.Has(PostToolUse) {
			return next
		}
		return func(ctx context.Context, call *tool.Call) tool.Result {
			res := next(ctx, call)
			p := c.postToolUse(ctx, call, res)
			if p.Content != nil {
				res.Content = p.Content
			}
			res.Notes = append(res.Notes, p.Notes...)
			if p.Stop != "" && res.Stop == "" {
				res.Stop = p.Stop
			}
			return res
		}
	}
}

// postToolUse runs the PostToolUse hooks on a call's result and returns
// the patch: the feedback and context appended to the content, a note,
// and the stop reason of a hook that said "continue": false.
func (c *Runner) postToolUse(ctx context.Context, call *tool.Call, res tool.Result) hook.ToolResultResult {
	name, input := claudeTool(reinName(call), call.Args, c.ProjectDir)
	resp, _ := json.Marshal(toolResponse(reinName(call), input, res))
	v := c.Run(ctx, Input{HookEventName: PostToolUse, ToolName: name, ToolInput: input, ToolUseID: call.ID, ToolResponse: resp,
		Rein: &ReinTool{ToolName: call.Name, ToolInput: call.Args}}, toolNames(name, reinName(call))...)
	var add string
	if v.Decision == "block" {
		add = "PostToolUse hook feedback: " + v.Reason
	}
	if v.Context != "" {
		if add != "" {
			add += "\n"
		}
		add += v.Context
	}
	var p hook.ToolResultResult
	if add != "" {
		p.Content = append(slices.Clone(res.Content), tool.Text("\n\n"+add).Content...)
		p.Notes = []string{NotePostToolUse}
	}
	if v.Stopped {
		p.Stop = v.Stop
	}
	return p
}

// UserPromptSubmit runs the UserPromptSubmit hooks on a prompt. A
// Decision of "block" means the prompt must not reach the model (Reason
// says why); Context is added to the conversation with the prompt.
func (c *Runner) UserPromptSubmit(ctx context.Context, prompt string) Verdict {
	return c.Run(ctx, Input{HookEventName: UserPromptSubmit, Prompt: prompt})
}

// SessionStart runs the SessionStart hooks; source is startup, resume,
// clear or compact. Context is for the model.
func (c *Runner) SessionStart(ctx context.Context, source string) Verdict {
	return c.Run(ctx, Input{HookEventName: SessionStart, Source: source}, source)
}

// SessionEnd runs the SessionEnd hooks; reason is clear, logout,
// prompt_input_exit or other.
func (c *Runner) SessionEnd(ctx context.Context, reason string) {
	c.Run(ctx, Input{HookEventName: SessionEnd, Reason: reason}, reason)
}

// Notify runs the Notification hooks with a message.
func (c *Runner) Notify(ctx context.Context, message string) {
	c.Run(ctx, Input{HookEventName: Notification, Message: message})
}

// Install registers the Stop (SubagentStop in a sub-agent's session, see
// Runner.AgentID), PostToolUse and PreCompact command hooks on h (PostToolUse as a tool_result handler, see ToolMiddleware): a Stop
// hook that blocks keeps the agent going with its reason, and the next
// Stop call has stop_hook_active set; after MaxStopBlocks blocks in a row
// the agent may stop. A PreCompact hook that blocks cancels the
// compaction. The returned function removes them.
func (c *Runner) Install(h *hook.Hooks) (remove func()) {
	var removes []func()
	stop := Stop
	if c.AgentID != "" {
		stop = SubagentStop
	}
	if c.Has(stop) {
		removes = append(removes,
			h.OnBeforeAgentStart(func(context.Context, *hook.BeforeAgentStartEvent) (hook.BeforeAgentStartResult, error) {
				c.mu.Lock()
				c.stopBlocks = 0
				c.mu.Unlock()
				return hook.BeforeAgentStartResult{}, nil
			}, hook.Name("command hooks: reset Stop")),
			h.OnAgentStop(func(ctx context.Context, e *hook.AgentStopEvent) (hook.AgentStopResult, error) {
				c.mu.Lock()
				n := c.stopBlocks
				c.mu.Unlock()
				active := n > 0
				in := Input{HookEventName: stop, StopHookActive: &active}
				if e.Message != nil {
					last := e.Message.Text()
					in.LastAssistantMessage = &last
				}
				var names []string
				if stop == SubagentStop {
					c.mu.Lock()
					in.AgentTranscriptPath = c.TranscriptPath
					c.mu.Unlock()
					names = []string{c.AgentType}
				}
				v := c.Run(ctx, in, names...)
				if v.Decision != "block" {
					c.mu.Lock()
					c.stopBlocks = 0
					c.mu.Unlock()
					return hook.AgentStopResult{}, nil
				}
				max := c.MaxStopBlocks
				if max <= 0 {
					max = DefaultMaxStopBlocks
				}
				if n >= max {
					c.report(Report{Event: stop, Error: true, Message: fmt.Sprintf("%s hooks blocked %d times in a row; the agent stops anyway", stop, n)})
					c.mu.Lock()
					c.stopBlocks = 0
					c.mu.Unlock()
					return hook.AgentStopResult{}, nil
				}
				c.mu.Lock()
				c.stopBlocks = n + 1
				c.mu.Unlock()
				return hook.AgentStopResult{Block: true, Message: v.Reason}, nil
			}, hook.Name("command hooks: Stop")))
	}
	if c.Has(PostToolUse) {
		removes = append(removes, h.OnToolResult(func(ctx context.Context, e *hook.ToolResultEvent) (hook.ToolResultResult, error) {
			return c.postToolUse(ctx, e.Call, e.Result), nil
		}, hook.Name("command hooks: PostToolUse")))
	}
	if c.Has(PreCompact) {
		removes = append(removes, h.OnBeforeCompaction(func(ctx context.Context, e *hook.CompactionEvent) (hook.SummaryResult, error) {
			empty := ""
			v := c.Run(ctx, Input{HookEventName: PreCompact, Trigger: "manual", Instructions: &empty}, "manual")
			if v.Decision == "block" {
				return hook.SummaryResult{Cancel: true, Reason: v.Reason}, nil
			}
			return hook.SummaryResult{}, nil
		}, hook.Name("command hooks: PreCompact")))
	}
	return func() {
		for _, r := range removes {
			r()
		}
	}
}

// reinName is the name of the tool a call reached: a call made under an
// alias (Task or Agent for agent) is seen as a call of that tool.
func reinName(call *tool.Call) string {
	if call.Tool != nil {
		return call.Tool.Name
	}
	return call.Name
}
