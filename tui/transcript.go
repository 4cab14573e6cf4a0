// Package tui is rein's terminal UI: a transcript model fed by harness
// events (transcript.go, free of any terminal code, so that the same
// events could feed a web page), its rendering (render.go), and the
// bubbletea program around it (app.go): the prompt editor, the status
// line, slash commands, the session tree browser and dialogs.
//
// The UI holds no harness logic: it reads events and calls a Backend.
package tui

import (
	"encoding/json"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
)

// Kind is the kind of a transcript block.
type Kind int

// Block kinds.
const (
	KindUser Kind = iota
	KindAssistant
	KindThinking
	KindTool
	KindNotice
	KindError
)

// Block is one item of the transcript: a user message, a stretch of
// assistant text or thinking, a tool call with its result, or a notice
// of the UI itself.
type Block struct {
	Kind Kind
	// Text is the message text, the thinking, or the notice.
	Text string
	// Tool calls: the call's id, name and JSON arguments; Output is the
	// result's text once it came, IsError its verdict, Notes what guards
	// and hooks said.
	CallID  string
	Name    string
	Args    string
	Output  string
	IsError bool
	Done    bool
	Notes   []string
	// Live marks the block still streaming.
	Live bool

	// rev counts changes, so that renderers can cache by it.
	rev int
}

// Rev is a number that changes whenever the block does.
func (b *Block) Rev() int { return b.rev }

// Transcript is the conversation as the UI shows it, built from events.
// It is not safe for concurrent use: one goroutine (the UI's) applies
// events and reads it.
type Transcript struct {
	Blocks []*Block
	// Usage sums the usage of every reply seen; Context is the prompt
	// size of the last reply (how full the context window is).
	Usage   llm.Usage
	Context int
	// Turn is the turn of the running prompt, 0 when idle.
	Turn int
	// Waiting is true from a turn's start until its reply begins.
	Waiting bool

	live      *Block // the block receiving deltas
	lastError string // the last error shown, so that it is shown once
	calls     map[string]*Block
}

// Event is a harness event made safe to keep: what the transcript needs,
// copied out of the harness's own values (which are valid only during
// the listener call).
type Event struct {
	Type     agent.EventType
	Turn     int
	Delta    llm.Event // message_update
	Message  *llm.Message
	Call     *llm.Content
	Output   string
	IsError  bool
	Notes    []string
	Stop     agent.StopReason
	Detail   string
	Err      string
	HasUsage bool
}

// Snapshot copies what the UI needs out of a harness event. It is called
// on the harness's goroutine; the result may be sent to another.
func Snapshot(ev harness.Event) Event {
	out := Event{Type: ev.Type, Turn: ev.Turn, Stop: ev.Stop, Detail: ev.Detail}
	if ev.Delta != nil {
		out.Delta = *ev.Delta
		out.Delta.Message, out.Delta.Content = nil, nil
	}
	if ev.Message != nil && ev.Type != agent.EventMessageUpdate && ev.Type != agent.EventMessageStart {
		m := ev.Message.Clone()
		out.Message = &m
	}
	if ev.Call != nil {
		c := *ev.Call
		c.Arguments = append(json.RawMessage(nil), ev.Call.Arguments...)
		out.Call = &c
	}
	if ev.Result != nil {
		out.Output = ev.Result.Text()
		out.IsError = ev.Result.IsError
		out.Notes = append([]string(nil), ev.Result.Notes...)
	}
	if ev.Err != nil {
		out.Err = ev.Err.Error()
	}
	return out
}

func (t *Transcript) add(b *Block) *Block {
	b.rev = 1
	t.Blocks = append(t.Blocks, b)
	return b
}

// Notice adds a line of the UI's own (a command's answer, say).
func (t *Transcript) Notice(text string) { t.add(&Block{Kind: KindNotice, Text: text}) }

// Error adds an error line.
func (t *Transcript) Error(text string) {
	t.lastError = text
	t.add(&Block{Kind: KindError, Text: text})
}

// User adds a user message.
func (t *Transcript) User(text string) { t.add(&Block{Kind: KindUser, Text: text}) }

