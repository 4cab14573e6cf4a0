package coding

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/reinhq/rein/guard"
	"github.com/reinhq/rein/harness"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/prompt"
	"github.com/reinhq/rein/session"
	"github.com/reinhq/rein/subagent"
	"github.com/reinhq/rein/tool/builtin"
)

// Open reads the workspace of o and returns a ready agent: its tools,
// model, system prompt, permission gate, hooks, MCP servers and session
// log are set up, and the SessionStart hooks have run.
//
// Everything that can be wrong with the input is found before anything
// starts: a workspace that does not exist, is a file or cannot be read is
// a *WorkspaceError; a malformed config file (model config, settings,
// security, context, MCP) is a *ConfigError naming the file and, where it
// is known, the line; a session held by another agent is a
// *session.LockedError. On any error nothing is left open: no lock is
// held and no process is started. The caller must Close the agent.
func Open(ctx context.Context, o Options) (*Agent, error) {
	o.defaults()
	var sess *session.Session
	if o.Session != "" {
		var err error
		if sess, err = session.Open(o.Session, session.Options{Redact: o.Redactor.Bytes}); err != nil {
			return nil, err
		}
		resumeOptions(&o, sess)
	}
	a, err := open(ctx, o, sess)
	if err != nil && sess != nil {
		sess.Close()
	}
	return a, err
}

// resumeOptions fills in what o leaves empty from the session being
// continued: its model, thinking level, active tools, base URL and
// workspace.
func resumeOptions(o *Options, sess *session.Session) {
	c := sess.Context()
	if o.Model == "" && o.Provider == nil && c.Model != "" {
		o.Model = c.Provider + "/" + c.Model
		if c.Provider == "faux" {
			o.Model = "faux"
		}
	}
	if o.Thinking == "" && !o.ThinkingSet {
		o.Thinking = c.Thinking
	}
	if o.Tools == "" && c.ActiveTools != nil {
		// Every tool the workspace has is handed to the harness, which
		// activates those the log records and drops, with a note, those
		// that no longer exist (see harness.GoneTools).
		o.restoreTools = true
		if len(c.ActiveTools) == 0 {
			o.Tools = "none"
		}
	}
	if u := RecordedBaseURL(sess.Entries()); o.BaseURL == "" && u != "" {
		// A session log is a file in the workspace, which a cloned
		// repository controls: by itself it may point requests at this
		// machine only.
		if loopbackURL(u) {
			o.BaseURL = u
		} else {
			o.warnf("note: this session was recorded with --base-url %s; a session file alone cannot send requests elsewhere, so pass --base-url %s to use it again", u, u)
		}
	}
	if o.Workdir == "" && sess.Header().Cwd != "" {
		o.Workdir = sess.Header().Cwd
	}
}

