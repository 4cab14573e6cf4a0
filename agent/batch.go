package agent

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// toolMsg is what a running tool sends back to the loop goroutine, which
// alone yields events: a progress report (partial set) or the end of
// call i.
type toolMsg struct {
	i       int
	partial *tool.Result
}

// slot is one call of a batch and its result.
type slot struct {
	block *llm.Content // the call in the assistant message
	call  tool.Call
	res   tool.Result
}

// batch is the state of one batch of tool calls. It lives for one
// runTools call; keeping it in one value (rather than in closures)
// costs a single allocation.
type batch struct {
	r          *run
	slots      []slot
	small      [4]slot // backs slots for the usual small batch
	running    int
	next       int
	sequential bool
}

// runTools executes the tool calls of msg, n of them, as one batch and
// appends their results in the order the model issued the calls. The
// batch runs in parallel unless a tool in it is Sequential. It returns the
// result messages and the first stop request a result carried.
func (r *run) runTools(ctx context.Context, msg *llm.Message, n int) ([]llm.Message, string) {
	if r.toolCh == nil {
		r.toolCh = make(chan toolMsg, 16)
		r.quit = make(chan struct{})
	}
	b := &batch{r: r}
	b.slots = b.small[:0]
	if n > len(b.small) {
		b.slots = make([]slot, 0, n)
	}
	for j := range msg.Content {
		if msg.Content[j].Type == llm.ContentToolCall {
			b.slots = append(b.slots, slot{block: &msg.Content[j]})
		}
	}
	ch, quit := r.toolCh, r.quit
	for i := range b.slots {
		c := b.slots[i].block
		t := r.s.Tools.Get(c.Name)
		b.slots[i].call = tool.Call{ID: c.ID, Name: c.Name, Args: c.Arguments, Turn: r.turn, Tool: t}
		b.slots[i].call.Update = func(p tool.Result) {
			select {
			case ch <- toolMsg{i: i, partial: &p}:
			case <-quit:
			}
		}
		if t != nil && t.Mode == tool.Sequential {
			b.sequential = true
		}
	}
	calls := len(b.slots)
	for b.next < calls && (!b.sequential || b.running == 0) {
		if !b.launch(ctx) {
			b.drain()
			return nil, ""
		}
	}
	for b.running > 0 {
		m := <-ch
		if m.partial != nil {
			if !r.emit(Event{Type: EventToolUpdate, Call: b.slots[m.i].block, Result: m.partial}) {
				b.drain()
				return nil, ""
			}
			continue
		}
		b.running--
		if !r.emit(Event{Type: EventToolEnd, Call: b.slots[m.i].block, Result: &b.slots[m.i].res}) {
			b.drain()
			return nil, ""
		}
		if b.sequential && b.next < calls && !b.launch(ctx) {
			b.drain()
			return nil, ""
		}
	}
	first := len(r.msgs)
	stop := ""
	for i := range b.slots {
		s := &b.slots[i]
		m := s.res.Message(&s.call)
		m.Timestamp = r.cfg.now()
		if stop == "" {
			stop = s.res.Stop
		}
		if !r.add(m) {
			return nil, ""
		}
	}
	// The results are the run's latest messages; the slice is capped so
	// that later appends to the run never write into it.
	return r.msgs[first:len(r.msgs):len(r.msgs)], stop
}

// launch reports the next call's start and runs it on its own goroutine.
func (b *batch) launch(ctx context.Context) bool {
	i := b.next
	if !b.r.emit(Event{Type: EventToolStart, Call: b.slots[i].block}) {
		return false
	}
	b.next++
	b.running++
	if b.r.cfg.Go != nil {
		b.r.cfg.Go(func() { b.run(ctx, i) })
	} else {
		go b.run(ctx, i)
	}
	return true
}

// run executes call i and reports its end to the loop goroutine.
func (b *batch) run(ctx context.Context, i int) {
	s := &b.slots[i]
	s.res = b.r.exec(ctx, &s.call)
	b.r.toolCh <- toolMsg{i: i}
}

// drain waits for every started call after the consumer went away; the
// run's context is already cancelled, so they return promptly.
func (b *batch) drain() {
	for b.running > 0 {
		if m := <-b.r.toolCh; m.partial == nil {
			b.running--
		}
	}
}

// exec runs one call through the middleware chain; a panic anywhere in
// the chain becomes an error result.
func (r *run) exec(ctx context.Context, call *tool.Call) (res tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tool.Errorf("Tool %s failed unexpectedly: %v", call.Name, p)
			res.Details = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	return r.handler(ctx, call)
}
