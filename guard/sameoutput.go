package guard

import (
	"strconv"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Rule same_output: a call that returns, byte for byte, what the same
// call (same tool, same arguments) returned up to ReadCacheTurns turns
// earlier has its output replaced by a short note saying so. The call has
// run, with whatever effects it has; only the repeated text is not sent
// again, since the earlier copy is still in the conversation. A re-run
// test that fails the same way, a `git diff` or a `grep` that finds what
// it found before: the model learns that nothing changed, in a line.
//
// The rule applies after a call ran (After), where the others decide
// before. It shares the read cache's limits: results shorter than
// MinReferenceChars are left alone, earlier runs' outputs are not used,
// and ForgetReads drops the remembered outputs, since the earlier copy
// must still be in the conversation. With "readCache": "copy" (for
// applications that drop earlier results without telling the guard) the
// rule is off.

// output is the last output of one call.
type output struct {
	hash        uint64 // exact hash of the text, with the error flag
	turn, epoch int
}

// maxOutputs bounds the remembered outputs; all are dropped when full.
const maxOutputs = 1024

// After returns the verdict on call c once it ran, given Decide's verdict
// d and the call's result res; it must be called before Record for the
// call, for every call that ran. Two rules look at the output:
//
//   - same_output: when res repeats the output of the same call exactly,
//     the verdict is Action Cached, Rule RuleSameOutput, with the note in
//     Message and Content. The caller sends the note instead of the
//     output (after d's warning, if d warned), keeping the error flag of
//     res, and records the call with Record(c, verdict, res): the real
//     output, not the note.
//   - mismatch in "hint" mode: a hint is kept only when the output is
//     longer than the suggested tool's page, or was cut by the output
//     limit; otherwise the verdict is Allow and the hint is not counted
//     as given.
//
// Otherwise the verdict is d.
func (g *Guard) After(c Call, d Decision, res tool.Result) Decision {
	if sd, ok := g.same(c, d, res); ok {
		if d.Action == Hint {
			g.unhint(d) // moot: the output was sent before
		}
		return sd
	}
	if d.Action == Hint && !g.s.hintAlways && !worthHint(d.bash, &res) {
		g.unhint(d)
		return d.with(Decision{})
	}
	return d
}

// same implements same_output (see After).
func (g *Guard) same(c Call, d Decision, res tool.Result) (Decision, bool) {
	if !d.keyed || !d.Action.runs() || !g.on(RuleSameOutput) || g.s.copyReads {
		return Decision{}, false
	}
	text := res.Text()
	if len(text) < MinReferenceChars || len(res.Content) != 1 {
		return Decision{}, false // short, or not plain text (images…)
	}
	h := exactHash(text)
	if res.IsError {
		h = mix64(h, 1)
	}
	g.mu.Lock()
	prev, ok := g.outputs[d.key]
	g.mu.Unlock()
	if !ok || prev.hash != h || prev.epoch != d.epoch || c.Turn-prev.turn > g.s.readTurns || c.Turn < prev.turn {
		return Decision{}, false
	}
	what := "succeeded"
	if res.IsError {
		what = "failed"
	}
	msg := "[guard same_output] " + describe(&c) + " " + what + " with the same output as in turn " + strconv.Itoa(prev.turn) +
		", word for word; that output is still above, so it is not repeated."
	return d.with(Decision{Action: Cached, Rule: RuleSameOutput, Message: msg, Content: []llm.Content{llm.Text(msg)}}), true
}

// rememberOutput keeps the output of a call that ran, for same. Called
// with g.mu held.
func (g *Guard) rememberOutput(key uint64, turn, epoch int, isError bool, text string) {
	if len(text) < MinReferenceChars {
		delete(g.outputs, key)
		return
	}
	h := exactHash(text)
	if isError {
		h = mix64(h, 1)
	}
	if len(g.outputs) >= maxOutputs {
		clear(g.outputs)
	}
	g.outputs[key] = output{hash: h, turn: turn, epoch: epoch}
}
