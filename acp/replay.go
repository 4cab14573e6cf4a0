package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// replay sends the session's active branch as session updates, in
// order: user messages, the model's thinking and text, its tool calls
// (kind, title, locations, raw input) and each call's stored result
// (text, or the diff of an edit, completed or failed). A branch summary
// left by a navigation is shown as a message. Calls whose result never
// made it to the log end as failed.
func (ss *acpSession) replay(ctx context.Context) error {
	sess := ss.agent.Session()
	branch, err := sess.Branch(sess.Leaf())
	if err != nil {
		return err
	}
	calls := map[string]*callState{}
	var order []string
	for _, e := range branch {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch e.Type {
		case session.TypeBranchSummary:
			if e.Summary != "" {
				ss.update(sdk.UpdateAgentMessageText("(summary of another branch) " + e.Summary))
			}
		case session.TypeMessage:
			if e.Message == nil {
				continue
			}
			ss.replayMessage(e.Message, calls, &order)
		}
	}
	if u, ok := ss.plan(); ok {
		ss.update(u)
	}
	for _, id := range order {
		if _, open := calls[id]; open {
			ss.update(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("no result was recorded (the run was interrupted)"))})))
		}
	}
	return nil
}

func (ss *acpSession) replayMessage(m *llm.Message, calls map[string]*callState, order *[]string) {
	switch m.Role {
	case llm.RoleUser:
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText:
				ss.update(sdk.UpdateUserMessageText(c.Text))
			case llm.ContentImage:
				ss.update(sdk.UpdateUserMessage(sdk.ImageBlock(c.Data, c.MIMEType)))
			}
		}
	case llm.RoleAssistant:
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentThinking:
				if c.Text != "" {
					ss.update(sdk.UpdateAgentThoughtText(c.Text))
				}
			case llm.ContentText:
				if c.Text != "" {
					ss.update(sdk.UpdateAgentMessageText(c.Text))
				}
			case llm.ContentToolCall:
				st, locs := describe(c, ss.agent.Workspace())
				calls[c.ID] = st
				*order = append(*order, c.ID)
				ss.update(sdk.StartToolCall(sdk.ToolCallId(c.ID), st.title, sdk.WithStartKind(st.kind),
					sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartLocations(locs), sdk.WithStartRawInput(rawInput(c.Arguments))))
			}
		}
	case llm.RoleToolResult:
		st := calls[m.ToolCallID]
		delete(calls, m.ToolCallID)
		status := sdk.ToolCallStatusCompleted
		if m.IsError {
			status = sdk.ToolCallStatusFailed
		}
		var content []sdk.ToolCallContent
		if st != nil && !m.IsError && st.name == "edit" {
			content = st.diffs()
		}
		if content == nil {
			content = resultContent(m.Content)
		}
		ss.update(sdk.UpdateToolCall(sdk.ToolCallId(m.ToolCallID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
	}
}
