package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/redact"
)

// OpenRequest says which agent to open for a session.
type OpenRequest struct {
	// Session is the session log to continue (a file path); "" creates a
	// new session.
	Session string
	// Model and PermissionMode override the server's defaults when set.
	Model          string
	PermissionMode string
}

// Opener opens the agent of one session. The server calls it for every
// session it creates, resumes or forks, and closes the agent when the
// session is deleted or the server closes. The agent must be Interactive
// for approval requests to reach clients.
type Opener func(ctx context.Context, r OpenRequest) (*coding.Agent, error)

// Options configure a Server. Zero values take the defaults named.
type Options struct {
	// Open opens agents; required.
	Open Opener
	// Workdir resolves session references ("last", an id or a prefix)
	// when a client resumes a stored session.
	Workdir string
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every request but /v1/health.
	Token string
	// AllowOrigins lists the origins (scheme://host[:port]) whose
	// browser requests are served; a request with any other Origin
	// header is refused with 403. "*" allows every origin.
	AllowOrigins []string
	// LoopbackOnly refuses requests whose Host is not a loopback name
	// when no Token is set, so that a web page cannot reach the server
	// through a DNS name rebound to 127.0.0.1. The command sets it for
	// loopback listeners.
	LoopbackOnly bool

	// MaxBodyBytes bounds a request body (1 MiB).
	MaxBodyBytes int64
	// MaxSessions bounds the open sessions (10,000); MaxQueue the prompts
	// waiting in one session (64); MaxSubscribers the event streams of
	// one session (1,000). Over a bound the answer is 503 with
	// Retry-After.
	MaxSessions, MaxQueue, MaxSubscribers int
	// RingSize is how many streaming deltas a session keeps for clients
	// that reconnect (4,096); other events are kept for the session's life.
	RingSize int
	// ApprovalTimeout is how long an approval request waits for an answer
	// before it is denied (5 minutes).
	ApprovalTimeout time.Duration
	// PingInterval is the interval of SSE comments that keep idle streams
	// open (15 s); WriteTimeout bounds one write to a client (30 s), after
	// which the stream is dropped (the client resumes with Last-Event-ID).
	PingInterval, WriteTimeout time.Duration
	// Redactor masks secrets in streamed deltas; nil masks nothing more
	// than the agents' own redaction.
	Redactor *redact.Redactor
	// Logger receives the server's own log lines; nil discards them.
	Logger *slog.Logger
	// Now is the clock (time.Now); NewID makes ids for runs (random).
	Now   func() time.Time
	NewID func() string
}

func (o *Options) defaults() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10000
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = 64
	}
	if o.MaxSubscribers <= 0 {
		o.MaxSubscribers = 1000
	}
	if o.RingSize <= 0 {
		o.RingSize = 4096
	}
	if o.ApprovalTimeout <= 0 {
		o.ApprovalTimeout = 5 * time.Minute
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.Redactor == nil {
		o.Redactor = redact.New()
	}
}

// Server is rein's HTTP+SSE API over coding agents: one agent per
// session, prompts queued per session, events streamed with per-session
// sequence ids. It is safe for concurrent use. Runs belong to the server,
// not to the request that started them: a client that disconnects stops
// nothing.
type Server struct {
	o   Options
	mux *http.ServeMux
	// ctx is the context of every run; cancel ends them at Close.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	perms    *approvals
	// wg counts the run workers and approval timers.
	wg sync.WaitGroup
}

// ErrClosed is returned by calls on a closed server.
var ErrClosed = errors.New("server: closed")

// New returns a server with o's settings.
func New(o Options) (*Server, error) {
	if o.Open == nil {
		return nil, errors.New("server: Options.Open is required")
	}
	o.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{o: o, ctx: ctx, cancel: cancel, sessions: map[string]*session{}}
	s.perms = newApprovals(s)
	s.routes()
	return s, nil
}

// Handler is the server's HTTP handler, its security checks included.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// Close aborts every run, answers pending approvals with a deny, closes
// every agent (their session logs end well-formed) and ends every event
// stream. It waits for the runs to return. Close is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	s.cancel()
	var errs []error
	for _, ss := range all {
		errs = append(errs, ss.close())
	}
	s.perms.closeAll()
	s.wg.Wait()
	return errors.Join(errs...)
}

// Idle reports whether no run is running or queued in any session.
func (s *Server) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		if ss.busy() {
			return false
		}
	}
	return true
}

func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[id]; ok {
		return ss, nil
	}
	return nil, &apiError{Status: http.StatusNotFound, Code: "session_not_found", Message: fmt.Sprintf("no open session %q: GET /v1/sessions lists them; POST /v1/sessions with {\"resume\": %q} opens a stored one", id, id)}
}
