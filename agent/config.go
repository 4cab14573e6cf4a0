// Package agent is rein's low-level loop: it asks a model for a turn,
// runs the tool calls the model made, appends the results and repeats
// until the model stops calling tools. It knows nothing of files,
// sessions or configuration; the harness package composes those around it.
//
// The loop is deterministic given its inputs: time reaches it through
// Config.Clock and concurrency through Config.Go, so the same loop can run
// inside a durable-execution engine.
package agent

import (
	"context"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/tool"
)

// Settings are what one turn uses to build its request. The harness may
// replace them between turns (see Config.Refresh); a turn never sees a
// change made while it runs.
type Settings struct {
	Provider llm.Provider
	Model    llm.Model
	System   []llm.SystemPart
	// Tools offered to the model; nil offers none.
	Tools *tool.Registry
	// Middleware wraps every tool call, first = outermost, around
	// Tools.Execute.
	Middleware  []tool.Middleware
	Thinking    llm.ThinkingLevel
	MaxTokens   int
	Temperature *float64
	Options     llm.Options
}

// Config configures one run of the loop.
type Config struct {
	Settings

	// MaxTurns ends the run with StopMaxTurns after this many turns when
	// the model still wants to continue; zero means DefaultMaxTurns,
	// negative means no cap.
	MaxTurns int
	// MaxNudges bounds how many times an empty or thinking-only reply is
	// answered with a nudge before the run ends with StopEmptyReply; zero
	// means DefaultMaxNudges, negative means none.
	MaxNudges int
	// Nudge is the text of the nudge message; empty uses DefaultNudge.
	Nudge string

	// Steering is polled after each turn; messages it returns are added
	// to the conversation before the next request. It must not block.
	Steering func(ctx context.Context) []llm.Message
	// FollowUp is polled when the run would otherwise end; messages it
	// returns are added and the run goes on. It must not block.
	FollowUp func(ctx context.Context) []llm.Message
	// Refresh is called at every save point, that is before each turn
	// after the first, and may replace the settings for the turns that
	// follow. An error ends the run with StopError.
	Refresh func(ctx context.Context, s *Settings) error

	// Clock stamps the messages the loop creates; nil means time.Now.
	Clock func() time.Time
	// Go starts the goroutines of a parallel tool batch; nil means a go
	// statement. The function must run fn exactly once.
	Go func(fn func())
}

// Defaults.
const (
	DefaultMaxTurns  = 100
	DefaultMaxNudges = 2
	DefaultNudge     = "continue: call a tool or give your final answer"
)

func (c *Config) now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

func (c *Config) maxTurns() int {
	switch {
	case c.MaxTurns == 0:
		return DefaultMaxTurns
	case c.MaxTurns < 0:
		return 0
	}
	return c.MaxTurns
}

func (c *Config) maxNudges() int {
	switch {
	case c.MaxNudges == 0:
		return DefaultMaxNudges
	case c.MaxNudges < 0:
		return 0
	}
	return c.MaxNudges
}
