package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool/builtin"
)

// update sends one session update. Updates are sent even while the
// prompt is being cancelled, so that the client sees how each tool call
// ended; a failure to write means the client is gone, which the
// connection notices on its own.
func (ss *acpSession) update(u sdk.SessionUpdate) {
	_ = ss.srv.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(ss.id), Update: u})
}

// onEvent turns the agent's events into session updates. It runs on the
// goroutine of the event and never waits for the client's answers.
func (ss *acpSession) onEvent(_ context.Context, ev coding.Event) error {
	if ev.Approval != nil {
		go ss.ask(ev.Approval)
		return nil
	}
	switch ev.Type {
	case agent.EventMessageUpdate:
		if ev.Delta == nil || ev.Delta.Delta == "" {
			return nil
		}
		switch ev.Delta.Type {
		case llm.EventTextDelta:
			ss.update(sdk.UpdateAgentMessageText(ev.Delta.Delta))
		case llm.EventThinkingDelta:
			ss.update(sdk.UpdateAgentThoughtText(ev.Delta.Delta))
		}
	case agent.EventToolStart:
		if ev.Call == nil {
			return nil
		}
		c, locs := describe(*ev.Call, ss.agent.Workspace())
		c.capture(ss.agent.Workspace())
		ss.mu.Lock()
		ss.calls[ev.Call.ID] = c
		ss.mu.Unlock()
		ss.update(sdk.StartToolCall(sdk.ToolCallId(ev.Call.ID), c.title,
			sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending),
			sdk.WithStartLocations(locs), sdk.WithStartRawInput(rawInput(ev.Call.Arguments))))
	case agent.EventToolUpdate:
		if ev.Call == nil {
			return nil
		}
		c := ss.call(ev.Call.ID)
		opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)}
		if ev.Result != nil {
			if content := resultContent(ev.Result.Content); len(content) > 0 {
				opts = append(opts, sdk.WithUpdateContent(content))
			}
		}
		if c != nil {
			c.started = true
		}
		ss.update(sdk.UpdateToolCall(sdk.ToolCallId(ev.Call.ID), opts...))
	case agent.EventToolEnd:
		if ev.Call == nil || ev.Result == nil {
			return nil
		}
		c := ss.call(ev.Call.ID)
		ss.mu.Lock()
		delete(ss.calls, ev.Call.ID)
		ss.mu.Unlock()
		status := sdk.ToolCallStatusCompleted
		if ev.Result.IsError {
			status = sdk.ToolCallStatusFailed
		}
		var content []sdk.ToolCallContent
		if c != nil && !ev.Result.IsError {
			content = c.diffs()
		}
		if content == nil {
			content = resultContent(ev.Result.Content)
		}
		opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)}
		if raw := rawOutput(ev.Result.Details, ev.Result.IsError); raw != nil {
			opts = append(opts, sdk.WithUpdateRawOutput(raw))
		}
		ss.update(sdk.UpdateToolCall(sdk.ToolCallId(ev.Call.ID), opts...))
		if isWorkTool(ev.Call.Name) {
			ss.sendPlan()
		}
	case agent.EventTurnEnd:
		ss.sendPlan()
		if ev.Context != nil && ev.Context.Window > 0 {
			u := &sdk.SessionUsageUpdate{Used: ev.Context.Tokens, Size: ev.Context.Window}
			if ev.Message != nil && ev.Message.Usage != nil {
				ss.mu.Lock()
				ss.cost += ev.Message.Usage.Cost.Total
				cost := ss.cost
				ss.mu.Unlock()
				if cost > 0 {
					u.Cost = &sdk.Cost{Amount: cost, Currency: "USD"}
				}
			}
			ss.update(sdk.SessionUpdate{UsageUpdate: u})
		}
	case harness.EventNavigate, harness.EventCompaction:
		// The conversation moved under the client: nothing to stream.
	}
	return nil
}

// call returns the state of a running tool call, or nil.
func (ss *acpSession) call(id string) *callState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.calls[id]
}

// rawInput is the call's arguments as a JSON value (an object when they
// parsed, else the text the model wrote).
func rawInput(args []byte) any {
	c := llm.Content{Arguments: args}
	if c.ArgumentsObject() {
		return jsonValue(args)
	}
	return c.RawArguments()
}

type jsonValue []byte

func (j jsonValue) MarshalJSON() ([]byte, error) { return j, nil }

// rawOutput is the structured result of a call the client may show: a
// command's exit status, signal and time-out; nil for other tools.
func rawOutput(details any, isError bool) any {
	switch d := details.(type) {
	case builtin.BashDetails:
		return bashOutput(d)
	case *builtin.BashDetails:
		if d != nil {
			return bashOutput(*d)
		}
	}
	if isError {
		return map[string]any{"error": true}
	}
	return nil
}

func bashOutput(d builtin.BashDetails) map[string]any {
	m := map[string]any{"exitCode": d.ExitCode}
	if d.Signal != "" {
		m["signal"] = d.Signal
	}
	if d.TimedOut {
		m["timedOut"] = true
	}
	if d.Cancelled {
		m["cancelled"] = true
	}
	if d.Sandbox != "" {
		m["sandbox"] = d.Sandbox
	}
	return m
}

// promptText turns the client's prompt blocks into the text and images
// Submit takes: text as is, embedded resources as fenced context with
// their URI, resource links as mentions. ok is false, with the reason,
// for a block rein cannot take (audio).
func promptText(blocks []sdk.ContentBlock) (text string, images []llm.Content, reason string) {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
	}
	for _, blk := range blocks {
		switch {
		case blk.Text != nil:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteString("\n")
			}
			b.WriteString(blk.Text.Text)
		case blk.Image != nil:
			if blk.Image.Data == "" {
				return "", nil, "an image block without data (rein does not fetch image URIs)"
			}
			images = append(images, llm.Image(blk.Image.Data, blk.Image.MimeType))
		case blk.Resource != nil:
			r := blk.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				sep()
				b.WriteString("<context uri=\"" + r.TextResourceContents.Uri + "\">\n")
				b.WriteString(r.TextResourceContents.Text)
				if !strings.HasSuffix(r.TextResourceContents.Text, "\n") {
					b.WriteString("\n")
				}
				b.WriteString("</context>")
			case r.BlobResourceContents != nil:
				sep()
				b.WriteString("(binary resource " + r.BlobResourceContents.Uri + " attached; its content is not shown)")
			}
		case blk.ResourceLink != nil:
			sep()
			b.WriteString("@" + strings.TrimPrefix(blk.ResourceLink.Uri, "file://"))
		case blk.Audio != nil:
			return "", nil, "audio prompts are not supported (promptCapabilities.audio is false)"
		}
	}
	return b.String(), images, ""
}
