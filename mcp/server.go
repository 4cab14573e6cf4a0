package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reinhq/rein/tool"
)

// State is where a server is in its life.
type State string

// Server states.
const (
	StateDisabled   State = "disabled"
	StateStarting   State = "starting"
	StateReady      State = "ready"
	StateRestarting State = "restarting"
	StateFailed     State = "failed"
	StateStopped    State = "stopped"
)

// server is one configured MCP server and its connection.
type server struct {
	m    *Manager
	name string
	cfg  ServerConfig

	mu       sync.Mutex
	state    State
	err      error
	sess     *sdk.ClientSession
	proc     *process
	gen      int
	tools    []*tool.Tool
	cached   []*tool.Tool // remembered tools, offered while starting
	skipped  []string
	restarts int
	info     string
	since    time.Time
	started  chan struct{} // closed when the first start attempt ends
	wg       sync.WaitGroup
}

func (s *server) transport() string { return s.cfg.transport() }

// run makes the first connection; it closes s.started when done.
func (s *server) run(ctx context.Context) {
	defer close(s.started)
	if err := s.connect(ctx); err != nil {
		s.mu.Lock()
		if s.state != StateStopped {
			s.state, s.err = StateFailed, err
		}
		s.cached = nil
		s.mu.Unlock()
		s.m.changed()
		return
	}
	s.m.changed()
}

// connect starts the server (stdio) or opens the session (http), lists
// its tools and marks it ready. It is bounded by the manager's start
// timeout.
func (s *server) connect(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, s.m.opts.StartTimeout)
	defer cancel()
	var transport sdk.Transport
	var proc *process
	switch tr := s.transport(); {
	case s.m.dial != nil:
		transport = s.m.dial(s.name)
	case tr == "stdio":
		p, err := s.m.start(s.name, &s.cfg)
		if err != nil {
			return err
		}
		proc = p
		transport = &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin, MaxLineLength: s.m.opts.MaxMessage}
	case tr == "http":
		var missing []string
		url := expand(s.cfg.URL, s.m.getenv, &missing)
		headers := make(map[string]string, len(s.cfg.Headers))
		for k, v := range s.cfg.Headers {
			headers[k] = expand(v, s.m.getenv, &missing)
		}
		if len(missing) > 0 {
			return fmt.Errorf("the config names environment variables that are not set: %s", strings.Join(missing, ", "))
		}
		base := s.m.opts.HTTPClient
		if base == nil {
			base = http.DefaultClient
		}
		hc := *base
		hc.Transport = &headerTransport{base: base.Transport, headers: headers}
		transport = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &hc, MaxRetries: -1}
	default:
		return fmt.Errorf("no command or url")
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "rein", Version: s.m.opts.Version}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.refresh()
			}()
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return s.startError(ctx, proc, "connecting", err)
	}
	tools, skipped, raw, err := s.list(ctx, cs)
	if err != nil {
		cs.Close()
		return s.startError(ctx, proc, "listing its tools", err)
	}
	s.remember(raw)
	s.mu.Lock()
	if s.state == StateStopped {
		s.mu.Unlock()
		cs.Close()
		if proc != nil {
			proc.stopNow()
		}
		return errors.New("stopped")
	}
	s.gen++
	gen := s.gen
	s.sess, s.proc, s.tools, s.skipped, s.cached = cs, proc, tools, skipped, nil
	s.state, s.err, s.since = StateReady, nil, time.Now()
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		s.info = ir.ServerInfo.Name + " " + ir.ServerInfo.Version
	}
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := cs.Wait()
		s.lost(gen, err)
	}()
	return nil
}

// startError explains a failed start and stops the process.
func (s *server) startError(ctx context.Context, proc *process, what string, err error) error {
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	if proc != nil {
		if !timedOut {
			// Give a dying process a moment, so its exit status is known.
			select {
			case <-proc.done:
			case <-time.After(200 * time.Millisecond):
			}
		}
		exit := proc.exitText()
		proc.stopNow()
		tail := s.m.logTail(s.name)
		switch {
		case strings.Contains(err.Error(), "invalid character"):
			err = fmt.Errorf("the server wrote something other than JSON-RPC to its standard output (%v); servers must log to stderr", err)
		case exit != "":
			err = fmt.Errorf("the server %s while %s (%v)", exit, what, err)
		case timedOut:
			err = fmt.Errorf("no answer to %s within %s; the process was stopped", strings.Replace(what, "connecting", "initialize", 1), s.m.opts.StartTimeout)
		default:
			err = fmt.Errorf("%s: %w", what, err)
		}
		if tail != "" {
			err = fmt.Errorf("%w; its stderr ends with: %s", err, tail)
		}
		return err
	}
	if timedOut {
		return fmt.Errorf("no answer from %s within %s", s.cfg.URL, s.m.opts.StartTimeout)
	}
	return fmt.Errorf("%s %s: %w", what, s.cfg.URL, err)
}

// list fetches every page of the server's tools and converts them; tools
// that cannot be offered are reported in skipped.
func (s *server) list(ctx context.Context, cs *sdk.ClientSession) (tools []*tool.Tool, skipped []string, raw []*sdk.Tool, err error) {
	seen := map[string]string{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, nil, err
		}
		raw = append(raw, t)
		rt, cerr := s.convert(t)
		if cerr != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", t.Name, cerr))
			continue
		}
		if other, dup := seen[rt.Name]; dup {
			skipped = append(skipped, fmt.Sprintf("%s: its name %s is taken by the server's tool %s", t.Name, rt.Name, other))
			continue
		}
		seen[rt.Name] = t.Name
		tools = append(tools, rt)
	}
	return tools, skipped, raw, nil
}

