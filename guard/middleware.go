package guard

import (
	"context"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Middleware returns tool middleware that puts every call through the
// rules: allowed calls run untouched (no tokens are added), hinted calls
// run with the hint after their result, warned calls
// run with the warning before their result, cached reads are answered from
// the cache, blocked calls do not run and return an error result saying
// why and what to do instead, and a stop returns that result with
// Result.Stop set, which ends the run. Results carry a note such as
// "guard:block:cascade" or "guard:cached".
func (g *Guard) Middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			c := Call{Tool: call.Name, Args: call.Args, Turn: call.Turn, Unknown: call.Tool == nil}
			d := g.Decide(c)
			switch d.Action {
			case Cached:
				res := tool.Result{Content: d.Content, Notes: []string{"guard:cached"}}
				g.record(&c, &d, &res, stamp{}, false)
				return res
			case Block, Stop:
				res := tool.Result{Content: []llm.Content{llm.Text(d.Message)}, IsError: true, Notes: []string{"guard:" + d.Action.String() + ":" + d.Rule}}
				if d.Action == Stop {
					res.Stop = d.Message
				}
				g.record(&c, &d, &res, stamp{}, false)
				return res
			}
			// A viewed file is stamped before the call runs, so that a
			// change made while it runs is noticed at the next view.
			var st stamp
			stamped := false
			if d.path != "" && !g.opts.Offline {
				st, stamped = g.stat(d.path)
			}
			res := next(ctx, call)
			after := g.After(c, d, res)
			if after.Rule == RuleSameOutput {
				// The output repeats an earlier one: the note is sent
				// instead (after d's warning), and the call is recorded
				// with its real output.
				g.record(&c, &after, &res, st, stamped)
				out := tool.Result{Content: after.Content, IsError: res.IsError, Stop: res.Stop, Notes: append(res.Notes, "guard:cached:"+RuleSameOutput)}
				if d.Action == Warn {
					out.Content = append([]llm.Content{llm.Text(d.Message + "\n\n")}, out.Content...)
					out.Notes = append(out.Notes, "guard:warn:"+d.Rule)
				}
				return out
			}
			d = after
			g.record(&c, &d, &res, st, stamped)
			if d.Action == Hint {
				content := make([]llm.Content, 0, len(res.Content)+1)
				content = append(content, res.Content...)
				res.Content = append(content, llm.Text("\n\n"+d.Message))
				res.Notes = append(res.Notes, "guard:hint:"+d.Rule)
			}
			if d.Action == Warn {
				content := make([]llm.Content, 0, len(res.Content)+1)
				content = append(content, llm.Text(d.Message+"\n\n"))
				res.Content = append(content, res.Content...)
				res.Notes = append(res.Notes, "guard:warn:"+d.Rule)
			}
			return res
		}
	}
}
