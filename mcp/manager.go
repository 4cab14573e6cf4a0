package mcp

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/reinhq/rein/tool"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultStopGrace    = 2 * time.Second
	DefaultMaxMessage   = 64 << 20
)

// Options configure a Manager.
type Options struct {
	// Workdir is where stdio servers run unless their config sets cwd.
	Workdir string
	// LogDir holds one <server>.log per stdio server with its standard
	// error; empty means Workdir/.rein/mcp, and no logs without a Workdir.
	LogDir string
	// BaseEnv is the environment of stdio servers before their own env
	// entries; nil means os.Environ().
	BaseEnv []string
	// Getenv expands ${VAR} in the config; nil means os.Getenv.
	Getenv func(string) string
	// StartTimeout bounds a server's start: process launch, initialize
	// and the tool list. Zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// Wait bounds how long Start waits for the servers; a server not
	// ready by then goes on starting and its tools arrive through
	// OnChange. Zero means StartTimeout plus a second.
	Wait time.Duration
	// StopGrace is how long a server has to exit after its input closes
	// before its process group is killed; zero means DefaultStopGrace.
	StopGrace time.Duration
	// MaxMessage caps one message from a stdio server, in bytes; zero
	// means DefaultMaxMessage.
	MaxMessage int
	// HTTPClient sends the requests of http servers; nil means
	// http.DefaultClient. Its Transport is wrapped to add the headers.
	HTTPClient *http.Client
	// Wrap, when set, may replace each stdio command before it starts.
	Wrap CommandWrapper
	// OnChange is called, from any goroutine, when the tools of a server
	// change: it became ready late, it sent tools/list_changed, it
	// crashed or restarted. Call Tools or Registry for the new list. It
	// must not block.
	OnChange func()
	// Version is rein's version, sent in initialize.
	Version string
	// Meta, when set, returns entries for the _meta object of a tool
	// call made with ctx (the W3C traceparent and tracestate of the
	// caller's span); nil or an empty map adds none.
	Meta func(ctx context.Context) map[string]any
	// NoToolCache turns off remembering each server's tools in LogDir
	// (<server>.tools.json). With the cache, Start does not wait for a
	// server whose tools it remembers from an earlier start: they are
	// offered at once and a call waits for the server.
	NoToolCache bool
}

// Manager runs the MCP servers of a config and offers their tools. It is
// safe for concurrent use. Close stops every server.
type Manager struct {
	opts    Options
	getenv  func(string) string
	servers []*server
	life    context.Context
	cancel  context.CancelFunc
	once    sync.Once
	started bool
	mu      sync.Mutex
	// dial, set by tests, connects every server in process.
	dial func(server string) sdk.Transport
}

