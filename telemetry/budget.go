package telemetry

import (
	"errors"
	"fmt"
	"sync"

	"github.com/reinhq/rein/llm"
)

// Limits are the spending limits of a run. Zero means no limit.
// InputTokens counts every prompt token, cached or not (the context the
// model read); OutputTokens counts reply tokens, reasoning included.
type Limits struct {
	Cost         float64 `json:"cost,omitempty"`
	InputTokens  int     `json:"input_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
}

// IsZero reports whether no limit is set.
func (l Limits) IsZero() bool { return l == Limits{} }

// Validate reports a negative limit.
func (l Limits) Validate() error {
	switch {
	case l.Cost < 0:
		return fmt.Errorf("max cost %v is negative: give a dollar amount such as 0.50, or 0 for no limit", l.Cost)
	case l.InputTokens < 0:
		return fmt.Errorf("max input tokens %d is negative: give a count, or 0 for no limit", l.InputTokens)
	case l.OutputTokens < 0:
		return fmt.Errorf("max output tokens %d is negative: give a count, or 0 for no limit", l.OutputTokens)
	}
	return nil
}

// WarnAt is the share of a limit at which a run is warned, once.
const WarnAt = 0.8

// Limit names.
const (
	LimitCost         = "cost"
	LimitInputTokens  = "input_tokens"
	LimitOutputTokens = "output_tokens"
)

// BudgetError says which limit stopped a request. It is wrapped in an
// *llm.Error with code llm.CodeBudget.
type BudgetError struct {
	// Run is the run whose limit was reached: the run itself or, for a
	// sub-agent, an ancestor charged with its spending.
	Run   string
	Limit string // LimitCost, LimitInputTokens or LimitOutputTokens
	// Spent is what was spent (for input tokens: plus the estimated
	// prompt of the refused request); Max is the limit.
	Spent, Max float64
	// From says where the limit was set when it is not the command
	// line's flags or the config ("the budget of agent reviewer").
	From string
}

func (e *BudgetError) Error() string {
	return "budget exhausted: " + describe(e.Limit, e.Spent, e.Max, e.From) + " (run " + e.Run + ")"
}

// Warning reports that a run reached WarnAt of a limit.
type Warning struct {
	Run        string
	Limit      string
	Spent, Max float64
	From       string // as BudgetError.From
}

func (w Warning) String() string {
	return fmt.Sprintf("budget: %s — %.0f%% used (run %s)", describe(w.Limit, w.Spent, w.Max, w.From), 100*w.Spent/w.Max, w.Run)
}

func describe(limit string, spent, limit2 float64, from string) string {
	switch limit {
	case LimitCost:
		return fmt.Sprintf("cost $%.4f of $%.4f (%s)", spent, limit2, or(from, "--max-cost"))
	case LimitInputTokens:
		return fmt.Sprintf("%.0f of %.0f input tokens (%s)", spent, limit2, or(from, "--max-input-tokens"))
	}
	return fmt.Sprintf("%.0f of %.0f output tokens (%s)", spent, limit2, or(from, "--max-output-tokens"))
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func isBudget(err error) bool {
	var b *BudgetError
	return errors.As(err, &b)
}

// Meter counts what a run spends against its limits. A child meter
// (a sub-agent's) charges every usage to its ancestors too, so their
// limits count it. Safe for concurrent use.
type Meter struct {
	run    string
	from   string // where the limits were set, for errors
	parent *Meter
	limits Limits
	warn   func(Warning)

	mu     sync.Mutex
	own    llm.Usage // this run's requests
	total  llm.Usage // with the children's
	warned bool
}

// NewMeter returns a meter for run with limits, charged to parent too
// (nil for a top-level run). warn, when set, is called once when a limit
// of this meter reaches WarnAt.
func NewMeter(run string, limits Limits, parent *Meter, warn func(Warning)) *Meter {
	return &Meter{run: run, parent: parent, limits: limits, warn: warn}
}

// Charge adds the usage of one reply to the meter and its ancestors.
func (m *Meter) Charge(u llm.Usage) {
	m.mu.Lock()
	m.own.Add(u)
	m.mu.Unlock()
	for a := m; a != nil; a = a.parent {
		a.mu.Lock()
		a.total.Add(u)
		var w *Warning
		if !a.warned {
			if w = a.near(); w != nil {
				a.warned = true
			}
		}
		a.mu.Unlock()
		if w != nil && a.warn != nil {
			a.warn(*w)
		}
	}
}

// near returns the first limit past WarnAt. Called with mu held.
func (m *Meter) near() *Warning {
	for _, c := range m.counts(0, 0) {
		if c.max > 0 && c.spent >= WarnAt*c.max {
			return &Warning{Run: m.run, Limit: c.name, Spent: c.spent, Max: c.max, From: m.from}
		}
	}
	return nil
}

type count struct {
	name       string
	spent, max float64
}

// counts lists spending against limits, with a request's estimated
// prompt tokens and their cost added. Called with mu held.
func (m *Meter) counts(prompt int, promptCost float64) []count {
	return []count{
		{LimitCost, m.total.Cost.Total + promptCost, m.limits.Cost},
		{LimitInputTokens, float64(m.total.PromptTokens() + prompt), float64(m.limits.InputTokens)},
		{LimitOutputTokens, float64(m.total.Output), float64(m.limits.OutputTokens)},
	}
}

// Check reports whether a request whose prompt is estimated at prompt
// tokens (costing promptCost dollars) may be sent: a *BudgetError names
// the first limit, of the meter or an ancestor, that is reached
// already or that the prompt would pass.
func (m *Meter) Check(prompt int, promptCost float64) error {
	for a := m; a != nil; a = a.parent {
		a.mu.Lock()
		cs := a.counts(prompt, promptCost)
		a.mu.Unlock()
		for _, c := range cs {
			if c.max <= 0 {
				continue
			}
			over := c.spent >= c.max
			if c.name == LimitInputTokens {
				over = c.spent > c.max
			}
			if over {
				return &BudgetError{Run: a.run, Limit: c.name, Spent: c.spent, Max: c.max, From: a.from}
			}
		}
	}
	return nil
}

// Own returns the usage of the meter's own run; Total adds its
// children's.
func (m *Meter) Own() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.own
}

// Total returns the usage of the run and its children.
func (m *Meter) Total() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// Limits returns the meter's own limits.
func (m *Meter) Limits() Limits { return m.limits }

// Remaining returns what the meter's run may still spend: for each limit
// set on the meter or an ancestor, the smallest of max minus spent (at
// least the smallest positive amount, so that a spent limit stays a
// limit rather than reading as none); a limit no one sets stays zero.
func (m *Meter) Remaining() Limits {
	var out Limits
	for a := m; a != nil; a = a.parent {
		a.mu.Lock()
		l, t := a.limits, a.total
		a.mu.Unlock()
		if l.Cost > 0 {
			out.Cost = minSet(out.Cost, max(l.Cost-t.Cost.Total, 1e-9))
		}
		if l.InputTokens > 0 {
			out.InputTokens = minSet(out.InputTokens, max(l.InputTokens-t.PromptTokens(), 1))
		}
		if l.OutputTokens > 0 {
			out.OutputTokens = minSet(out.OutputTokens, max(l.OutputTokens-t.Output, 1))
		}
	}
	return out
}

// Within returns the smaller of each limit of l and o, where zero is no
// limit.
func (l Limits) Within(o Limits) Limits {
	return Limits{Cost: minSet(l.Cost, o.Cost), InputTokens: minSet(l.InputTokens, o.InputTokens), OutputTokens: minSet(l.OutputTokens, o.OutputTokens)}
}

// minSet is the smaller of a and b, where zero means unset.
func minSet[T int | float64](a, b T) T {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}
