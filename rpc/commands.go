package rpc

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/session"
)

// handler runs a command; its data goes into the response.
type handler func(s *state, c command) (any, error)

// handlers are the commands of pi's RPC mode that rein has.
var handlers = map[string]handler{
	"prompt":         (*state).prompt,
	"steer":          (*state).steer,
	"follow_up":      (*state).followUp,
	"abort":          func(s *state, c command) (any, error) { s.stop(); return nil, nil },
	"new_session":    func(s *state, c command) (any, error) { return cancelled(s.replace("")) },
	"switch_session": (*state).switchSession,
	"get_state":      (*state).getState,
	"get_messages": func(s *state, c command) (any, error) {
		return map[string]any{"messages": piMessages(s.messages())}, nil
	},
	"set_model":          (*state).setModel,
	"set_thinking_level": (*state).setThinking,
	"set_steering_mode": func(s *state, c command) (any, error) {
		return nil, s.agent().Harness().SetSteeringMode(harness.QueueMode(c.Mode))
	},
	"set_follow_up_mode": func(s *state, c command) (any, error) {
		return nil, s.agent().Harness().SetFollowUpMode(harness.QueueMode(c.Mode))
	},
	"compact":                 (*state).compact,
	"get_session_stats":       (*state).stats,
	"fork":                    (*state).fork,
	"get_fork_messages":       (*state).forkMessages,
	"get_last_assistant_text": (*state).lastText,
	"set_session_name":        (*state).setName,
	"get_commands":            (*state).commands,
	"extension_ui_response":   (*state).answer,
}

func cancelled(err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return map[string]any{"cancelled": false}, nil
}

// prompt starts a run, or while one runs queues the message as the
// streamingBehavior says; without one it is refused, as in pi.
func (s *state) prompt(c command) (any, error) {
	a := s.agent()
	switch c.StreamingBehavior {
	case "", "steer", "followUp":
	default:
		return nil, fmt.Errorf("unknown streamingBehavior %q: use steer or followUp", c.StreamingBehavior)
	}
	images := c.images()
	busy := s.streaming()
	if busy {
		switch c.StreamingBehavior {
		case "steer":
			return nil, a.Harness().Steer(a.Expand(c.Message), images...)
		case "followUp":
			return nil, a.Harness().FollowUp(a.Expand(c.Message), images...)
		default:
			return nil, errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")
		}
	}
	if cmd, args, ok, err := a.Command(c.Message); ok && err == nil && !cmd.Prompt && cmd.Run != nil {
		// rein's own slash commands run at once, as pi's extension
		// commands do; their text comes back in the response.
		text, err := cmd.Run(s.ctx, args)
		if err != nil {
			return nil, err
		}
		return map[string]any{"command": cmd.Name, "output": text}, nil
	}
	s.start(a, c.Message, images)
	return nil, nil
}

// images are the command's images as rein's content blocks.
func (c command) images() []llm.Content {
	var out []llm.Content
	for _, im := range c.Images {
		out = append(out, llm.Content{Type: llm.ContentImage, Data: im.Data, MIMEType: im.MIMEType})
	}
	return out
}

// steer queues a message for the running prompt's next step (templates
// expanded); while idle it waits for the next prompt.
func (s *state) steer(c command) (any, error) {
	a := s.agent()
	return nil, a.Harness().Steer(a.Expand(c.Message), c.images()...)
}

// followUp queues a message for when the running prompt would stop.
func (s *state) followUp(c command) (any, error) {
	a := s.agent()
	return nil, a.Harness().FollowUp(a.Expand(c.Message), c.images()...)
}

func (s *state) switchSession(c command) (any, error) {
	if c.SessionPath == "" {
		return nil, errors.New(`switch_session needs "sessionPath"`)
	}
	return cancelled(s.replace(c.SessionPath))
}

// messages is the conversation of the current branch.
func (s *state) messages() []llm.Message {
	if sl := s.agent().Session(); sl != nil {
		return sl.Context().Messages
	}
	return nil
}

