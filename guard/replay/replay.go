// Package replay runs guard's rules over recorded sessions, offline: to
// tune a configuration and to see what the rules would have saved. The
// recordings are read by package trajectory (rein's own session logs, pi,
// Claude Code, SWE-agent, mini-swe-agent and a neutral JSONL of calls).
//
// Every call is decided as the rule chain would have decided it at that
// point of the session, then recorded with its recorded result: the
// session goes on as it really did, so later decisions see the history
// that really happened. Because there are no files to look at, the read
// cache judges freshness by comparing the recorded result of a re-read
// with the cached copy.
package replay

import (
	"strings"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
	"github.com/reinhq/rein/trajectory"
)

// Options configures a replay.
type Options struct {
	// Config holds the rule settings; nil means guard.DefaultConfig.
	Config *guard.Config
	// Tools lists the tools the model had; nil uses what the recording
	// says, or rein's coding toolset.
	Tools []string
	// Workdir is the directory the recorded agent worked in: absolute
	// paths below it count as inside the workspace for mismatch. Empty
	// means the one the recording names (Session.Workdir), if any;
	// otherwise every absolute path is outside.
	Workdir string
}

// Skipped is the decision reported for the calls after a stop: the run
// would have ended before them.
const Skipped = "skipped"

// Entry is the verdict on one recorded call.
type Entry struct {
	// I is the index of the call in its session, from 0.
	I    int    `json:"i"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Turn int    `json:"turn"`
	Tool string `json:"tool"`
	// Decision is allow, hint, warn, cached, block, stop or skipped.
	Decision string `json:"decision"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	// TokensSaved estimates the tokens the decision kept out of the
	// conversation for good: output the model would not fetch again.
	TokensSaved int `json:"tokens_saved,omitempty"`
	// TokensCost estimates the tokens the decision added: the guard's
	// message, and for a block the extra round trip it forces.
	TokensCost int `json:"tokens_cost,omitempty"`
}

// Account is the token account of a replay or of one rule in it. All
// figures are estimates (characters / 4) except request prefixes the
// recording states.
type Account struct {
	// Saved is output that was not sent and that the model would not
	// fetch again: the repeated failure error_retry blocks, the unchanged
	// result a loop detector blocks, and after a stop everything that
	// followed in the session (arguments and results). A call blocked by
	// mismatch or cascade saves nothing: the model fetches the same output
	// another way or in the next turn.
	Saved int `json:"saved"`
	// Added is the guard's own messages the model sees: hints, warnings,
	// block messages and cache markers.
	Added int `json:"added"`
	// RoundTrip is what the extra model requests forced by blocks cost:
	// each re-sends the request prefix (as recorded, or estimated as the
	// session so far plus EstimatedBase) and the call written again. Only
	// blocks whose output the model fetches again force one; after any
	// other block the next request comes as it would have anyway.
	RoundTrip int `json:"round_trip"`
	// Net is Saved - Added - RoundTrip: positive when the guards save
	// more than they cost.
	Net int `json:"net"`
}

func (t *Account) add(o Account) {
	t.Saved += o.Saved
	t.Added += o.Added
	t.RoundTrip += o.RoundTrip
	t.Net = t.Saved - t.Added - t.RoundTrip
}

// EstimatedBase is the part of a request prefix a recording does not
// show (system prompt and tool definitions), in tokens, used when the
// recording states no prefix: a low estimate, so that the cost of a
// block is not overstated.
const EstimatedBase = 1000

// Summary totals a replay.
type Summary struct {
	Files int `json:"files"`
	Calls int `json:"calls"`
	// Decisions counts calls by decision.
	Decisions map[string]int `json:"decisions"`
	// Rules counts the decisions each rule made, by decision.
	Rules map[string]map[string]int `json:"rules,omitempty"`
	// Tokens is the account of the whole replay; ByRule the account of
	// each rule ("skipped" for the calls after a stop).
	Tokens Account            `json:"tokens"`
	ByRule map[string]Account `json:"tokens_by_rule,omitempty"`
	// TokensCached estimates the tokens of reads answered with a cached
	// copy ("readCache": "copy"). These are still sent to the model; what
	// is saved is the tool run, not tokens. (By default a re-read is
	// answered with a reference to the earlier result, and its output is
	// counted as saved.)
	TokensCached int `json:"tokens_cached"`
	// Malformed counts the input lines that were skipped.
	Malformed int `json:"malformed_lines"`
	// Formats counts the files by format.
	Formats map[string]int `json:"formats,omitempty"`
}

