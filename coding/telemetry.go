package coding

import (
	"context"

	"github.com/reinhq/rein/compact"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/telemetry"
)

// newTelemetry builds the run observer of the agent: records in the
// workspace's .rein/runs (unless NoRunRecords), the budget of the
// workspace's telemetry.json with the options' limits over it, budget
// warnings to Warn, and the options' tracer.
func (s *setup) newTelemetry() error {
	cfg, err := telemetry.LoadConfig(s.ws.Root, s.o.Getenv)
	if err != nil {
		return &ConfigError{File: telemetry.ConfigFile(s.ws.Root), Err: err}
	}
	limits := cfg.Budget.Limits().Override(s.o.Budget)
	if err := limits.Validate(); err != nil {
		return err
	}
	to := telemetry.Options{Frontend: s.o.Frontend, Workdir: s.ws.Root, Limits: limits, Tracer: s.o.Tracer,
		OnWarning: func(w telemetry.Warning) { s.o.Warn("warning: " + w.String()) }, Logger: s.o.Logs.Logger("telemetry")}
	if to.Tracer == nil && s.o.Tracing != nil && telemetry.TracesWanted(s.o.Getenv, cfg.OTel) {
		tr, stop, err := s.o.Tracing(context.Background(), telemetry.TraceSettings{Config: cfg.OTel, Getenv: s.o.Getenv,
			Redact: s.o.Redactor.String, Warn: s.o.Warn, Version: s.o.Version})
		if err != nil {
			s.o.Warn("warning: traces are off: " + err.Error())
		} else {
			to.Tracer, s.stopTraces = tr, stop
		}
	}
	if to.Frontend == "" {
		to.Frontend = "sdk"
	}
	if !s.o.NoRunRecords {
		to.Store = telemetry.NewStore(telemetry.DefaultDir(s.ws.Root))
		to.Store.Redact = s.o.Redactor.Bytes
	}
	s.tel = telemetry.New(to)
	return nil
}

// observe wraps a model provider so that its requests are checked
// against the running prompt's budget, charged to it and traced, and
// holds a request slot of the agent's lanes while it streams.
func (s *setup) observe(p llm.Provider) llm.Provider {
	if p == nil || s.tel == nil {
		return s.laneProvider(p)
	}
	return s.laneProvider(s.tel.Provider(p))
}

// observeSummarizers wraps the providers of the compaction models, so
// that summaries count against the budget too.
func (s *setup) observeSummarizers(opts *harness.Options) {
	for i, sum := range opts.Summarizers {
		if m, ok := sum.(compact.Model); ok {
			m.Provider = s.observe(m.Provider)
			opts.Summarizers[i] = m
		}
	}
}

// LastRun is the record of the agent's latest prompt (the zero Record
// before the first), with the background sub-agents it started that
// have ended since.
func (a *Agent) LastRun() telemetry.Record {
	a.mu.Lock()
	r := a.lastRun
	a.mu.Unlock()
	if r == nil {
		return telemetry.Record{}
	}
	return r.Record()
}

// traceEnv hands a traced run's span to the hooks it runs, as TRACEPARENT
// and TRACESTATE; nothing when the run is not traced.
func traceEnv(ctx context.Context) []string {
	tp, ts := telemetry.TraceContext(ctx)
	if tp == "" {
		return nil
	}
	env := []string{"TRACEPARENT=" + tp}
	if ts != "" {
		env = append(env, "TRACESTATE="+ts)
	}
	return env
}

// traceMeta hands a traced run's span to the MCP servers it calls, as
// traceparent and tracestate in the call's _meta.
func traceMeta(ctx context.Context) map[string]any {
	tp, ts := telemetry.TraceContext(ctx)
	if tp == "" {
		return nil
	}
	m := map[string]any{"traceparent": tp}
	if ts != "" {
		m["tracestate"] = ts
	}
	return m
}

// Budget is the spending limit each prompt begins with (zero: none).
func (a *Agent) Budget() telemetry.Limits { return a.s.tel.Limits() }

// SetBudget changes the spending limits of the prompts submitted after it
// (the user raising a limit a prompt reached, say); a running prompt
// keeps its own. Negative limits are an error and change nothing.
func (a *Agent) SetBudget(l telemetry.Limits) error { return a.s.tel.SetLimits(l) }
