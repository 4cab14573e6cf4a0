package telemetry

import (
	"time"

	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
)

// RecordVersion is the version of the record format written by this
// package; readers accept records of this version and older.
const RecordVersion = 1

// Outcome says how a run ended, in words a report groups by.
type Outcome string

// Outcomes.
const (
	// OutcomeCompleted: the model gave its final answer (in strict mode,
	// called work_complete).
	OutcomeCompleted Outcome = "completed"
	// OutcomeBudgetExhausted: a spending limit or the turn cap stopped
	// the run; Stop says which.
	OutcomeBudgetExhausted Outcome = "budget_exhausted"
	// OutcomeContractUnmet: strict mode, the model stopped without
	// calling work_complete.
	OutcomeContractUnmet Outcome = "contract_unmet"
	// OutcomeLoopDetected: the run made no progress (stalled) or a
	// guard's circuit breaker stopped it.
	OutcomeLoopDetected Outcome = "loop_detected"
	// OutcomeCancelled: the run was aborted (Ctrl-C, Abort, a cancelled
	// context).
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeInterrupted: the process ended before the run did. It is the
	// outcome of the line written when a run begins, which the final line
	// replaces; a record left with it is a run that never finished.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeError: a provider, hook, store or configuration failure, or
	// a reply cut at its length limit or left empty.
	OutcomeError Outcome = "error"
)

// Trigger says what started a run.
type Trigger string

// Triggers.
const (
	TriggerUser     Trigger = "user"
	TriggerSubagent Trigger = "subagent"
	TriggerLong     Trigger = "long"
	TriggerACP      Trigger = "acp"
	TriggerHTTP     Trigger = "http"
)

// Record is what a run did and cost. It is one JSON line in the run
// store and the data of the run's "run" session entry. Durations are in
// milliseconds.
type Record struct {
	Version  int     `json:"v"`
	ID       string  `json:"id"`
	Parent   string  `json:"parent,omitempty"`
	Session  string  `json:"session,omitempty"`
	Trigger  Trigger `json:"trigger"`
	Frontend string  `json:"frontend,omitempty"`
	Agent    string  `json:"agent,omitempty"`
	Depth    int     `json:"depth"`
	Workdir  string  `json:"workdir,omitempty"`

	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Profile is the credential profile of the last successful request.
	Profile string `json:"profile,omitempty"`

	Start      time.Time `json:"start"`
	DurationMS int64     `json:"duration_ms"`
	QueuedMS   int64     `json:"queued_ms,omitempty"`

	Outcome Outcome `json:"outcome"`
	// Stop is the harness's stop reason; Detail explains it.
	Stop   string `json:"stop,omitempty"`
	Detail string `json:"detail,omitempty"`

	Turns      int `json:"turns"`
	Requests   int `json:"requests"`
	ToolCalls  int `json:"tool_calls"`
	ToolErrors int `json:"tool_errors"`
	// Tools counts calls and errors per tool name.
	Tools map[string]ToolCount `json:"tools,omitempty"`
	// Guard counts guard decisions by "action:rule" (block:cascade,
	// warn:same_call, cached …); Permission counts permission notes
	// (asked, blocked …).
	Guard      map[string]int `json:"guard,omitempty"`
	Permission map[string]int `json:"permission,omitempty"`

	Compactions []Compaction `json:"compactions,omitempty"`
	Retries     int          `json:"retries,omitempty"`
	Fallbacks   []Fallback   `json:"fallbacks,omitempty"`

	// Usage is the run's own model usage: every request it sent,
	// compaction summaries included; Cost is its price in US dollars.
	Usage Usage   `json:"usage"`
	Cost  float64 `json:"cost"`
	// Children are the runs begun inside this one (sub-agents), with
	// what they spent; ChildUsage and ChildCost sum them.
	Children   []Child `json:"children,omitempty"`
	ChildUsage Usage   `json:"child_usage,omitzero"`
	ChildCost  float64 `json:"child_cost,omitempty"`
	// Budget is the limits the run ran under, when it had any.
	Budget *Limits `json:"budget,omitempty"`
	// Carried is the spend of earlier runs of the session that never
	// finished (the process died), which this run carried: its budget
	// counted it. Usage and Cost above stay the run's own.
	Carried *Carried `json:"carried,omitempty"`
}

// TotalCost is the run's cost with its children's and what it carried.
func (r *Record) TotalCost() float64 {
	t := r.Cost + r.ChildCost
	if r.Carried != nil {
		t += r.Carried.Cost
	}
	return t
}

// ToolCount is the calls and failed calls of one tool.
type ToolCount struct {
	Calls  int `json:"calls"`
	Errors int `json:"errors,omitempty"`
}

// Usage counts tokens. Input is every prompt token not read from or
// written to a cache; Reasoning is the part of Output the provider
// reported as reasoning (zero where it reports none).
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"`
}

// Prompt is every input-side token: fresh, cached and written to cache.
func (u Usage) Prompt() int { return u.Input + u.CacheRead + u.CacheWrite }

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheWrite += o.CacheWrite
	u.Reasoning += o.Reasoning
}

func usageOf(u llm.Usage) Usage {
	return Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
}

// Compaction is one compaction in a run.
type Compaction struct {
	Reason     string `json:"reason,omitempty"`
	Before     int    `json:"before"`
	After      int    `json:"after"`
	DurationMS int64  `json:"duration_ms"`
	Model      string `json:"model,omitempty"`
}

// Fallback is one move of a request to another model.
type Fallback struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason,omitempty"`
}

// Child is a run begun inside another, and what it spent (its own usage
// plus its children's).
type Child struct {
	ID      string  `json:"id"`
	Agent   string  `json:"agent,omitempty"`
	Outcome Outcome `json:"outcome"`
	Usage   Usage   `json:"usage"`
	Cost    float64 `json:"cost"`
	// Late is set for a child that ended after the run did (a background
	// sub-agent): the run's record was written again with it.
	Late bool `json:"late,omitempty"`
}

// OutcomeOf maps how a harness run ended to an outcome: a budget error
// wins over everything, then the harness's stop reason.
func OutcomeOf(stop harness.StopReason, err error) Outcome {
	if llm.CodeOf(err) == llm.CodeBudget || isBudget(err) {
		return OutcomeBudgetExhausted
	}
	switch stop {
	case harness.StopCompleted:
		return OutcomeCompleted
	case harness.StopMaxTurns:
		return OutcomeBudgetExhausted
	case harness.StopWorkIncomplete, harness.StopContractUnmet:
		return OutcomeContractUnmet
	case harness.StopStalled, harness.StopToolStop:
		return OutcomeLoopDetected
	case harness.StopAborted:
		return OutcomeCancelled
	}
	return OutcomeError
}