// Apply updates the transcript with one event.
func (t *Transcript) Apply(ev Event) {
	switch ev.Type {
	case agent.EventAgentStart:
		t.Turn = 0
	case agent.EventTurnStart:
		t.Turn = ev.Turn
		t.Waiting = true
	case agent.EventMessageUpdate:
		t.Waiting = false
		t.delta(ev.Delta)
	case agent.EventMessageEnd:
		t.endLive()
		t.Waiting = false
		if m := ev.Message; m != nil {
			switch {
			case m.Role == llm.RoleAssistant:
				if u := m.Usage; u != nil {
					t.Usage.Add(*u)
					if p := u.PromptTokens() + u.Output; p > 0 {
						t.Context = p
					}
				}
				t.assistantEnd(m)
			case m.Role == llm.RoleUser && ev.Turn > 0:
				// Steering and follow-up messages, delivered mid-run.
				t.User(m.Text())
			}
		}
	case agent.EventToolStart:
		t.endLive()
		if ev.Call != nil {
			t.tool(ev.Call)
		}
	case agent.EventToolEnd:
		if ev.Call != nil {
			b := t.tool(ev.Call)
			b.Output, b.IsError, b.Notes, b.Done = ev.Output, ev.IsError, ev.Notes, true
			b.rev++
		}
	case agent.EventAgentEnd:
		t.endLive()
		t.Turn, t.Waiting = 0, false
		if ev.Stop != "" && ev.Stop != agent.StopCompleted && ev.Stop != agent.StopError {
			msg := "stopped: " + string(ev.Stop)
			if ev.Detail != "" {
				msg += " — " + ev.Detail
			}
			if ev.Stop == agent.StopAborted {
				msg = "stopped: the turn was aborted"
			}
			t.Notice(msg)
		}
	case harness.EventCompaction:
		t.Notice("the conversation was compacted")
	case harness.EventContextNotice:
		// A digest stood in for a summary, tools of a resumed session
		// are gone, a compaction could not run.
		t.Notice(ev.Detail)
	}
}

func (t *Transcript) delta(d llm.Event) {
	switch d.Type {
	case llm.EventTextStart:
		t.endLive()
		t.live = t.add(&Block{Kind: KindAssistant, Live: true})
	case llm.EventThinkingStart:
		t.endLive()
		t.live = t.add(&Block{Kind: KindThinking, Live: true})
	case llm.EventTextDelta, llm.EventThinkingDelta:
		want := KindAssistant
		if d.Type == llm.EventThinkingDelta {
			want = KindThinking
		}
		if t.live == nil || t.live.Kind != want {
			t.endLive()
			t.live = t.add(&Block{Kind: want, Live: true})
		}
		t.live.Text += d.Delta
		t.live.rev++
	case llm.EventTextEnd, llm.EventThinkingEnd:
		t.endLive()
	}
}

func (t *Transcript) endLive() {
	if t.live != nil {
		t.live.Live = false
		t.live.rev++
		t.live = nil
	}
}

// assistantEnd shows the failure of a reply; its text was streamed.
func (t *Transcript) assistantEnd(m *llm.Message) {
	if m.Failed() {
		t.Error(m.ErrorMessage)
	}
}

func (t *Transcript) tool(c *llm.Content) *Block {
	if b, ok := t.calls[c.ID]; ok && c.ID != "" {
		return b
	}
	if t.calls == nil {
		t.calls = map[string]*Block{}
	}
	b := t.add(&Block{Kind: KindTool, CallID: c.ID, Name: c.Name, Args: string(c.Arguments)})
	t.calls[c.ID] = b
	return b
}

// Load replaces the transcript with a conversation read back from a
// session: what a resumed chat shows first.
func (t *Transcript) Load(msgs []llm.Message) {
	t.Blocks, t.live, t.calls = nil, nil, nil
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleUser:
			t.User(m.Text())
		case llm.RoleAssistant:
			for j := range m.Content {
				c := &m.Content[j]
				switch c.Type {
				case llm.ContentThinking:
					if strings.TrimSpace(c.Text) != "" {
						t.add(&Block{Kind: KindThinking, Text: c.Text})
					}
				case llm.ContentText:
					t.add(&Block{Kind: KindAssistant, Text: c.Text})
				case llm.ContentToolCall:
					t.tool(c)
				}
			}
			t.assistantEnd(m)
			if u := m.Usage; u != nil && u.PromptTokens()+u.Output > 0 {
				t.Context = u.PromptTokens() + u.Output
			}
		case llm.RoleToolResult:
			if b, ok := t.calls[m.ToolCallID]; ok {
				b.Output, b.IsError, b.Done = m.Text(), m.IsError, true
				b.rev++
			}
		}
	}
}