// Add adds o to s.
func (s *Summary) Add(o Summary) {
	s.init()
	s.Files += o.Files
	s.Calls += o.Calls
	for k, v := range o.Decisions {
		s.Decisions[k] += v
	}
	for r, m := range o.Rules {
		if s.Rules[r] == nil {
			s.Rules[r] = map[string]int{}
		}
		for k, v := range m {
			s.Rules[r][k] += v
		}
	}
	for r, t := range o.ByRule {
		cur := s.ByRule[r]
		cur.add(t)
		s.ByRule[r] = cur
	}
	for k, v := range o.Formats {
		s.Formats[k] += v
	}
	s.Tokens.add(o.Tokens)
	s.TokensCached += o.TokensCached
	s.Malformed += o.Malformed
}

func (s *Summary) init() {
	if s.Decisions == nil {
		s.Decisions = map[string]int{}
	}
	if s.Rules == nil {
		s.Rules = map[string]map[string]int{}
	}
	if s.ByRule == nil {
		s.ByRule = map[string]Account{}
	}
	if s.Formats == nil {
		s.Formats = map[string]int{}
	}
}

func (s *Summary) count(decision, rule string) {
	s.Decisions[decision]++
	if rule == "" {
		return
	}
	if s.Rules[rule] == nil {
		s.Rules[rule] = map[string]int{}
	}
	s.Rules[rule][decision]++
}

// charge books a decision's tokens to the total and to its rule.
func (s *Summary) charge(rule string, t Account) {
	t.Net = t.Saved - t.Added - t.RoundTrip
	s.Tokens.add(t)
	cur := s.ByRule[rule]
	cur.add(t)
	s.ByRule[rule] = cur
}

// notRun reports whether the recording's guard kept the call from running.
func notRun(c *trajectory.Call) bool { return c.Guarded == "block" || c.Guarded == "stop" }

// referenced reports whether the recording's guard answered the call with
// a reference to an earlier result: its output is not in the recording.
func referenced(c *trajectory.Call) bool {
	return c.Guarded == "cached" && !strings.Contains(c.Result, "\n")
}

// refetched reports whether a model told about a block of rule would
// fetch the same output another way: a redirect to a dedicated tool, or
// a call deferred to the next turn.
func refetched(rule string) bool { return rule == guard.RuleMismatch || rule == guard.RuleCascade }