// piModel is m in pi's Model shape.
func piModel(m llm.Model) map[string]any {
	input := []string{"text"}
	if m.AcceptsImages() {
		input = append(input, "image")
	}
	return map[string]any{"id": m.ID, "name": m.Name, "api": string(m.API), "provider": m.Provider, "baseUrl": m.BaseURL,
		"reasoning": m.Reasoning, "input": input, "contextWindow": m.ContextWindow, "maxTokens": m.MaxOutput,
		"cost": map[string]any{"input": m.Price.Input, "output": m.Price.Output, "cacheRead": m.Price.CacheRead, "cacheWrite": m.Price.CacheWrite}}
}

func (s *state) getState(c command) (any, error) {
	a := s.agent()
	h := a.Harness()
	steer, follow, next := h.Queued()
	streaming := s.streaming()
	st := map[string]any{
		"model": piModel(h.Model()), "thinkingLevel": string(h.Thinking()), "isStreaming": streaming,
		"isCompacting": h.Phase() == harness.PhaseCompaction, "steeringMode": string(h.SteeringMode()), "followUpMode": string(h.FollowUpMode()),
		"autoCompactionEnabled": true, "messageCount": len(s.messages()), "pendingMessageCount": steer + follow + next,
	}
	if st["thinkingLevel"] == "" {
		st["thinkingLevel"] = "off"
	}
	if sl := a.Session(); sl != nil {
		st["sessionFile"], st["sessionId"] = sl.Path(), sl.ID()
		if n := sl.Name(); n != "" {
			st["sessionName"] = n
		}
	}
	return st, nil
}

func (s *state) setModel(c command) (any, error) {
	a := s.agent()
	if c.ModelID == "" {
		return nil, errors.New(`set_model needs "modelId" (and "provider")`)
	}
	if m := a.Harness().Model(); m.ID == c.ModelID && (c.Provider == "" || c.Provider == m.Provider) {
		return piModel(m), nil // the model already in use
	}
	name := c.ModelID
	if c.Provider != "" {
		name = c.Provider + "/" + c.ModelID
	}
	cmd, _, ok, err := a.Command("/model " + name)
	if !ok || err != nil || cmd.Run == nil {
		return nil, errors.New("this agent cannot switch models")
	}
	if _, err := cmd.Run(s.ctx, name); err != nil {
		return nil, err
	}
	return piModel(a.Harness().Model()), nil
}

func (s *state) setThinking(c command) (any, error) {
	l := llm.ThinkingLevel(c.Level)
	if !l.Valid() {
		return nil, fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", c.Level)
	}
	return nil, s.agent().Harness().SetThinking(l)
}

func (s *state) compact(c command) (any, error) {
	a := s.agent()
	s.emit(map[string]any{"type": "compaction_start", "reason": "manual"})
	if err := a.Compact(s.ctx, c.CustomInstr); err != nil {
		s.emit(map[string]any{"type": "compaction_end", "reason": "manual", "result": nil, "aborted": false, "willRetry": false, "errorMessage": err.Error()})
		return nil, err
	}
	out := map[string]any{"details": map[string]any{}}
	if sl := a.Session(); sl != nil {
		es := sl.Entries()
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].Type == session.TypeCompaction {
				out["summary"], out["firstKeptEntryId"], out["tokensBefore"] = es[i].Summary, es[i].FirstKept, es[i].TokensBefore
				break
			}
		}
	}
	return out, nil
}

func (s *state) stats(c command) (any, error) {
	a := s.agent()
	var users, assistants, calls, results int
	var u llm.Usage
	msgs := s.messages()
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			users++
		case llm.RoleAssistant:
			assistants++
			calls += len(m.ToolCalls())
			if m.Usage != nil {
				u.Add(*m.Usage)
			}
		case llm.RoleToolResult:
			results++
		}
	}
	st := a.Harness().ContextStatus()
	out := map[string]any{
		"userMessages": users, "assistantMessages": assistants, "toolCalls": calls, "toolResults": results, "totalMessages": len(msgs),
		"tokens": map[string]any{"input": u.Input, "output": u.Output, "cacheRead": u.CacheRead, "cacheWrite": u.CacheWrite, "total": u.Total},
		"cost":   u.Cost.Total,
	}
	if st.Window > 0 {
		out["contextUsage"] = map[string]any{"tokens": st.Tokens, "contextWindow": st.Window, "percent": 100 * float64(st.Tokens) / float64(st.Window)}
	}
	if sl := a.Session(); sl != nil {
		out["sessionFile"], out["sessionId"] = sl.Path(), sl.ID()
	}
	return out, nil
}

