package agent

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// toolMsg is what a running tool sends back to the loop goroutine, which
// alone yields events.
type toolMsg struct {
	i       int
	partial *tool.Result
}

// runTools executes one batch of calls and appends their results in the
// order the model issued the calls. The batch runs in parallel unless a
// tool in it is Sequential. It returns the result messages and the first
// stop request a result carried.
func (r *run) runTools(ctx context.Context, calls []llm.Content) ([]llm.Message, string) {
	n := len(calls)
	tcalls := make([]tool.Call, n)
	results := make([]tool.Result, n)
	if r.toolCh == nil {
		r.toolCh = make(chan toolMsg, 16)
		r.quit = make(chan struct{})
	}
	ch, quit := r.toolCh, r.quit
	sequential := false
	for i := range calls {
		c := &calls[i]
		t := r.s.Tools.Get(c.Name)
		tcalls[i] = tool.Call{ID: c.ID, Name: c.Name, Args: c.Arguments, Turn: r.turn, Tool: t}
		if t != nil && t.Mode == tool.Sequential {
			sequential = true
		}
	}
	for i := range tcalls {
		tcalls[i].Update = func(p tool.Result) {
			select {
			case ch <- toolMsg{i: i, partial: &p}:
			case <-quit:
			}
		}
	}
	start := func(i int) {
		fn := func() {
			results[i] = r.exec(ctx, &tcalls[i])
			ch <- toolMsg{i: i}
		}
		if r.cfg.Go != nil {
			r.cfg.Go(fn)
		} else {
			go fn()
		}
	}
	running, next := 0, 0
	launch := func() bool {
		if !r.emit(Event{Type: EventToolStart, Call: &calls[next]}) {
			return false
		}
		start(next)
		next++
		running++
		return true
	}
	// drain waits for every started tool after the consumer went away.
	drain := func() {
		for running > 0 {
			if m := <-ch; m.partial == nil {
				running--
			}
		}
	}
	for next < n && (!sequential || running == 0) {
		if !launch() {
			drain()
			return nil, ""
		}
	}
	for running > 0 {
		m := <-ch
		if m.partial != nil {
			if !r.emit(Event{Type: EventToolUpdate, Call: &calls[m.i], Result: m.partial}) {
				drain()
				return nil, ""
			}
			continue
		}
		running--
		if !r.emit(Event{Type: EventToolEnd, Call: &calls[m.i], Result: &results[m.i]}) {
			drain()
			return nil, ""
		}
		if sequential && next < n {
			if !launch() {
				drain()
				return nil, ""
			}
		}
	}
	out := make([]llm.Message, 0, n)
	stop := ""
	for i := range results {
		m := results[i].Message(&tcalls[i])
		m.Timestamp = r.cfg.now()
		if stop == "" {
			stop = results[i].Stop
		}
		out = append(out, m)
		if !r.add(m) {
			return nil, ""
		}
	}
	return out, stop
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