// Run replays a session through a fresh guard and calls emit, when not
// nil, with the verdict on each call in order. file labels the entries.
func Run(s *trajectory.Session, file string, opts Options, emit func(Entry)) Summary {
	tools := opts.Tools
	if tools == nil {
		tools = s.Tools
	}
	workdir := opts.Workdir
	if workdir == "" {
		workdir = s.Workdir
	}
	g := guard.New(guard.Options{Config: opts.Config, Offline: true, Tools: tools, Workdir: workdir})
	copies := opts.Config != nil && opts.Config.ReadCache == guard.ReadCacheCopy
	sum := Summary{Files: 1, Calls: len(s.Calls), Malformed: len(s.Problems)}
	sum.init()
	sum.Formats[string(s.Format)]++
	stopped := false
	seen := 0 // tokens of the session so far: the estimated prefix
	// The latest output of each call (tool and arguments), for the calls
	// whose output the recording's guard replaced with a same_output note.
	outputs := map[string]string{}
	var res tool.Result
	content := make([]llm.Content, 1)
	truncated := []string{"truncated"}
	for i := range s.Calls {
		c := &s.Calls[i]
		e := Entry{I: i, File: file, Line: c.Line, Turn: c.Turn, Tool: c.Tool}
		if stopped {
			e.Decision = Skipped
			e.TokensSaved = trajectory.Tokens(len(c.Args) + len(c.Result))
			sum.charge(Skipped, Account{Saved: e.TokensSaved})
			sum.count(Skipped, "")
			if emit != nil {
				emit(e)
			}
			continue
		}
		if c.Same {
			if out, ok := outputs[c.Tool+"\x00"+string(c.Args)]; ok {
				c.Result = out // what the call returned: the earlier output
			}
		} else if !notRun(c) && !referenced(c) {
			outputs[c.Tool+"\x00"+string(c.Args)] = c.Result
		}
		content[0] = llm.Text(c.Result)
		res = tool.Result{Content: content, IsError: c.IsError}
		if c.Truncated {
			res.Notes = truncated
		}
		gc := guard.Call{Tool: c.Tool, Args: c.Args, Turn: c.Turn, Unknown: c.Unknown, Recorded: &res}
		if referenced(c) {
			gc.Recorded = nil // unknown: the cache is trusted, as it was live
		}
		d := g.Decide(gc)
		// Once the call ran, its output may repeat an earlier one word for
		// word (same_output), or be too short for a hint to be worth it.
		v := d
		if !notRun(c) && (d.Action == guard.Allow || d.Action == guard.Hint || d.Action == guard.Warn) {
			v = g.After(gc, d, res)
		}
		e.Decision, e.Rule, e.Message = v.Action.String(), v.Rule, v.Message
		t := cost(c, d, v, seen, copies)
		e.TokensSaved, e.TokensCost = t.Saved, t.Added+t.RoundTrip
		if v.Action != guard.Allow {
			sum.charge(v.Rule, t)
		}
		if v.Action == guard.Cached && copies {
			sum.TokensCached += trajectory.Tokens(len(c.Result))
		}
		sum.count(e.Decision, e.Rule)
		stopped = v.Action == guard.Stop
		seen += trajectory.Tokens(len(c.Args) + len(c.Result))
		// The session goes on as it happened: a call that ran is recorded
		// as run, one the recording's guard blocked as not run.
		rd := v
		switch {
		case v.Rule == guard.RuleSameOutput:
		case notRun(c):
			rd = guard.Decision{Action: guard.Block, Rule: c.GuardRule}
		case referenced(c):
			rd = guard.Decision{Action: guard.Cached, Rule: guard.RuleReadCache}
		case rd.Action != guard.Cached:
			rd.Action = guard.Allow
		}
		g.Record(gc, rd, res)
		if emit != nil {
			emit(e)
		}
	}
	return sum
}

// cost is the token account of the verdict v on call c, which Decide
// decided as d (v differs from d when After replaced the output or
// dropped a hint). seen is the session so far in tokens, the estimated
// prefix; copies is the read cache's copy mode.
func cost(c *trajectory.Call, d, v guard.Decision, seen int, copies bool) Account {
	var t Account
	switch {
	case v.Rule == guard.RuleSameOutput:
		// The output is replaced by the note, after d's warning if any.
		t.Saved = trajectory.Tokens(len(c.Result))
		t.Added = trajectory.Tokens(len(v.Message))
		if d.Action == guard.Warn {
			t.Added += trajectory.Tokens(len(d.Message))
		}
	case v.Action == guard.Hint || v.Action == guard.Warn:
		t.Added = trajectory.Tokens(len(v.Message))
	case v.Action == guard.Cached:
		t.Added = trajectory.Tokens(len(v.Message))
		if !copies && !referenced(c) {
			// The output is not sent again: the earlier result it
			// repeats is still in the conversation. (A copy is.)
			t.Saved = trajectory.Tokens(len(c.Result))
		}
	case v.Action == guard.Block:
		t.Added = trajectory.Tokens(len(v.Message))
		switch {
		case notRun(c):
			// The recording's own guard blocked the call: it never
			// produced output, so what blocking it saves is not known.
		case refetched(v.Rule):
			// The model fetches the output another way: one more
			// request, re-sending the prefix and the call rewritten.
			prefix := c.Prefix
			if prefix == 0 {
				prefix = EstimatedBase + seen
			}
			t.RoundTrip = prefix + trajectory.Tokens(len(c.Args))
		default:
			// The output would have repeated itself; the model's next
			// request comes either way, with the block message in place
			// of the output.
			t.Saved = trajectory.Tokens(len(c.Result))
		}
	case v.Action == guard.Stop:
		if !notRun(c) {
			t.Saved = trajectory.Tokens(len(c.Result))
		}
		t.Added = trajectory.Tokens(len(v.Message))
	}
	t.Net = t.Saved - t.Added - t.RoundTrip
	return t
}
