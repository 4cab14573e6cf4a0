package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/server"
	"github.com/spf13/cobra"
)

// serveOptions are rein serve's own flags.
type serveOptions struct {
	listen, socket, tokenFile string
	origins                   []string
	approvalTimeout           time.Duration
	maxBody                   int64
	maxSessions, maxQueue     int
}

func newServeCmd(e *env) *cobra.Command {
	o := &runOptions{}
	so := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve sessions over HTTP with a server-sent event stream, for web and other front-ends",
		Long: `Serve rein's HTTP+SSE API: clients open sessions, send prompts (answered 202
at once, queued while the session is busy), watch each session's events as a
server-sent event stream that resumes exactly with Last-Event-ID, and answer
approval requests. Runs belong to the server: a client that disconnects stops
nothing. GET /openapi.json describes the routes; docs/server.md the rest.

The server listens on 127.0.0.1 unless given a token (REIN_SERVER_TOKEN or
--token-file); with a token every request needs "Authorization: Bearer TOKEN".
Requests from web pages (an Origin header) are refused unless --allow-origin
names the origin. --socket serves on a Unix socket (mode 0600) instead.`,
		Example: `  rein serve --model sonnet
  REIN_SERVER_TOKEN=$(openssl rand -hex 16) rein serve --listen 0.0.0.0:8765
  rein serve --socket /run/user/1000/rein.sock --allow-origin http://localhost:5173`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve(cmd.Context(), e, o, so)
		},
	}
	addRunFlags(cmd, o)
	f := cmd.Flags()
	f.StringVar(&so.listen, "listen", "127.0.0.1:8765", "address to listen on; off loopback a token is required")
	f.StringVar(&so.socket, "socket", "", "serve on this Unix socket instead of TCP (created with mode 0600)")
	f.StringVar(&so.tokenFile, "token-file", "", "file holding the bearer token (else REIN_SERVER_TOKEN)")
	f.StringSliceVar(&so.origins, "allow-origin", nil, "origins (scheme://host:port) whose browser requests are served; * for any")
	f.DurationVar(&so.approvalTimeout, "approval-timeout", 5*time.Minute, "deny an approval request no client answers within this time")
	f.Int64Var(&so.maxBody, "max-body", 1<<20, "largest request body, in bytes")
	f.IntVar(&so.maxSessions, "max-sessions", 10000, "most sessions open at once")
	f.IntVar(&so.maxQueue, "max-queue", 64, "most prompts waiting in one session")
	return cmd
}

// serve runs the server until ctx ends (Ctrl-C): then every run is
// aborted and every session log closed well-formed.
func serve(ctx context.Context, e *env, o *runOptions, so *serveOptions) error {
	if err := o.check(); err != nil {
		return &exitError{code: 2, err: err}
	}
	token, err := server.Token(e.getenv, so.tokenFile)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if so.socket == "" {
		if err := server.CheckListen(so.listen, token); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	workdir, err := coding.WorkspaceDir(o.workdir)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	o.answerable, o.frontend = true, "http"
	srv, err := server.New(server.Options{
		Open:            serveOpener(e, o),
		Workdir:         workdir,
		Token:           token,
		AllowOrigins:    so.origins,
		LoopbackOnly:    so.socket == "",
		MaxBodyBytes:    so.maxBody,
		MaxSessions:     so.maxSessions,
		MaxQueue:        so.maxQueue,
		ApprovalTimeout: so.approvalTimeout,
		Redactor:        redactor(),
	})
	if err != nil {
		return err
	}
	ln, where, err := server.Listen(so.listen, so.socket)
	if errors.Is(err, server.ErrNotSocket) || errors.Is(err, server.ErrSocketBusy) {
		err = fmt.Errorf("--socket %w", err)
	}
	if err != nil {
		srv.Close()
		return &exitError{code: 2, err: err}
	}
	fmt.Fprintf(e.stderr, "rein serve: listening on %s (%s); GET /openapi.json lists the routes\n", where, server.Access(token, so.socket != ""))
	return srv.Serve(ctx, ln)
}

// serveOpener opens each session's agent from the flags, with the
// session's own model and permission mode when the client names them.
func serveOpener(e *env, o *runOptions) server.Opener {
	return func(ctx context.Context, r server.OpenRequest) (*coding.Agent, error) {
		oo := *o
		if r.Model != "" {
			oo.model, oo.script = r.Model, ""
		}
		if r.PermissionMode != "" {
			oo.permissionMode = r.PermissionMode
		}
		co, err := oo.options(e, r.Session, false)
		if err != nil {
			return nil, err
		}
		// Clients answer approvals as a user at a terminal would: the
		// default mode is auto_read, and no trust question is asked on
		// the server's terminal (untrusted workspace content is ignored,
		// with a warning).
		co.Terminal, co.ConfirmTrust = true, nil
		return coding.Open(ctx, co)
	}
}
