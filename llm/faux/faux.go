// Package faux is a scripted model provider for tests, examples and the
// offline demo. It replies from a queue: each reply is a fixed assistant
// message or a function of the request. Text, thinking and tool-call
// arguments are streamed in small chunks like a real model, usage is
// estimated from the sizes of the request and the reply, and an empty
// queue fails with a message that says so.
package faux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/reinhq/rein/llm"
)

// Reply is one scripted model reply: either Message, used as is, or Func,
// called with the request. Func may return an error to make the call fail
// (an *llm.Error keeps its code).
type Reply struct {
	Message *llm.Message
	Func    func(ctx context.Context, req *llm.Request) (llm.Message, error)
}

// Text returns a reply holding one text block.
func Text(s string) Reply {
	return Reply{Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(s)}}}
}

// Calls returns a reply made of tool calls, with optional text before
// them. Tool-call ids left empty are generated.
func Calls(text string, calls ...llm.Content) Reply {
	m := &llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Content = append(m.Content, llm.Text(text))
	}
	m.Content = append(m.Content, calls...)
	return Reply{Message: m}
}

// Call returns a tool-call block with a generated id.
func Call(name string, args string) llm.Content {
	return llm.ToolCall("", name, []byte(args))
}

// Fail returns a reply that fails with err.
func Fail(err error) Reply {
	return Reply{Func: func(context.Context, *llm.Request) (llm.Message, error) { return llm.Message{}, err }}
}

// Model returns the model description the faux provider answers as.
func Model() llm.Model {
	return llm.Model{
		ID: "faux", Name: "Scripted model", Provider: "faux", API: llm.APIFaux,
		ContextWindow: 200_000, MaxOutput: 32_000, Reasoning: true,
		Input: []llm.InputKind{llm.InputText, llm.InputImage},
	}
}

// Provider replies from its queue. It is safe for concurrent use; replies
// are taken in order.
type Provider struct {
	// ChunkSize is how many characters each streamed delta carries;
	// zero means 6.
	ChunkSize int
	// Now stamps replies; nil means time.Now.
	Now func() time.Time
	// IDPrefix starts generated tool-call ids; empty means a random prefix
	// chosen by New, so that ids do not collide across runs.
	IDPrefix string

	mu       sync.Mutex
	queue    []Reply
	served   int
	seq      int
	requests []llm.Request
}

// New returns a provider that will give replies in order.
func New(replies ...Reply) *Provider {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &Provider{queue: append([]Reply(nil), replies...), IDPrefix: "call_" + hex.EncodeToString(b[:]) + "_"}
}

// Push adds replies to the end of the queue.
func (p *Provider) Push(replies ...Reply) {
	p.mu.Lock()
	p.queue = append(p.queue, replies...)
	p.mu.Unlock()
}

// Pending returns the number of replies not yet given.
func (p *Provider) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// Requests returns a copy of every request received so far, in order.
// The messages of each are shared with the caller and must not be changed.
func (p *Provider) Requests() []llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.Request(nil), p.requests...)
}

func (p *Provider) next(req *llm.Request) (Reply, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, *req)
	if len(p.queue) == 0 {
		return Reply{}, p.served, false
	}
	r := p.queue[0]
	p.queue = p.queue[1:]
	p.served++
	return r, p.served, true
}

func (p *Provider) newID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	return fmt.Sprintf("%s%d", p.IDPrefix, p.seq)
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		e := llm.NewEmitter(yield, req)
		e.Now = p.Now
		reply, n, ok := p.next(req)
		if !ok {
			e.Fail(&llm.Error{Code: llm.CodeUnknown, Provider: "faux",
				Message: fmt.Sprintf("the scripted model has no reply left: it gave %d and was asked for another; add a reply to the script or end the run sooner", n)})
			return
		}
		var msg llm.Message
		if reply.Func != nil {
			m, err := reply.Func(ctx, req)
			if err != nil {
				e.Fail(err)
				return
			}
			msg = m
		} else if reply.Message != nil {
			msg = reply.Message.Clone()
		}
		if !e.Start(llm.Message{ResponseID: fmt.Sprintf("faux-%d", n)}) {
			return
		}
		out := 0
		for _, c := range msg.Content {
			if ctx.Err() != nil {
				e.Fail(ctx.Err())
				return
			}
			if !p.streamBlock(ctx, e, c, &out) {
				return
			}
		}
		if ctx.Err() != nil {
			e.Fail(ctx.Err())
			return
		}
		u := e.Usage()
		if msg.Usage != nil {
			*u = *msg.Usage
		} else {
			u.Input = estimateRequest(req)
			u.Output = max(1, out/4)
		}
		e.Finish(msg.StopReason)
	}
}

func (p *Provider) streamBlock(ctx context.Context, e *llm.Emitter, c llm.Content, out *int) bool {
	var i int
	var ok bool
	var text string
	switch c.Type {
	case llm.ContentText:
		i, ok = e.TextStart()
		text = c.Text
	case llm.ContentThinking:
		i, ok = e.ThinkingStart()
		text = c.Text
	case llm.ContentToolCall:
		id := c.ID
		if id == "" {
			id = p.newID()
		}
		i, ok = e.ToolCallStart(id, c.Name)
		text = string(c.Arguments)
	default:
		return true
	}
	if !ok {
		return false
	}
	*out += len(text)
	size := p.ChunkSize
	if size <= 0 {
		size = 6
	}
	for len(text) > 0 {
		if ctx.Err() != nil {
			return true // the caller fails the stream
		}
		n := 0
		for k := 0; k < size && n < len(text); k++ {
			_, w := utf8.DecodeRuneInString(text[n:])
			n += w
		}
		if !e.Delta(i, text[:n]) {
			return false
		}
		text = text[n:]
	}
	if b := e.Block(i); b != nil {
		b.Signature = c.Signature
		b.Redacted = c.Redacted
		b.Extra = c.Extra
	}
	return e.End(i)
}

// estimateRequest guesses a request's prompt tokens at four characters a
// token.
func estimateRequest(req *llm.Request) int {
	n := len(llm.SystemText(req.System))
	for i := range req.Messages {
		for _, c := range req.Messages[i].Content {
			n += len(c.Text) + len(c.Arguments) + len(c.Name)
			if c.Type == llm.ContentImage {
				n += 4800
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return max(1, n/4)
}

// trimmed is used by the script loader to report lines briefly.
func trimmed(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
