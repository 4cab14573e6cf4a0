package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// Errors of Listen about the Unix socket path, wrapped with the path.
var (
	// ErrNotSocket: the path exists and is something else; it is left
	// alone.
	ErrNotSocket = errors.New("exists and is not a socket")
	// ErrSocketBusy: another server answers on the socket.
	ErrSocketBusy = errors.New("another server listens on it")
)

// Listen opens the listener Serve takes: TCP on addr, or, when socket
// is set, a Unix socket at that path with mode 0600. A socket file no
// server answers on (left by an earlier server) is replaced; a path
// that is not a socket, or one another server answers on, is refused
// with ErrNotSocket or ErrSocketBusy. where names the listener for
// people: "http://HOST:PORT" or "unix:PATH".
func Listen(addr, socket string) (ln net.Listener, where string, err error) {
	if socket == "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, "", err
		}
		return ln, "http://" + ln.Addr().String(), nil
	}
	if fi, err := os.Lstat(socket); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, "", fmt.Errorf("%s %w", socket, ErrNotSocket)
		}
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			return nil, "", fmt.Errorf("%s: %w", socket, ErrSocketBusy)
		}
		os.Remove(socket)
	}
	ln, err = net.Listen("unix", socket)
	if err != nil {
		return nil, "", err
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return nil, "", err
	}
	return ln, "unix:" + socket, nil
}

// Serve serves s's API on ln until ctx ends or serving fails. Then it
// closes s first (every run aborted, every session log closed
// well-formed, every event stream ended), then shuts the HTTP server
// down, giving open connections up to five seconds, and removes a Unix
// socket file. It returns serving's error, else Close's.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
	}
	// Runs first (their streams end with them), then the connections.
	cerr := s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	if a, ok := ln.Addr().(*net.UnixAddr); ok {
		os.Remove(a.Name)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return cerr
}
