package guard

import "strconv"

// Rule error_retry: a call that failed the same way twice in a row (same
// tool, same arguments, nothing else in between) is not run a third time.
// The streak survives turn boundaries; any success, or any other call,
// ends it, so re-running a failing test after an edit is never blocked.

func (g *Guard) decideErrorRetry(c *Call, key uint64) (Decision, bool) {
	if !g.on(RuleErrorRetry) || g.s.retries <= 0 || g.errN < g.s.retries || g.errKey != key {
		return Decision{}, false
	}
	return Decision{
		Action: Block,
		Rule:   RuleErrorRetry,
		Message: "[guard error_retry] This exact " + describe(c) + " call failed " + strconv.Itoa(g.errN) +
			" times in a row (last error: " + g.errText + "). It was not run again: change the arguments or try a different approach.",
	}, true
}
