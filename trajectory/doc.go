// Package trajectory reads recordings of agent sessions — rein's own
// session logs, pi session files and event streams, Claude Code session
// files and stream-json logs, SWE-agent and mini-swe-agent trajectories,
// and a neutral JSONL of calls — into one form: the tool calls in order,
// with their turns, arguments mapped onto rein's tools, results, error
// flags and, where the recording states it, the size of the request that
// produced each turn. The format is detected from the content. Guard
// replay and context replay read through it.
//
// Nothing is misparsed in silence: a line that does not fit the detected
// format is reported with its file and line (Session.Problems), and a
// file that mostly does not fit is refused with the reason.
package trajectory

// Tokens estimates the tokens of a text of n bytes: n/4, rounded up.
func Tokens(n int) int { return (n + 3) / 4 }
