package coding

import (
	"context"
	"log/slog"
	"strings"

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/telemetry/logs"
)

// logEvents writes the harness's events to the subsystem loggers of set:
// runs and turns under agent, replies under provider, tool calls under
// tool, guard notes under guard, approval requests under permission and
// compactions under compact. With no subsystem enabled it subscribes
// nothing.
func logEvents(h *harness.Harness, set *logs.Set) {
	if !set.Enabled() {
		return
	}
	lg := struct{ agent, provider, tool, guard, permission, compact *slog.Logger }{
		set.Logger("agent"), set.Logger("provider"), set.Logger("tool"), set.Logger("guard"), set.Logger("permission"), set.Logger("compact"),
	}
	h.Subscribe(func(ctx context.Context, ev harness.Event) error {
		switch ev.Type {
		case agent.EventAgentStart:
			lg.agent.DebugContext(ctx, "run started")
		case agent.EventAgentEnd:
			attrs := []any{"stop", ev.Stop, "turns", ev.Turn, "input", ev.Usage.PromptTokens(), "output", ev.Usage.Output, "cost", ev.Usage.Cost.Total}
			if ev.Err != nil {
				lg.agent.WarnContext(ctx, "run ended", append(attrs, "err", ev.Err)...)
			} else {
				lg.agent.InfoContext(ctx, "run ended", attrs...)
			}
		case agent.EventTurnStart:
			lg.agent.DebugContext(ctx, "turn started", "turn", ev.Turn)
		case agent.EventMessageEnd:
			if m := ev.Message; m != nil && m.Usage != nil {
				lg.provider.DebugContext(ctx, "reply", "model", m.Model, "stop", m.StopReason, "input", m.Usage.PromptTokens(),
					"output", m.Usage.Output, "reasoning", m.Usage.Reasoning, "cache_read", m.Usage.CacheRead)
			}
		case agent.EventToolStart:
			if ev.Call != nil {
				lg.tool.DebugContext(ctx, "call", "tool", ev.Call.Name, "id", ev.Call.ID)
			}
		case agent.EventToolEnd:
			if ev.Call == nil || ev.Result == nil {
				break
			}
			level := slog.LevelDebug
			if ev.Result.IsError {
				level = slog.LevelInfo
			}
			lg.tool.Log(ctx, level, "result", "tool", ev.Call.Name, "id", ev.Call.ID, "error", ev.Result.IsError)
			for _, n := range ev.Result.Notes {
				if rule, ok := strings.CutPrefix(n, "guard:"); ok {
					lg.guard.InfoContext(ctx, "decision", "tool", ev.Call.Name, "id", ev.Call.ID, "note", rule)
				}
			}
		case harness.EventPermissionRequest:
			if p := ev.Permission; p != nil {
				lg.permission.InfoContext(ctx, "approval asked", "tool", p.Tool)
			}
		case harness.EventAfterCompaction:
			if c := ev.Compaction; c != nil {
				lg.compact.InfoContext(ctx, "compacted", "reason", c.Reason, "before", c.TokensBefore, "after", c.TokensAfter,
					"model", c.Model, "duration", c.Duration)
			}
		}
		return nil
	})
}

// logFailover logs the failover's retries, rotations and fallbacks under
// provider, then hands them to next.
func logFailover(set *logs.Set, next func(failover.Event)) func(failover.Event) {
	if !set.Enabled() {
		return next
	}
	l := set.Logger("provider")
	return func(e failover.Event) {
		l.Info("failover", "kind", e.Kind, "provider", e.Provider, "model", e.Model, "profile", e.Profile,
			"reason", e.Reason, "attempt", e.Attempt, "delay", e.Delay)
		if next != nil {
			next(e)
		}
	}
}