// refresh lists the tools again after a tools/list_changed notification.
func (s *server) refresh() {
	s.mu.Lock()
	cs, gen := s.sess, s.gen
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.life, s.m.opts.StartTimeout)
	defer cancel()
	tools, skipped, raw, err := s.list(ctx, cs)
	if err != nil {
		return
	}
	s.remember(raw)
	s.mu.Lock()
	if s.gen != gen || s.state != StateReady {
		s.mu.Unlock()
		return
	}
	s.tools, s.skipped = tools, skipped
	s.mu.Unlock()
	s.m.changed()
}

// lost handles the end of connection gen: a crash is restarted once.
func (s *server) lost(gen int, cause error) {
	s.mu.Lock()
	proc := s.proc
	if s.gen != gen || s.state != StateReady {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	why := "the connection closed"
	if proc != nil {
		select {
		case <-proc.done:
		case <-time.After(200 * time.Millisecond):
		}
		if t := proc.exitText(); t != "" {
			why = "the server " + t
		}
	} else if cause != nil {
		why = cause.Error()
	}
	s.mu.Lock()
	if s.gen != gen || s.state != StateReady {
		s.mu.Unlock()
		return
	}
	old := s.sess
	s.sess, s.proc, s.tools = nil, nil, nil
	if old != nil {
		defer s.closeSession(old)
	}
	if s.restarts >= 1 {
		s.state, s.err = StateFailed, fmt.Errorf("%s again after a restart; it is not restarted a second time", why)
		s.mu.Unlock()
		if proc != nil {
			proc.stopNow()
		}
		s.m.changed()
		return
	}
	s.restarts++
	s.state, s.err = StateRestarting, errors.New(why)
	s.mu.Unlock()
	if proc != nil {
		proc.stopNow()
	}
	s.m.changed()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.connect(s.m.life)
		s.mu.Lock()
		if err != nil && s.state == StateRestarting {
			s.state, s.err = StateFailed, fmt.Errorf("%s, and the restart failed: %v", why, err)
		}
		s.mu.Unlock()
		s.m.changed()
	}()
}

// call runs one tool of the server.
func (s *server) call(ctx context.Context, name string, args json.RawMessage) tool.Result {
	s.mu.Lock()
	cs, gen, state, serr := s.sess, s.gen, s.state, s.err
	s.mu.Unlock()
	if state == StateStarting {
		// A remembered tool called before its server is ready.
		select {
		case <-s.started:
		case <-ctx.Done():
			return tool.Errorf("MCP server %s was still starting when the call to %s was stopped.", s.name, name)
		}
		s.mu.Lock()
		cs, gen, state, serr = s.sess, s.gen, s.state, s.err
		s.mu.Unlock()
	}
	if state != StateReady || cs == nil {
		return s.unavailable(name, state, serr)
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if meta := s.m.opts.Meta; meta != nil {
		if m := meta(ctx); len(m) > 0 {
			params.Meta = m
		}
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("The call to %s on MCP server %s was stopped before it answered.", name, s.name)
		}
		var wire *jsonrpc.Error
		// -32005 is the SDK's own "rejected by transport": the request
		// never reached the server.
		if errors.As(err, &wire) && wire.Code != -32005 {
			return tool.Errorf("MCP server %s rejected the call to %s: %v", s.name, name, err)
		}
		if s.transport() == "http" || s.closedSince(gen) {
			s.lost(gen, err)
			return tool.Errorf("MCP server %s stopped while running %s (%v). rein restarts a crashed server once: retry the call in a moment, or continue without this server's tools.", s.name, name, err)
		}
		return tool.Errorf("MCP server %s failed to answer the call to %s: %v", s.name, name, err)
	}
	return result(s.name, name, res)
}

// closedSince reports whether connection gen has ended: replaced, its
// process exited (waiting a moment for the exit to be seen) or, over
// HTTP, its session gone.
func (s *server) closedSince(gen int) bool {
	s.mu.Lock()
	cur, proc, cs := s.gen, s.proc, s.sess
	s.mu.Unlock()
	if cur != gen {
		return true
	}
	if proc != nil {
		select {
		case <-proc.done:
			return true
		case <-time.After(500 * time.Millisecond):
			return false
		}
	}
	return cs == nil
}

func (s *server) unavailable(name string, state State, err error) tool.Result {
	switch state {
	case StateRestarting:
		return tool.Errorf("MCP server %s is restarting after it stopped (%v); %s is not available yet. Retry in a moment or use another tool.", s.name, err, name)
	case StateStarting:
		return tool.Errorf("MCP server %s is still starting; %s is not available yet. Retry in a moment or use another tool.", s.name, name)
	case StateFailed:
		return tool.Errorf("MCP server %s is not running (%v); its tools, %s among them, cannot be used in this session.", s.name, err, name)
	}
	return tool.Errorf("MCP server %s is %s; %s cannot be used.", s.name, state, name)
}

// stop ends the session and the process.
func (s *server) stop() {
	s.mu.Lock()
	cs, proc := s.sess, s.proc
	s.sess, s.proc, s.tools = nil, nil, nil
	if s.state != StateDisabled {
		s.state = StateStopped
	}
	s.gen++
	s.mu.Unlock()
	if cs != nil {
		s.closeSession(cs)
	}
	if proc != nil {
		proc.stop(s.m.opts.StopGrace)
	}
}

// closeSession closes a session, waiting at most the stop grace.
func (s *server) closeSession(cs *sdk.ClientSession) {
	done := make(chan struct{})
	go func() {
		cs.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(s.m.opts.StopGrace):
	}
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return base.RoundTrip(req)
}
