package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/mcp"
	"github.com/reinhq/rein/session"
)

// acpSession is one ACP session: a coding.Agent and what the connection
// keeps beside it.
type acpSession struct {
	id    string
	cwd   string
	srv   *server
	agent *coding.Agent
	unsub func()

	// run is held by the prompt that runs; a second prompt waits for
	// it (the SDK cancels the first when a second arrives).
	run sync.Mutex

	mu       sync.Mutex
	calls    map[string]*callState         // tool calls of the running prompt
	asks     map[string]context.CancelFunc // permission requests in flight
	stream   context.Context               // the running prompt's context, for updates
	closing  bool
	lastPlan string  // the plan last sent, rendered
	cost     float64 // dollars spent by the session's prompts on this connection
}

// open opens an agent for the client's request and registers it; path
// is the session log to continue ("" for a new one).
func (s *server) open(ctx context.Context, cwd, path string, servers []sdk.McpServer) (*acpSession, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"cwd": cwd, "error": "cwd must be an absolute path"})
	}
	mcps, err := mcpServers(servers)
	if err != nil {
		return nil, err
	}
	o := s.o.Agent
	o.Workdir = cwd
	o.Session = path
	o.NoSession = false
	o.Interactive = true
	// Someone answers in the editor, as on a terminal: without a mode
	// from the options or the settings, reads run and the rest asks.
	o.Terminal = true
	if len(mcps) > 0 {
		merged := make(map[string]mcp.ServerConfig, len(o.MCPServers)+len(mcps))
		for k, v := range o.MCPServers {
			merged[k] = v
		}
		for k, v := range mcps {
			merged[k] = v
		}
		o.MCPServers = merged
	}
	ss := &acpSession{cwd: cwd, srv: s, calls: map[string]*callState{}, asks: map[string]context.CancelFunc{}}
	fsc := s.clientFS()
	if fsc.ReadTextFile || fsc.WriteTextFile {
		o.Files = &clientFiles{ss: ss, read: fsc.ReadTextFile, write: fsc.WriteTextFile}
	}
	a, err := s.o.Open(ctx, o)
	if err != nil {
		return nil, openError(err)
	}
	sess := a.Session()
	if sess == nil {
		a.Close()
		return nil, sdk.NewInternalError(map[string]any{"error": "the agent has no session log; ACP sessions need one"})
	}
	ss.id, ss.agent = sess.ID(), a
	ss.unsub = a.Subscribe(ss.onEvent)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return nil, sdk.NewInternalError(map[string]any{"error": "the connection is closing"})
	}
	if old, ok := s.sessions[ss.id]; ok {
		s.mu.Unlock()
		ss.close()
		_ = old
		return nil, sdk.NewInvalidRequest(map[string]any{"sessionId": ss.id, "error": "the session is already open on this connection"})
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// openError turns coding.Open's failures into JSON-RPC errors that keep
// their message.
func openError(err error) error {
	var we *coding.WorkspaceError
	var ce *coding.ConfigError
	var le *session.LockedError
	switch {
	case errors.As(err, &we), errors.As(err, &ce), errors.Is(err, coding.ErrNoModel):
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	case errors.As(err, &le):
		return sdk.NewInvalidRequest(map[string]any{"error": err.Error()})
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}

// NewSession implements sdk.Agent.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	ss, err := s.open(ctx, p.Cwd, "", p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	ss.announce()
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(ss.id), Modes: ss.modes(), ConfigOptions: ss.configOptions()}, nil
}

// find returns the log file of session id in cwd's session folder.
func find(cwd, id string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", sdk.NewInvalidParams(map[string]any{"cwd": cwd, "error": "cwd must be an absolute path"})
	}
	dir := session.DefaultDir(cwd)
	in, err := session.Find(dir, id)
	if err != nil || in.ID != id {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("no session %q in %s", id, dir)
		}
		return "", sdk.NewInvalidParams(map[string]any{"sessionId": id, "error": err.Error()})
	}
	return in.Path, nil
}

// LoadSession implements sdk.AgentLoader: it opens the logged session,
// replays its active branch as session updates, and answers after the
// replay.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ss, err := s.resume(ctx, p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := ss.replay(ctx); err != nil {
		s.drop(ss)
		return sdk.LoadSessionResponse{}, sdk.NewInternalError(map[string]any{"error": "replaying the session: " + err.Error()})
	}
	ss.announce()
	return sdk.LoadSessionResponse{Modes: ss.modes(), ConfigOptions: ss.configOptions()}, nil
}

