package subagent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/reinhq/rein/tool"
)

// ToolName is the name of the agent tool; CancelToolName the tool that
// stops a child. Claude Code's transcripts, hooks and rules call the
// agent tool Task or Agent: Aliases lists those names.
const (
	ToolName       = "agent"
	CancelToolName = "agent_cancel"
)

// Aliases are other names of the agent tool.
var Aliases = []string{"Task", "Agent"}

// IsToolName reports whether name is the agent tool under any of its
// names.
func IsToolName(name string) bool {
	if name == ToolName {
		return true
	}
	for _, a := range Aliases {
		if name == a {
			return true
		}
	}
	return false
}

// Args are the agent tool's arguments.
type Args struct {
	SubagentType string `json:"subagent_type" jsonschema:"the agent to delegate to (one of those listed in the description)"`
	Description  string `json:"description" jsonschema:"a short (3-5 word) description of the task"`
	Prompt       string `json:"prompt" jsonschema:"the task for the agent: everything it needs to know, since it sees nothing of this conversation"`
	Background   bool   `json:"run_in_background,omitempty" jsonschema:"run without waiting: the call returns the agent's id at once and its result arrives as a message when it ends"`
}

// CancelArgs are agent_cancel's arguments.
type CancelArgs struct {
	ID string `json:"id" jsonschema:"the id of the sub-agent to stop (as the agent tool returned it)"`
}

// Tools returns the agent tool and agent_cancel, bound to r.
func (r *Runtime) Tools() []*tool.Tool {
	at := tool.MustNew(ToolName, r.describe(), func(ctx context.Context, call *tool.Call, a Args) (tool.Result, error) {
		if strings.TrimSpace(a.Prompt) == "" {
			return tool.Errorf("the agent tool needs a prompt: the task for the sub-agent"), nil
		}
		res, err := r.Spawn(ctx, Request{Type: a.SubagentType, Description: a.Description, Prompt: a.Prompt, Background: a.Background, CallID: call.ID})
		if err != nil {
			return tool.Errorf("%v", err), nil
		}
		rec := res.Record
		if rec.Background && !rec.State.Terminal() {
			out := tool.Text(fmt.Sprintf("Started sub-agent %s (%s) in the background. Its result will arrive as a message when it ends; do not wait or poll for it. agent_cancel with this id stops it.", rec.ID, rec.Agent))
			out.Details = rec
			return out, nil
		}
		text := res.Outcome.Final
		if text == "" {
			text = "(the sub-agent gave no answer)"
		}
		if rec.State != Completed {
			state := string(rec.State)
			if rec.Stop != "" {
				state += " (" + rec.Stop + ")"
			}
			text = fmt.Sprintf("The sub-agent %s: %s\n\n%s", state, rec.Error, text)
		}
		out := tool.Text(text + "\n\n" + Footer(rec))
		out.IsError = rec.State != Completed
		out.Details = rec
		return out, nil
	})
	ct := tool.MustNew(CancelToolName, "Stop a sub-agent that is still running (started in the background, or queued), by the id the agent tool returned.", func(ctx context.Context, call *tool.Call, a CancelArgs) (tool.Result, error) {
		rec, ok := r.Cancel(a.ID)
		if !ok {
			if rec.ID != "" {
				return tool.Errorf("sub-agent %s has already ended (%s)", rec.ID, rec.State), nil
			}
			return tool.Errorf("there is no sub-agent %q; the running ones are: %s", a.ID, r.activeIDs()), nil
		}
		return tool.Text(fmt.Sprintf("Cancelled sub-agent %s (%s).", rec.ID, rec.Agent)), nil
	})
	at.Aliases = Aliases
	// Neither tool changes a file or runs a command itself: every call of
	// a child passes its own permission gate, in a mode no looser than
	// the parent's. So the modes that let reading run let these run.
	at.ReadOnly, ct.ReadOnly = true, true
	return []*tool.Tool{at, ct}
}

func (r *Runtime) activeIDs() string {
	var ids []string
	for _, rec := range r.Active() {
		ids = append(ids, rec.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// describe is the agent tool's description: what it does and the agents
// there are.
func (r *Runtime) describe() string {
	var b strings.Builder
	b.WriteString("Delegate a task to a sub-agent: a separate agent with its own context and a restricted set of tools. It sees nothing of this conversation, so give it everything it needs in the prompt. Its final answer comes back as the result. Several calls in one message run in parallel. With run_in_background the call returns at once and the result arrives as a message later.\n\nAgents:\n")
	defs := r.o.Definitions.All()
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	for _, d := range defs {
		fmt.Fprintf(&b, "- %s: %s\n", d.Name, d.Description)
	}
	return b.String()
}

// Footer is the line that ends a foreground result: agent, turns,
// tokens, cost, duration and the child's session id.
func Footer(rec Record) string {
	return fmt.Sprintf("[agent %s · %d turns · %d in / %d out tokens · $%.4f · %s · session %s]",
		rec.Agent, rec.Turns, rec.Usage.Input, rec.Usage.Output, rec.Usage.Cost, rec.Duration().Round(time.Millisecond), rec.ID)
}

// Announcement is the message a parent receives when a background child
// ends.
func Announcement(rec Record, final string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<subagent-result id=%q agent=%q state=%q>\n", rec.ID, rec.Agent, rec.State)
	if rec.Error != "" {
		b.WriteString(rec.Error + "\n")
	}
	if final != "" {
		b.WriteString(final + "\n")
	}
	b.WriteString(Footer(rec) + "\n</subagent-result>")
	return b.String()
}
