package guard

import (
	"strconv"
)

// The loop detectors look at a sliding window of the latest calls (30 by
// default). Calls are compared by tool and canonical arguments, results by
// their content without volatile parts (see hash.go):
//
//   - loop.generic_repeat: the same call again and again; warn at 10,
//     block at 20 when every result was the same.
//   - loop.unknown_tool: a tool that does not exist, called again and
//     again; block at 10 with the list of real tools.
//   - loop.poll_no_progress: a status or poll call whose result does not
//     change; warn at 10, block at 20.
//   - loop.ping_pong: two calls alternating (A, B, A, B …) with unchanging
//     results; warn at 10, block at 20.
//   - loop.circuit_breaker: 30 calls without progress by any of the
//     patterns above end the run: a block the model can ignore forever is
//     not a breaker.
//
// A warning is given once per streak (see onceAStreak).

// record is one call in the window.
type record struct {
	key, res uint64
	tool     string
	unknown  bool
	poll     bool
}

// push adds a record to the window. Called with g.mu held.
func (g *Guard) push(r record) {
	g.hist[g.histNext] = r
	g.histNext = (g.histNext + 1) % len(g.hist)
	if g.histLen < len(g.hist) {
		g.histLen++
	}
}

// at returns the i-th record of the window, 0 being the oldest.
func (g *Guard) at(i int) *record {
	return &g.hist[(g.histNext-g.histLen+i+len(g.hist))%len(g.hist)]
}

// lastResult returns the result of the latest record of the call key.
func (g *Guard) lastResult(key uint64) (uint64, bool) {
	for i := g.histLen - 1; i >= 0; i-- {
		if r := g.at(i); r.key == key {
			return r.res, true
		}
	}
	return 0, false
}

// detectLoops runs the loop detectors for a call about to be made.
// Counts include the call itself. Called with g.mu held.
func (g *Guard) detectLoops(c *Call, key uint64, poll bool) Decision {
	n := g.histLen
	same, unknown := 0, 0
	sameRes := true
	var first uint64
	for i := 0; i < n; i++ {
		r := g.at(i)
		if r.key == key {
			if same == 0 {
				first = r.res
			} else if r.res != first {
				sameRes = false
			}
			same++
		}
		if c.Unknown && r.unknown && r.tool == c.Tool {
			unknown++
		}
	}
	repeat := same + 1
	stuck := 0 // the longest run of calls without progress ending here
	if sameRes {
		stuck = repeat
	}

	trailing := 0 // same call, same result, most recent first
	if poll {
		var last uint64
		for i := n - 1; i >= 0; i-- {
			r := g.at(i)
			if r.key != key {
				continue
			}
			if trailing == 0 {
				last = r.res
			} else if r.res != last {
				break
			}
			trailing++
		}
		stuck = max(stuck, trailing+1)
	}

	alternating := 0
	var other uint64
	if n > 0 && g.at(n-1).key != key {
		other = g.at(n - 1).key
		var resA, resB uint64
		seenA, seenB := false, false
		want := other
		for i := n - 1; i >= 0; i-- {
			r := g.at(i)
			if r.key != want {
				break
			}
			if want == other {
				if seenB && r.res != resB {
					break
				}
				resB, seenB = r.res, true
			} else {
				if seenA && r.res != resA {
					break
				}
				resA, seenA = r.res, true
			}
			alternating++
			if want == other {
				want = key
			} else {
				want = other
			}
		}
		if alternating < 2 {
			alternating = 0 // one other call in between is not a ping-pong
		} else {
			alternating++ // this call
			stuck = max(stuck, alternating)
		}
	}
	if c.Unknown {
		stuck = max(stuck, unknown+1)
	}

	s := &g.s
	if g.on(RuleCircuitBreaker) && s.breaker > 0 && stuck >= s.breaker {
		return Decision{Action: Stop, Rule: RuleCircuitBreaker, Message: "[guard loop.circuit_breaker] " + strconv.Itoa(stuck) +
			" calls made no progress (repeated calls with unchanged results, the latest " + describe(c) + "); the run was stopped to stop wasting tokens."}
	}
	var out Decision
	consider := func(rule string, a Action, msg func() string) {
		if a > out.Action && g.on(rule) {
			out = Decision{Action: a, Rule: rule, Message: msg()}
		}
	}
	if c.Unknown && s.warn > 0 && unknown+1 >= s.warn {
		consider(RuleUnknownTool, Block, func() string {
			list := g.toolList
			if g.listed != "" {
				list = g.listed
			}
			msg := "[guard loop.unknown_tool] There is no tool named \"" + shorten(c.Tool, 60) + "\" (called " + strconv.Itoa(unknown+1) + " times). "
			if list == "" {
				return msg + "No tools are available here: answer in text."
			}
			return msg + "Available tools: " + list + ". Use one of these instead."
		})
	}
	if poll && trailing > 0 {
		if a := level(trailing+1, s.warn, s.critical); a != Allow {
			consider(RulePollNoProgress, a, func() string {
				return "[guard loop.poll_no_progress] " + describe(c) + " returned the same result " + strconv.Itoa(trailing) +
					" times in a row" + notRun(a) + ". Polling again will not change it: wait longer between checks, read the logs, or change approach."
			})
		}
	}
	if alternating > 0 {
		if a := level(alternating, s.warn, s.critical); a != Allow {
			consider(RulePingPong, a, func() string {
				return "[guard loop.ping_pong] " + strconv.Itoa(alternating) + " calls alternating between the same two calls with unchanging results" +
					notRun(a) + ". Break the cycle: try a fundamentally different approach."
			})
		}
	}
	a := level(repeat, s.warn, s.critical)
	if a == Block && !sameRes {
		a = Warn // the results change: maybe progress
	}
	if a != Allow {
		consider(RuleGenericRepeat, a, func() string {
			m := "[guard loop.generic_repeat] " + describe(c) + " has been called " + strconv.Itoa(repeat) +
				" times with these exact arguments in the last " + strconv.Itoa(n+1) + " calls"
			if a == Block {
				return m + ", with the same result every time; it was not run again. Use the result you already have or try something different."
			}
			return m + ". If it is not making progress, change approach instead of repeating it."
		})
	}
	return g.onceAStreak(key, out)
}

// onceAStreak silences a warning already given for the same call and rule
// in the current streak: a warning repeated at every call costs tokens and
// says nothing new. The streak ends when the call's count falls below the
// warning threshold again. Blocks and stops are never silenced. Called
// with g.mu held.
func (g *Guard) onceAStreak(key uint64, d Decision) Decision {
	switch d.Action {
	case Allow:
		delete(g.warned, key)
	case Warn:
		if g.warned[key] == d.Rule {
			return Decision{}
		}
		if len(g.warned) >= 1024 {
			clear(g.warned)
		}
		g.warned[key] = d.Rule
	}
	return d
}

// level maps a count to its action under the warn and critical thresholds
// (zero disables a threshold).
func level(count, warn, critical int) Action {
	switch {
	case critical > 0 && count >= critical:
		return Block
	case warn > 0 && count >= warn:
		return Warn
	}
	return Allow
}

func notRun(a Action) string {
	if a == Block {
		return "; this call was not run"
	}
	return ""
}
