package compact

import (
	"context"
	"strings"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// Settings are the thresholds to try.
	Settings Settings
	// Model gives the window (ContextWindow; AssumedWindow when zero) and
	// the reply reserve.
	Model llm.Model
	// Fixed is the size in characters of what every request carries
	// besides messages (system prompt, tool schemas).
	Fixed int
}

// ReplayTurn is one model request of a recorded conversation, sized
// three ways.
type ReplayTurn struct {
	// Turn is the 1-based number of the request (one per assistant
	// message).
	Turn int `json:"turn"`
	// None, Masked and Compacted are its input tokens with no context
	// management, with masking only, and with masking and compaction.
	None      int `json:"none"`
	Masked    int `json:"masked"`
	Compacted int `json:"compacted"`
	// Compaction marks a request before which a compaction ran.
	Compaction bool `json:"compaction,omitempty"`
}

// ReplayResult sums a replay.
type ReplayResult struct {
	Turns []ReplayTurn `json:"turns"`
	// None, Masked and Compacted are the totals of input tokens.
	None      int `json:"none"`
	Masked    int `json:"masked"`
	Compacted int `json:"compacted"`
	// Compactions counts the compactions that ran; Stuck those that could
	// not bring the context under the threshold.
	Compactions int `json:"compactions"`
	Stuck       int `json:"stuck,omitempty"`
	// Pairs counts the tool call/result pairs of the conversation;
	// PairsWhole those that no request of the compacted run split (a
	// pair is either sent whole or summarised whole).
	Pairs      int `json:"pairs"`
	PairsWhole int `json:"pairs_whole"`
	// Over counts requests of the compacted run still over the budget's
	// limit.
	Over int `json:"over,omitempty"`
	// GoalMissing counts summaries without the goal (the first user
	// message) verbatim, IdentsMissing the identifiers the kept part
	// needed that a summary lacked; both are zero when every summary
	// keeps what it must.
	GoalMissing   int `json:"goal_missing"`
	IdentsNeeded  int `json:"idents_needed"`
	IdentsMissing int `json:"idents_missing"`
}

// Add adds o to r: the totals are summed and o's turns appended, so
// that r is the result of replaying both conversations one after the
// other.
func (r *ReplayResult) Add(o ReplayResult) {
	r.None += o.None
	r.Masked += o.Masked
	r.Compacted += o.Compacted
	r.Compactions += o.Compactions
	r.Stuck += o.Stuck
	r.Pairs += o.Pairs
	r.PairsWhole += o.PairsWhole
	r.Over += o.Over
	r.GoalMissing += o.GoalMissing
	r.IdentsNeeded += o.IdentsNeeded
	r.IdentsMissing += o.IdentsMissing
	r.Turns = append(r.Turns, o.Turns...)
}

// Replay sizes every model request of a recorded conversation (one per
// assistant message: what was sent is everything before it) with no
// management, with masking, and with masking and compaction as the
// harness does them, using Digest as the summariser so that the figures
// are reproducible offline. Sizes are estimates at DefaultCharsPerToken
// (recorded usage is ignored: it measured one of the three only).
func Replay(msgs []llm.Message, o ReplayOptions) ReplayResult {
	b := o.Settings.BudgetFor(o.Model, 0)
	var res ReplayResult
	fixed := Tokens(o.Fixed, 0, DefaultCharsPerToken)
	tok := make([]int, len(msgs))
	for i := range msgs {
		tok[i] = MessageTokens(&msgs[i], DefaultCharsPerToken)
	}
	res.Pairs = countPairs(msgs)
	split := map[string]bool{}
	masking := !o.Settings.Off && !o.Settings.NoMasking
	only := &track{msgs: msgs, tok: tok, fixed: fixed} // masking only
	full := &track{msgs: msgs, tok: tok, fixed: fixed} // masking and compaction
	stuck := false
	goal := ""
	if lu := firstUser(msgs); lu >= 0 {
		goal = strings.TrimSpace(msgs[lu].Text())
	}
	turn, none := 0, fixed
	for end := range msgs {
		if end > 0 {
			none += tok[end-1]
		}
		if msgs[end].Role != llm.RoleAssistant {
			continue
		}
		turn++
		t := ReplayTurn{Turn: turn, None: none}
		only.extend(end)
		if masking {
			only.step(o.Settings, b)
		}
		t.Masked = only.total
		full.extend(end)
		if masking {
			full.step(o.Settings, b)
		}
		if full.total >= b.Hard && !o.Settings.Off && !stuck {
			v := full.view()
			vt := make([]int, len(v))
			for i := range v {
				vt[i] = MessageTokens(&v[i], DefaultCharsPerToken)
			}
			if k, err := Cut(v, vt, b.Keep); err == nil {
				// The summariser reads what the model saw: the masked view.
				seen, _ := full.mask.Apply(v)
				in := Input{Messages: seen[:k], Kept: v[k:], Goal: goal}
				if lu := LastUser(v); lu >= 0 && lu < k {
					in.Latest = v[lu].Text()
				}
				sum, _ := Summarize(context.Background(), nil, in)
				if goal != "" && !strings.Contains(sum.Summary, goal) {
					res.GoalMissing++
				}
				ids := Needed(in.Messages, in.Kept, in.Latest, 200)
				res.IdentsNeeded += len(ids)
				res.IdentsMissing += len(Missing(sum.Summary, ids))
				abs := full.abs(k)
				markSplit(msgs, abs, end, split)
				full.compacted(llm.UserText(session.CompactionPrefix+sum.Summary+session.SummarySuffix), abs)
				res.Compactions++
				t.Compaction = true
				if masking {
					full.step(o.Settings, b)
				}
			}
			if full.total >= b.Hard {
				stuck = true
				res.Stuck++
			}
		} else if full.total < b.Hard {
			stuck = false
		}
		if full.total > b.Limit() {
			res.Over++
		}
		t.Compacted = full.total
		res.Turns = append(res.Turns, t)
		res.None += t.None
		res.Masked += t.Masked
		res.Compacted += t.Compacted
	}
	res.PairsWhole = res.Pairs - len(split)
	return res
}

