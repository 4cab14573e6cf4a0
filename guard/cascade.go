package guard

import "strconv"

// Rule cascade: more than N consecutive calls of the same tool within one
// turn are blocked (N is the tool's cascadeThreshold, 8 by default). Bash
// calls count by command, so `git status` and `git diff` are different
// streaks. The count restarts at every turn.

func (g *Guard) decideCascade(c *Call, sub string) (Decision, bool) {
	if !g.on(RuleCascade) {
		return Decision{}, false
	}
	limit := g.s.cascadeLimit(c.Tool)
	if g.casN <= limit {
		return Decision{}, false
	}
	what := c.Tool
	if sub != "" {
		what = "bash `" + sub + "`"
	}
	return Decision{
		Action: Block,
		Rule:   RuleCascade,
		Message: "[guard cascade] " + strconv.Itoa(g.casN) + " consecutive " + what + " calls in this turn (limit " +
			strconv.Itoa(limit) + "); this one was not run. Do the work in fewer calls (one script, a broader search, a bigger read) or rethink the approach.",
	}, true
}