// fork starts a new session holding the branch up to (not including)
// the user message entryId, as pi's fork does, and returns its text.
func (s *state) fork(c command) (any, error) {
	a := s.agent()
	sl := a.Session()
	if sl == nil {
		return nil, coding.ErrNoSession
	}
	e, ok := sl.Entry(c.EntryID)
	if !ok || e.Message == nil || e.Message.Role != llm.RoleUser {
		return nil, fmt.Errorf("no user message %q to fork from: get_fork_messages lists them", c.EntryID)
	}
	text := e.Message.Text()
	s.stop()
	if e.Parent == "" {
		return map[string]any{"text": text, "cancelled": false}, s.replace("")
	}
	path, err := a.ForkCopy(e.Parent)
	if err != nil {
		return nil, err
	}
	if err := s.replace(path); err != nil {
		return nil, err
	}
	return map[string]any{"text": text, "cancelled": false}, nil
}

func (s *state) forkMessages(c command) (any, error) {
	out := []map[string]any{}
	sl := s.agent().Session()
	if sl == nil {
		return map[string]any{"messages": out}, nil
	}
	ctx := sl.Context()
	for i, m := range ctx.Messages {
		if m.Role == llm.RoleUser && i < len(ctx.EntryIDs) {
			if e, ok := sl.Entry(ctx.EntryIDs[i]); ok && e.Type == session.TypeMessage {
				out = append(out, map[string]any{"entryId": e.ID, "text": m.Text()})
			}
		}
	}
	return map[string]any{"messages": out}, nil
}

func (s *state) lastText(c command) (any, error) {
	msgs := s.messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return map[string]any{"text": msgs[i].Text()}, nil
		}
	}
	return map[string]any{"text": nil}, nil
}

func (s *state) setName(c command) (any, error) {
	sl := s.agent().Session()
	if sl == nil {
		return nil, coding.ErrNoSession
	}
	if strings.TrimSpace(c.Name) == "" {
		return nil, errors.New("Session name cannot be empty")
	}
	return nil, sl.SetName(strings.TrimSpace(c.Name))
}

func (s *state) commands(c command) (any, error) {
	out := []map[string]any{}
	for _, cmd := range s.agent().Commands() {
		src := "extension"
		if cmd.Prompt {
			src = "prompt"
		}
		out = append(out, map[string]any{"name": cmd.Name, "description": cmd.Help, "source": src})
	}
	return map[string]any{"commands": out}, nil
}

// Approval answers, as the options of the select dialog.
const (
	optAllow  = "Allow"
	optAlways = "Always allow"
	optDeny   = "Deny"
)

// ask sends an approval request as pi's extension UI select dialog.
func (s *state) ask(ap *coding.Approval) {
	s.mu.Lock()
	s.askSeq++
	id := fmt.Sprintf("perm-%d-%s", s.askSeq, ap.ID)
	s.asks[id] = ap
	s.mu.Unlock()
	title := coding.DescribeRequest(ap.Request)
	s.emit(map[string]any{"type": "extension_ui_request", "id": id, "method": "select", "title": title,
		"options": []string{optAllow, optAlways, optDeny}})
}

// answer takes the client's answer to a dialog; a cancel or anything
// but an allow is a deny.
func (s *state) answer(c command) (any, error) {
	s.mu.Lock()
	ap, ok := s.asks[c.ID]
	delete(s.asks, c.ID)
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no dialog %q is open", c.ID)
	}
	ans := permission.Answer{Kind: permission.DenyCall, Reason: "denied by the client", By: "rpc"}
	switch {
	case c.Cancelled:
		ans.Reason = "the client dismissed the request"
	case c.Value == optAllow || c.Confirmed:
		ans.Kind = permission.AllowOnce
	case c.Value == optAlways:
		ans.Kind = permission.AllowAlways
	}
	ap.Answer(ans)
	return nil, nil
}