// New returns a manager for the servers of cfg; nothing starts until
// Start.
func New(cfg *Config, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Wait <= 0 {
		opts.Wait = opts.StartTimeout + time.Second
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	if opts.MaxMessage == 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.LogDir == "" && opts.Workdir != "" {
		opts.LogDir = filepath.Join(opts.Workdir, ".rein", "mcp")
	}
	m := &Manager{opts: opts, getenv: opts.Getenv}
	if m.getenv == nil {
		m.getenv = os.Getenv
	}
	m.life, m.cancel = context.WithCancel(context.Background())
	if cfg != nil {
		for _, name := range cfg.Names() {
			sc := cfg.Servers[name]
			s := &server{m: m, name: name, cfg: sc, state: StateStarting, started: make(chan struct{})}
			if sc.Disabled {
				s.state = StateDisabled
				close(s.started)
			}
			m.servers = append(m.servers, s)
		}
	}
	return m
}

// Start starts every enabled server in parallel and waits until each is
// ready or failed, or until Options.Wait has passed, or ctx is done.
// Servers still starting then go on in the background. Start returns
// at once when called again.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return
	}
	m.started = true
	m.mu.Unlock()
	var wait []*server
	for _, s := range m.servers {
		if s.state == StateDisabled {
			continue
		}
		if cached := s.recall(); cached != nil {
			s.mu.Lock()
			s.cached = cached
			s.mu.Unlock()
		} else {
			wait = append(wait, s)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.run(m.life)
		}()
	}
	timer := time.NewTimer(m.opts.Wait)
	defer timer.Stop()
	for _, s := range wait {
		select {
		case <-s.started:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// WaitStarted waits until the first start of every enabled server has
// ended, remembered ones included, or until Options.Wait has passed or
// ctx is done. Call it after Start.
func (m *Manager) WaitStarted(ctx context.Context) {
	timer := time.NewTimer(m.opts.Wait)
	defer timer.Stop()
	for _, s := range m.servers {
		select {
		case <-s.started:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// LogPath returns the file holding the standard error of a stdio server,
// or "" when logs are off.
func (m *Manager) LogPath(server string) string {
	if m.opts.LogDir == "" {
		return ""
	}
	return filepath.Join(m.opts.LogDir, server+".log")
}

// logTail returns the last non-empty lines of a server's log, shortened.
func (m *Manager) logTail(server string) string {
	p := m.LogPath(server)
	if p == "" {
		return ""
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	if i := strings.LastIndex(string(data), "\n--- "); i >= 0 {
		if j := strings.IndexByte(string(data[i+1:]), '\n'); j >= 0 {
			data = data[i+1+j+1:]
		}
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--- ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	s := strings.Join(lines, " | ")
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

// Tools returns the tools of the ready servers, by server name then in
// the order each server lists them.
func (m *Manager) Tools() []*tool.Tool {
	var out []*tool.Tool
	for _, s := range m.servers {
		out = append(out, s.offered()...)
	}
	return out
}

// Registry returns base with the tools of the ready servers added. An MCP
// tool whose name a base tool already has is left out (and listed by
// Status).
func (m *Manager) Registry(base *tool.Registry) (*tool.Registry, error) {
	tools := slices.Clone(base.Tools())
	taken := map[string]bool{}
	for _, t := range tools {
		taken[t.Name] = true
	}
	for _, s := range m.servers {
		offered := s.offered()
		s.mu.Lock()
		if len(offered) > 0 {
			keep := offered[:0:0]
			for _, t := range offered {
				if taken[t.Name] {
					s.skipped = appendOnce(s.skipped, t.Name+": a builtin tool has this name")
					continue
				}
				taken[t.Name] = true
				keep = append(keep, t)
			}
			tools = append(tools, keep...)
		}
		s.mu.Unlock()
	}
	return tool.NewRegistry(tools...)
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Status describes one server for rein mcp list.
type Status struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     State    `json:"state"`
	Error     string   `json:"error,omitempty"`
	Server    string   `json:"server,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Skipped   []string `json:"skipped,omitempty"`
	Restarts  int      `json:"restarts,omitempty"`
	// Remembered marks a server still starting whose tools, remembered
	// from its last start, are offered meanwhile.
	Remembered bool   `json:"remembered,omitempty"`
	Log        string `json:"log,omitempty"`
	// Target is the command line or the URL (headers are never shown).
	Target string `json:"target"`
}

// Status reports every configured server, by name. A server still
// starting after Options.Wait says so in Error.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		s.mu.Lock()
		st := Status{Name: s.name, Transport: s.transport(), State: s.state, Server: s.info,
			Skipped: slices.Clone(s.skipped), Restarts: s.restarts}
		if s.err != nil {
			st.Error = s.err.Error()
		}
		switch {
		case st.State == StateStarting && s.cached != nil:
			st.Remembered = true
			st.Error = "still starting; its tools from the last start are offered meanwhile"
		case st.State == StateStarting && m.started:
			st.Error = "not ready after " + m.opts.Wait.String() + "; still starting (its tools join when it is ready)"
		}
		tools := s.tools
		if st.State == StateStarting {
			tools = s.cached
		}
		for _, t := range tools {
			st.Tools = append(st.Tools, t.Name)
		}
		if st.Transport == "stdio" {
			st.Target = strings.TrimSpace(s.cfg.Command + " " + strings.Join(s.cfg.Args, " "))
			if lp := m.LogPath(s.name); lp != "" {
				if _, err := os.Stat(lp); err == nil {
					st.Log = lp
				}
			}
		} else {
			st.Target = s.cfg.URL
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Close stops every server: sessions are closed, stdio processes get
// Options.StopGrace to exit before their process group is killed. It
// waits for the manager's goroutines.
func (m *Manager) Close() error {
	m.once.Do(func() {
		m.cancel()
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.stop()
			}()
		}
		wg.Wait()
		for _, s := range m.servers {
			s.wg.Wait()
			// A restart that raced with stop may have started a process.
			s.stop()
		}
	})
	return nil
}

// offered returns the tools the server offers now: its live list when
// ready, the remembered one while it starts.
func (s *server) offered() []*tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateReady:
		return s.tools
	case StateStarting:
		return s.cached
	}
	return nil
}
