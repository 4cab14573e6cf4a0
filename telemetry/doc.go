// Package telemetry observes runs of the agent: it keeps a record of every
// run, stops a run before it spends more than its budget, and hands the
// run's steps to an optional tracer (package telemetry/otel exports them
// as OpenTelemetry GenAI spans).
//
// It is an adapter over events: a Telemetry wraps the model provider
// (Provider, a llm.Middleware that checks budgets and charges usage before
// and after every request, compaction summaries included) and listens to
// a harness (Attach). A front-end starts each run with Begin, which puts
// the Run into the context passed to harness.Prompt, and ends it with
// Run.End once Prompt returns. A run begun inside another run's context
// (a sub-agent) is its child: its spending is charged to its parent's
// budget too, and the parent's record lists it.
//
// Records are one JSON line per run in Options.Dir (see Store) and a
// custom "run" entry in the run's session log. See docs/observability.md.
package telemetry