// open builds the agent; sess, when set, is the session to continue
// (closed by the caller on error).
func open(ctx context.Context, o Options, sess *session.Session) (*Agent, error) {
	if !o.Thinking.Valid() {
		return nil, fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", o.Thinking)
	}
	s, err := newSetup(o)
	if err != nil {
		return nil, err
	}
	o = s.o
	resumed := sess != nil
	if sess != nil {
		for _, pg := range builtin.KillRecorded(s.ws.Root) {
			o.warnf("killed process group %d left running by an interrupted run", pg)
		}
	}
	// Read and check everything first; nothing below starts a process or
	// takes a lock until the config is known to be good.
	jobs := &builtin.Jobs{}
	reg, err := s.toolset(jobs)
	if err != nil {
		return nil, err
	}
	model, provider := o.ModelInfo, o.Provider
	if provider == nil {
		if model, provider, err = s.resolveModel(o.Model); err != nil {
			return nil, err
		}
	} else {
		provider = s.observe(withRequestTimeout(provider, o.RequestTimeout))
	}
	var mcpCfg *mcp.Config
	if !s.noTools() {
		if mcpCfg, err = mcpConfig(o, s.ws.Root, o.DisableMCP, s.trust, false); err != nil {
			return nil, err
		}
		for name, sc := range o.MCPServers {
			if mcpCfg.Servers == nil {
				mcpCfg.Servers = map[string]mcp.ServerConfig{}
			}
			mcpCfg.Servers[name] = sc
		}
	}
	withMCP := mcpCfg != nil && len(mcpCfg.Servers) > 0
	found := s.discover(true)
	guardCfg, _, err := guard.Discover(s.ws.Root)
	if err != nil {
		s.o.warnf("note: %v", err)
	}
	if s.work, err = s.workSetup(ctx, sess); err != nil {
		return nil, err
	}
	if reg, err = s.withWorkTools(reg, s.work); err != nil {
		return nil, err
	}
	builder := s.builder(found, withMCP)
	if reg, err = s.withSkillTool(reg, builder); err != nil {
		return nil, err
	}
	host := &agentHost{}
	rt, reg, err := s.newRuntime(reg, host)
	if err != nil {
		return nil, err
	}
	ps, err := s.loadPermissions(reg)
	if err != nil {
		return nil, err
	}
	maxTurns := o.MaxTurns
	opts := harness.Options{
		Provider:    provider,
		Model:       model,
		Prompt:      builder,
		Thinking:    o.Thinking,
		GuardConfig: &guardCfg,
		Limit:       s.limitOptions(),
		Stop:        harness.StopPolicy{MaxTurns: maxTurns},
	}
	opts.StreamOptions.MaxReplyBytes = s.sec.MaxReplyBytes
	if o.Strict {
		opts.Stop.Mode = harness.Strict
	}
	if err := s.applyContext(&opts); err != nil {
		return nil, err
	}
	s.observeSummarizers(&opts)
	s.work.apply(&opts)
	ps.apply(s, &opts)

	// Start: the session log, the MCP servers, the harness.
	if err := ensureGitignore(s.ws.Root, sess == nil && !o.NoSession); err != nil {
		o.warnf("warning: cannot write .rein/.gitignore: %v", err)
	}
	source := "startup"
	if sess == nil && !o.NoSession {
		so := session.Options{Cwd: s.ws.Root, Dir: session.DefaultDir(s.ws.Root), Redact: o.Redactor.Bytes}
		if c := o.child; c != nil {
			// A child's log is written before each append returns, so it
			// survives the process dying, and fsynced when it closes.
			so.SessionID, so.Sync = c.spec.ID, session.SyncBatch
			so.Agent = &session.AgentLink{ParentCall: c.spec.CallID, Type: c.spec.Definition.Name, Depth: c.spec.Depth}
			if ps := c.parent.Session(); ps != nil {
				so.Agent.ParentSession, so.Agent.ParentPath = ps.ID(), ps.Path()
			}
		}
		sess, err = session.Create(so)
		if err != nil {
			return nil, fmt.Errorf("creating the session log: %w", err)
		}
		defer func() {
			if err != nil {
				sess.Close()
			}
		}()
	} else if sess != nil && sess.ID() != "" && len(sess.Entries()) > 0 {
		source = "resume"
	}
	if sess != nil {
		opts.Store = sess
		opts.StreamOptions.SessionID = sess.ID()
		ps.cmds.SetSession(sess.ID(), sess.Path())
	}
	bridge := &mcpTools{base: reg}
	if c := s.o.child; c != nil {
		// The servers its definition names are its own; a tool of theirs
		// in either deny list (mcp__server__tool) stays out.
		bridge.keep = subagent.Policy{Deny: c.policy.Deny}.Allows
	}
	if bridge.m = s.newMCP(mcpCfg, bridge.changed); bridge.m != nil {
		bridge.m.Start(ctx)
		s.reportMCP(bridge.m)
	}
	if opts.Tools, err = bridge.registry(); err != nil {
		bridge.close()
		return nil, err
	}
	// A continued session offers the MCP servers and skills the
	// workspace has now, as well as the tools its log records.
	opts.AddedTools = func(name string) bool {
		return strings.HasPrefix(name, "mcp__") || name == prompt.SkillToolName
	}
	// The active sub-agents are kept verbatim by every compaction, after
	// the open work items.
	workPin := opts.Pinned
	opts.Pinned = func() string {
		pin := ""
		if workPin != nil {
			pin = workPin()
		}
		if b := rt.ActiveBlock(); b != "" {
			if strings.TrimSpace(pin) != "" {
				pin = strings.TrimRight(pin, "\n") + "\n\n"
			}
			pin += b
		}
		return pin
	}
	h, err := harness.New(opts)
	if err != nil {
		bridge.close()
		return nil, err
	}
	s.work.attach(h)
	a := newAgent(s, h, sess, found, ps, jobs, bridge)
	a.sub, a.defs, host.a = rt, host.defs, a
	if resumed {
		// A log created now has no children to find: its id is new.
		a.rebuildChildren(sess)
	}
	logEvents(h, o.Logs)
	watchProgress(h)
	ps.install(ctx, h, source)
	if err := recordBaseURL(h, sess, o.BaseURL); err != nil {
		o.warnf("warning: cannot record the base URL in the session: %v", err)
	}
	bridge.attach(h)
	s.noticeClaudeSetup()
	return a, nil
}

// ModelName is a model as the user names it: provider/id.
func ModelName(m llm.Model) string { return m.Provider + "/" + m.ID }

// loopbackURL reports whether u's host is this machine (localhost or a
// loopback address).
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
