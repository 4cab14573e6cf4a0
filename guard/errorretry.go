package guard

import "strconv"

// Rule error_retry: a call that failed twice in a row with the same
// arguments is not run a third time. Streaks are kept per tool and
// survive turn boundaries. A success of the tool, or a call of it with
// other arguments, ends its streak; so does any successful call that may
// have changed the workspace (write, edit, a bash command that may modify
// files, a tool not known to be read-only), so re-running a failing test
// after a fix is never blocked, while re-running it after merely reading
// something is.

// errStreak is a run of identical failures of one tool.
type errStreak struct {
	key  uint64
	n    int
	text string // the error, as shown in the message
}

func (g *Guard) decideErrorRetry(c *Call, key uint64) (Decision, bool) {
	st := g.errs[c.Tool]
	if !g.on(RuleErrorRetry) || g.s.retries <= 0 || st == nil || st.key != key || st.n < g.s.retries {
		return Decision{}, false
	}
	failed := "failed " + times(st.n) + " in a row"
	if st.n == 1 {
		failed = "failed"
	}
	return Decision{
		Action: Block,
		Rule:   RuleErrorRetry,
		Message: "[guard error_retry] This exact " + describe(c) + " call " + failed + " (last error: " + st.text +
			"). It was not run again: change the arguments or try a different approach.",
	}, true
}

// times says how often: "once", "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// trackErrors updates the streaks after a call. Called with g.mu held.
func (g *Guard) trackErrors(c *Call, key uint64, ran, cached, isError bool, text string, bi *bashInfo) {
	switch {
	case ran && isError:
		st := g.errs[c.Tool]
		if st == nil {
			st = &errStreak{}
			g.errs[c.Tool] = st
		}
		if st.key == key && st.n > 0 {
			st.n++
		} else {
			st.key, st.n = key, 1
		}
		st.text = errorLine(text)
	case ran || cached:
		delete(g.errs, c.Tool)
		if ran && mayChange(c.Tool, bi) {
			clear(g.errs)
		}
	}
}

// readOnlyTools never change the workspace.
var readOnlyTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// mayChange reports whether a successful call of the tool may have
// changed the workspace.
func mayChange(tool string, bi *bashInfo) bool {
	if tool == "bash" {
		return bi == nil || bi.modifies
	}
	return !readOnlyTools[tool]
}
