package rpc

import (
	"encoding/json"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/interop"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// piMessage is m in pi's AgentMessage shape, JSON null for nil.
func piMessage(m *llm.Message) json.RawMessage {
	if m == nil {
		return json.RawMessage("null")
	}
	b, err := interop.PiMessage(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func piMessages(ms []llm.Message) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(ms))
	for i := range ms {
		out = append(out, piMessage(&ms[i]))
	}
	return out
}

// piResult is a tool result as pi's events carry it.
func piResult(r *tool.Result) map[string]any {
	if r == nil {
		return map[string]any{"content": []any{}, "details": map[string]any{}}
	}
	m := llm.Message{Role: llm.RoleToolResult, Content: r.Content}
	var pm struct {
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(piMessage(&m), &pm)
	return map[string]any{"content": pm.Content, "details": map[string]any{}}
}

// piEvent translates one of rein's events into pi's RPC event, or nil
// for events pi's protocol has no form for.
func (s *state) piEvent(ev harness.Event) map[string]any {
	switch ev.Type {
	case agent.EventAgentStart:
		return map[string]any{"type": "agent_start"}
	case agent.EventAgentEnd:
		return map[string]any{"type": "agent_end", "messages": piMessages(ev.Messages)}
	case agent.EventTurnStart:
		return map[string]any{"type": "turn_start"}
	case agent.EventTurnEnd:
		return map[string]any{"type": "turn_end", "message": piMessage(ev.Message), "toolResults": piMessages(ev.ToolResults)}
	case agent.EventMessageStart, agent.EventMessageEnd:
		return map[string]any{"type": string(ev.Type), "message": piMessage(ev.Message)}
	case agent.EventMessageUpdate:
		if ev.Delta == nil {
			return nil
		}
		partial := piMessage(ev.Message)
		d := map[string]any{"type": string(ev.Delta.Type), "contentIndex": ev.Delta.Index, "partial": partial}
		switch ev.Delta.Type {
		case llm.EventTextDelta, llm.EventThinkingDelta, llm.EventToolCallDelta:
			d["delta"] = ev.Delta.Delta
		case llm.EventTextEnd, llm.EventThinkingEnd:
			if c := ev.Delta.Content; c != nil {
				d["content"] = c.Text
			}
		case llm.EventToolCallEnd:
			if c := ev.Delta.Content; c != nil {
				m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{*c}}
				var pm struct {
					Content []json.RawMessage `json:"content"`
				}
				json.Unmarshal(piMessage(&m), &pm)
				if len(pm.Content) == 1 {
					d["toolCall"] = pm.Content[0]
				}
			}
		case llm.EventDone, llm.EventError:
			if ev.Message != nil {
				d["reason"] = piStop(ev.Message.StopReason)
			}
		}
		return map[string]any{"type": "message_update", "message": partial, "assistantMessageEvent": d}
	case agent.EventToolStart, agent.EventToolUpdate, agent.EventToolEnd:
		if ev.Call == nil {
			return nil
		}
		name, args := piCall(ev.Call)
		out := map[string]any{"toolCallId": ev.Call.ID, "toolName": name, "args": args}
		switch ev.Type {
		case agent.EventToolStart:
			out["type"] = "tool_execution_start"
		case agent.EventToolUpdate:
			out["type"] = "tool_execution_update"
			out["partialResult"] = piResult(ev.Result)
		default:
			out["type"] = "tool_execution_end"
			out["result"] = piResult(ev.Result)
			out["isError"] = ev.Result != nil && ev.Result.IsError
		}
		return out
	case harness.EventAfterCompaction:
		r := ev.Compaction
		if r == nil {
			return nil
		}
		res := map[string]any{"tokensBefore": r.TokensBefore, "details": map[string]any{}}
		s.mu.Lock()
		if e := s.compaction; e != nil {
			res["summary"], res["firstKeptEntryId"] = e.Summary, e.FirstKept
		}
		s.mu.Unlock()
		return map[string]any{"type": "compaction_end", "reason": r.Reason, "aborted": false, "willRetry": r.Reason == "overflow", "result": res}
	}
	return nil
}

// piCall is the call's name and arguments as pi names them.
func piCall(c *llm.Content) (string, json.RawMessage) {
	var pm struct {
		Content []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"content"`
	}
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{*c}}
	json.Unmarshal(piMessage(&m), &pm)
	if len(pm.Content) == 1 && len(pm.Content[0].Arguments) > 0 {
		return pm.Content[0].Name, pm.Content[0].Arguments
	}
	return c.Name, json.RawMessage("{}")
}

func piStop(r llm.StopReason) string {
	switch r {
	case llm.StopToolUse:
		return "toolUse"
	case "":
		return "stop"
	}
	return string(r)
}
