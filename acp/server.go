package acp

import (
	"context"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/permission"
)

// Options configure Serve.
type Options struct {
	// Agent holds the options every session's agent opens with. Serve
	// sets Workdir (the session's cwd), Session (a loaded session's log),
	// Interactive (true: the client answers approvals), MCPServers (the
	// client's) and Frontend ("acp" when empty); the rest is used as given.
	Agent coding.Options
	// Open opens an agent; nil means coding.Open. Tests and embedders
	// use it to wrap or count agents.
	Open func(ctx context.Context, o coding.Options) (*coding.Agent, error)
	// PermissionTimeout bounds the wait for the client's answer to a
	// permission request; the call is denied when it passes. Zero means
	// permission.DefaultTimeout.
	PermissionTimeout time.Duration
	// Version is the agent version told to clients; "" means "dev".
	Version string
}

// MaxLine bounds one JSON-RPC message, as the SDK's reader does.
const MaxLine = 10 << 20

// Serve speaks ACP on in and out until the client closes in or ctx ends,
// then closes every session (aborting running prompts, so no run is left
// holding a lane or a lock) and returns. A client closing its end is not
// an error. Serve is safe to run several times at once on different
// streams.
func Serve(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s := newServer(o)
	w := &lockedWriter{w: out}
	r := newLineFilter(in, w)
	conn := sdk.NewAgentSideConnection(s, w, r)
	s.conn = conn
	r.start()
	select {
	case <-ctx.Done():
	case <-conn.Done():
	}
	r.Close()
	s.closeAll()
	return nil
}

// server is the sdk.Agent of one connection.
type server struct {
	o    Options
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[string]*acpSession
	closed   bool
}

func newServer(o Options) *server {
	if o.Open == nil {
		o.Open = coding.Open
	}
	if o.PermissionTimeout == 0 {
		o.PermissionTimeout = permission.DefaultTimeout
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Agent.Frontend == "" {
		o.Agent.Frontend = "acp"
	}
	return &server{o: o, sessions: map[string]*acpSession{}}
}

// Initialize implements sdk.Agent: protocol version 1 and what rein
// offers.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "rein", Title: sdk.Ptr("rein"), Version: s.o.Version},
		AuthMethods:     []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
			},
		},
	}, nil
}

// Authenticate implements sdk.Agent: rein needs no ACP authentication
// (model keys come from its config and environment).
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// Logout implements sdk.Agent; there is nothing to forget.
func (s *server) Logout(context.Context, sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	return sdk.LogoutResponse{}, nil
}

// clientFS reports which fs methods the client offered.
func (s *server) clientFS() sdk.FileSystemCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.Fs
}

// session returns the open session id, or an invalid-params error that
// names it.
func (s *server) session(id sdk.SessionId) (*acpSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[string(id)]; ok {
		return ss, nil
	}
	return nil, sdk.NewInvalidParams(map[string]any{"sessionId": string(id), "error": "no open session has this id: create one with session/new or open it with session/load"})
}

// closeAll closes every session; later session/new calls fail.
func (s *server) closeAll() {
	s.mu.Lock()
	s.closed = true
	all := make([]*acpSession, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.sessions = map[string]*acpSession{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range all {
		wg.Go(func() { ss.close() })
	}
	wg.Wait()
}

// lockedWriter serialises whole writes, so the parse errors the line
// filter answers never interleave with the SDK's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
