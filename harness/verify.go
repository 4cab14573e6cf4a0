package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinhq/rein/llm"
)

// StopContractUnmet: the model kept ending its turn while the contract's
// predicates failed, after VerifyRetries messages saying which.
const StopContractUnmet StopReason = "contract_unmet"

// DefaultVerifyRetries is how many times the failures of a contract go
// back to the model before the run ends with StopContractUnmet.
const DefaultVerifyRetries = 3

// Verifier checks a run's contract whenever the run would end as
// completed: at the model's final answer (interactive) or after a
// successful work_complete call (strict). It runs before the agent_stop
// hook. See package work for the contract verifier rein uses.
type Verifier interface {
	// Verify reports whether every predicate holds now. It is called on
	// the run's goroutine and may run commands; it must honour ctx. An
	// error ends the run with a failure (it is for ctx ending and broken
	// stores, not for predicates that fail).
	Verify(ctx context.Context, in VerifyInput) (Verdict, error)
}

// VerifyInput is what a Verifier is told about the run.
type VerifyInput struct {
	// Final is the run's last assistant message; FinalText its answer
	// (in strict mode, the work_complete summary when the message says
	// nothing else).
	Final     *llm.Message
	FinalText string
	// Messages are the messages the run persisted so far.
	Messages []llm.Message
	// Attempt counts the checks of this run, from 1.
	Attempt int
}

// Verdict is the outcome of one check.
type Verdict struct {
	// Met is true only when every predicate holds.
	Met bool
	// Message tells the model what fails (sent as one user message when
	// not Met and retries remain); Detail is one line for the stop
	// detail.
	Message, Detail string
}

func (p StopPolicy) verifyRetries() int {
	switch {
	case p.VerifyRetries == 0:
		return DefaultVerifyRetries
	case p.VerifyRetries < 0:
		return 0
	}
	return p.VerifyRetries
}

// verify checks the contract before the run may end as completed. It
// returns the message to send when a predicate fails and a retry
// remains; end reports that the run ends here (the stop is set to
// StopContractUnmet, or the check failed). Without a Verifier it does
// nothing.
func (r *run) verify(ctx context.Context) (msgs []llm.Message, end bool) {
	v := r.h.stop.Verify
	if v == nil {
		r.verified = true
		return nil, false
	}
	r.checks++
	in := VerifyInput{Final: r.last, Messages: r.added, Attempt: r.checks}
	if r.last != nil {
		in.FinalText = finalText(r.last)
	}
	verdict, err := v.Verify(ctx, in)
	if err != nil {
		r.fail(fmt.Errorf("verifying the contract: %w", err))
		return nil, true
	}
	if verdict.Met {
		r.verified = true
		return nil, false
	}
	if r.verifyTries < r.h.stop.verifyRetries() {
		r.verifyTries++
		text := verdict.Message
		if strings.TrimSpace(text) == "" {
			text = "The task's contract is not met yet: " + verdict.Detail
		}
		m := llm.UserText(text)
		m.Timestamp = r.h.clock()
		return []llm.Message{m}, false
	}
	r.stop = StopContractUnmet
	r.detail = fmt.Sprintf("the contract is not met after %d check(s): %s", r.checks, verdict.Detail)
	return nil, true
}

// finalText is the answer of m: its text, or the summary of the
// work_complete call it makes.
func finalText(m *llm.Message) string {
	if t := strings.TrimSpace(m.Text()); t != "" {
		return t
	}
	for _, c := range m.Content {
		if c.Type == llm.ContentToolCall && c.Name == WorkCompleteTool {
			var a workCompleteArgs
			if json.Unmarshal(c.Arguments, &a) == nil {
				return a.Summary
			}
		}
	}
	return ""
}
