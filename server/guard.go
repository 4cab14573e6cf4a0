package server

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// guard wraps h with the server's security and limits, in this order:
// a request with an Origin that is not allowed is refused (403) before
// anything else, so a web page can never drive the server; CORS
// preflights of allowed origins are answered; a loopback-only server
// refuses a Host that is not a loopback name (421); the bearer token is
// checked (401); the body is capped at MaxBodyBytes.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			if !s.originAllowed(origin) {
				writeError(w, &apiError{Status: http.StatusForbidden, Code: "origin_not_allowed", Message: fmt.Sprintf("requests from origin %q are not allowed: start rein serve with --allow-origin %s to allow it", origin, origin)})
				return
			}
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				hd.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
				hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
				hd.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if s.o.LoopbackOnly && s.o.Token == "" && !loopbackHost(r.Host) && !unixRequest(r) {
			writeError(w, &apiError{Status: http.StatusMisdirectedRequest, Code: "host_not_allowed", Message: fmt.Sprintf("host %q is not a loopback name: use 127.0.0.1, [::1] or localhost, or start rein serve with a token", r.Host)})
			return
		}
		if s.o.Token != "" && r.URL.Path != "/v1/health" && !s.tokenOK(r) {
			writeError(w, &apiError{Status: http.StatusUnauthorized, Code: "unauthorized", Message: "a valid bearer token is required: send Authorization: Bearer TOKEN"})
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.o.MaxBodyBytes)
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) originAllowed(origin string) bool {
	return slices.Contains(s.o.AllowOrigins, "*") || slices.Contains(s.o.AllowOrigins, strings.TrimSuffix(origin, "/"))
}

func (s *Server) tokenOK(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.o.Token)) == 1
}

// loopbackHost reports whether a Host header names this machine's
// loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// unixRequest reports whether r came over a Unix socket, where the
// socket file's permissions decide who may connect.
func unixRequest(r *http.Request) bool {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addr != nil && addr.Network() == "unix"
}

// CheckListen refuses to serve on an address off the loopback interface
// without a token: anyone who can reach it could run commands.
func CheckListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (use host:port, e.g. 127.0.0.1:8765)", addr, err)
	}
	if token != "" {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("listening on %q off the loopback interface needs a token: set REIN_SERVER_TOKEN or pass --token-file", addr)
	}
	return nil
}