// ResumeSession implements sdk.Agent: session/load without the replay.
func (s *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	ss, err := s.resume(ctx, p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	ss.announce()
	return sdk.ResumeSessionResponse{Modes: ss.modes(), ConfigOptions: ss.configOptions()}, nil
}

func (s *server) resume(ctx context.Context, cwd, id string, servers []sdk.McpServer) (*acpSession, error) {
	if ss, err := s.session(sdk.SessionId(id)); err == nil {
		// Already open here: close it first, so the log is re-read as
		// it stands.
		s.drop(ss)
	}
	path, err := find(cwd, id)
	if err != nil {
		return nil, err
	}
	return s.open(ctx, cwd, path, servers)
}

// drop unregisters and closes a session.
func (s *server) drop(ss *acpSession) {
	s.mu.Lock()
	if s.sessions[ss.id] == ss {
		delete(s.sessions, ss.id)
	}
	s.mu.Unlock()
	ss.close()
}

// CloseSession implements sdk.Agent: it aborts the session's prompt and
// closes its agent (the log is flushed and unlocked).
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.drop(ss)
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions implements sdk.Agent: the sessions logged in cwd's
// session folder (the cwd of the first open session when the client
// names none), newest first, 100 a page.
func (s *server) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	} else {
		cwd = s.anyCwd()
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	if cwd == "" {
		return out, nil
	}
	if !filepath.IsAbs(cwd) {
		return out, sdk.NewInvalidParams(map[string]any{"cwd": cwd, "error": "cwd must be an absolute path"})
	}
	infos, err := session.List(session.DefaultDir(cwd))
	if err != nil {
		return out, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	start := 0
	if p.Cursor != nil {
		if _, err := fmt.Sscanf(*p.Cursor, "%d", &start); err != nil || start < 0 || start > len(infos) {
			return out, sdk.NewInvalidParams(map[string]any{"cursor": *p.Cursor, "error": "not a cursor this agent gave"})
		}
	}
	const page = 100
	end := min(start+page, len(infos))
	for _, in := range infos[start:end] {
		title := in.Name
		if title == "" {
			title = in.FirstMessage
		}
		info := sdk.SessionInfo{SessionId: sdk.SessionId(in.ID), Cwd: cwd, UpdatedAt: sdk.Ptr(in.Modified.UTC().Format(time.RFC3339))}
		if in.Cwd != "" {
			info.Cwd = in.Cwd
		}
		if title != "" {
			info.Title = sdk.Ptr(title)
		}
		out.Sessions = append(out.Sessions, info)
	}
	if end < len(infos) {
		out.NextCursor = sdk.Ptr(fmt.Sprint(end))
	}
	return out, nil
}

func (s *server) anyCwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		return ss.cwd
	}
	return ""
}

// close aborts the running prompt, cancels the permission requests in
// flight and closes the agent; it waits for the prompt to return.
func (ss *acpSession) close() {
	ss.mu.Lock()
	ss.closing = true
	for id, cancel := range ss.asks {
		cancel()
		delete(ss.asks, id)
	}
	ss.mu.Unlock()
	if ss.unsub != nil {
		ss.unsub()
	}
	ss.agent.Close()
}

var badName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// mcpServers turns the client's MCP servers into rein's config: stdio
// and HTTP servers; SSE servers are refused (rein does not advertise
// them), as are names that collide once made safe for tool names.
func mcpServers(in []sdk.McpServer) (map[string]mcp.ServerConfig, error) {
	out := map[string]mcp.ServerConfig{}
	add := func(name string, sc mcp.ServerConfig) error {
		n := strings.Trim(badName.ReplaceAllString(name, "_"), "_")
		if len(n) > 40 {
			n = n[:40]
		}
		if n == "" {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("MCP server name %q has no usable characters (letters, digits, _ and -)", name)})
		}
		if _, dup := out[n]; dup {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("two MCP servers are both named %q", n)})
		}
		out[n] = sc
		return nil
	}
	for _, m := range in {
		var err error
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			err = add(m.Stdio.Name, mcp.ServerConfig{Type: "stdio", Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			h := map[string]string{}
			for _, e := range m.Http.Headers {
				h[e.Name] = e.Value
			}
			err = add(m.Http.Name, mcp.ServerConfig{Type: "http", URL: m.Http.Url, Headers: h})
		case m.Sse != nil:
			err = sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("MCP server %q uses SSE, which rein does not support: use its streamable HTTP endpoint", m.Sse.Name)})
		default:
			err = sdk.NewInvalidParams(map[string]any{"error": "an MCP server of a transport rein does not support"})
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