// track follows the request a replayed run sends: an optional summary,
// then msgs[cut:end], masked; vt holds the size of every view position
// as sent, total their sum plus the fixed part.
type track struct {
	msgs    []llm.Message
	tok     []int
	fixed   int
	summary *llm.Message
	cut     int
	end     int
	mask    Masking
	vt      []int
	total   int
}

func (t *track) off() int {
	if t.summary != nil {
		return 1
	}
	return 0
}

// abs maps a view position to an index of msgs.
func (t *track) abs(v int) int { return t.cut + v - t.off() }

func (t *track) at(v int) *llm.Message {
	if v < t.off() {
		return t.summary
	}
	return &t.msgs[t.abs(v)]
}

func (t *track) view() []llm.Message {
	v := make([]llm.Message, 0, t.end-t.cut+1)
	if t.summary != nil {
		v = append(v, *t.summary)
	}
	return append(v, t.msgs[t.cut:t.end]...)
}

// extend adds the messages up to end (exclusive) to the view.
func (t *track) extend(end int) {
	if t.vt == nil {
		t.total = t.fixed
	}
	for ; t.end < end; t.end++ {
		t.vt = append(t.vt, t.tok[t.end])
		t.total += t.tok[t.end]
	}
}

// sized returns the size of view position v under masking k.
func (t *track) sized(v int, k Masking) int {
	m := t.at(v)
	if v >= t.off() && k.Masked(v, m) {
		s := *m
		s.Content = []llm.Content{llm.Text(Stub(callOf(t.msgs, t.abs(v)), m))}
		return MessageTokens(&s, DefaultCharsPerToken)
	}
	if v < t.off() {
		return MessageTokens(m, DefaultCharsPerToken)
	}
	return t.tok[t.abs(v)]
}

// step plans masking as the harness does: above the soft threshold, in
// steps worth at least 5 % of the window (any step above the hard one).
func (t *track) step(s Settings, b Budget) {
	if t.total < b.Soft {
		return
	}
	m := PlanMask(t.view(), s.KeepTurnsOrDefault(), t.mask)
	if m == t.mask {
		return
	}
	delta := 0
	changed := map[int]int{}
	for v := t.off(); v < min(m.Until, len(t.vt)); v++ {
		if t.mask.Masked(v, t.at(v)) {
			continue // masked already: masking only grows
		}
		if n := t.sized(v, m); n != t.vt[v] {
			changed[v] = n
			delta += t.vt[v] - n
		}
	}
	if delta >= b.Window/20 || t.total >= b.Hard {
		for v, n := range changed {
			t.vt[v] = n
		}
		t.total -= delta
		t.mask = m
	}
}

// compacted replaces msgs[:abs] by summary.
func (t *track) compacted(summary llm.Message, abs int) {
	t.summary, t.cut, t.mask = &summary, abs, Masking{}
	t.vt = append(t.vt[:0], MessageTokens(&summary, DefaultCharsPerToken))
	t.total = t.fixed + t.vt[0]
	for i := abs; i < t.end; i++ {
		t.vt = append(t.vt, t.tok[i])
		t.total += t.tok[i]
	}
}

func countPairs(msgs []llm.Message) int {
	calls := map[string]bool{}
	n := 0
	for i := range msgs {
		switch m := &msgs[i]; m.Role {
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls() {
				calls[c.ID] = true
			}
		case llm.RoleToolResult:
			if calls[m.ToolCallID] {
				n++
				delete(calls, m.ToolCallID)
			}
		}
	}
	return n
}

// markSplit records the pairs a cut at abs separates among msgs[:end].
func markSplit(msgs []llm.Message, abs, end int, split map[string]bool) {
	before := map[string]bool{}
	for i := 0; i < abs; i++ {
		for _, c := range msgs[i].ToolCalls() {
			before[c.ID] = true
		}
	}
	for i := abs; i < end; i++ {
		if m := &msgs[i]; m.Role == llm.RoleToolResult && before[m.ToolCallID] {
			split[m.ToolCallID] = true
		}
	}
}

// firstUser returns the index of the first message the user wrote, or -1.
func firstUser(msgs []llm.Message) int {
	for i := range msgs {
		if msgs[i].Role == llm.RoleUser && !IsSummary(&msgs[i]) {
			return i
		}
	}
	return -1
}
