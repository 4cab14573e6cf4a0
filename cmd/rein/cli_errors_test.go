package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestTimeoutFlags(t *testing.T) {
	var n atomic.Int64
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	begin := time.Now()
	code, out, errOut := runCLIEnv(t, "", piped, "-p", "-m", "openai/m", "--base-url", hang.URL+"/v1", "-C", t.TempDir(), "--idle-timeout", "100ms", "--request-timeout", "3s", "hi")
	took := time.Since(begin)
	if code != 1 || out != "" || took > 20*time.Second {
		t.Fatalf("exit %d after %s, stdout %q", code, took, out)
	}
	if !strings.Contains(errOut, "retrying in") || !strings.Contains(errOut, "timeout") || !strings.Contains(errOut, "--request-timeout") || n.Load() < 2 {
		t.Fatalf("%d requests, stderr %q", n.Load(), errOut)
	}
}

func TestResumeKeepsBaseURLAndShowsConversation(t *testing.T) {
	srv := newChatServer(t, "Hello from the server.")
	dir := t.TempDir()
	code, _, errOut := runCLI(t, "", "-p", "-m", "openai/m", "--base-url", srv.URL+"/v1", "-C", dir, "first question")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLIEnv(t, "", piped, "sessions", "resume", "last", "-C", dir, "second question")
	if code != 0 || len(srv.requests()) != 2 || out != "Hello from the server.\n" {
		t.Fatalf("resume with a prompt: exit %d, %d requests, stdout %q, stderr %q", code, len(srv.requests()), out, errOut)
	}
	// Without a prompt: a chat that first shows the conversation.
	code, out, errOut = runCLI(t, "", "sessions", "resume", "last", "-C", dir)
	if code != 0 || !strings.Contains(out, "first question") || !strings.Contains(out, "second question") || !strings.Contains(out, "Hello from the server.") {
		t.Fatalf("resume without a prompt: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestChatPrintsAnErrorOnce(t *testing.T) {
	script := writeScript(t, t.TempDir(), `{"error": {"code": "server_error", "message": "the upstream is down"}}`+"\n")
	code, out, errOut := runCLI(t, "hello\n", "chat", "--plain", "-m", "faux", "--script", script, "-C", t.TempDir())
	if code != 0 || strings.Count(out+errOut, "the upstream is down") != 1 {
		t.Fatalf("exit %d, the error appears %d times:\n%s\n%s", code, strings.Count(out+errOut, "the upstream is down"), out, errOut)
	}
}

func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Fatal("/dev/null counted as a terminal: colour codes would go to it")
	}
}

func TestErrorHints(t *testing.T) {
	srv := newChatServer(t, "x")
	code, _, errOut := runCLI(t, "", "-p", "-m", "openai/m", "--base-url", srv.URL, "-C", t.TempDir(), "hi")
	if code != 1 || !strings.Contains(errOut, "hint:") || !strings.Contains(errOut, srv.URL+"/v1") {
		t.Fatalf("missing /v1: exit %d, %q", code, errOut)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".rein"), 0o755)
	os.WriteFile(filepath.Join(ws, ".rein", "config.json"), []byte(`{"failover": {"max_attempts": 2, "base_delay": "10ms"}}`), 0o644)
	code, _, errOut = runCLI(t, "", "-p", "-m", "openai/m", "--base-url", "http://"+addr+"/v1", "-C", ws, "hi")
	if code != 1 || !strings.Contains(errOut, "nothing answers at "+addr+": is the server running?") || !strings.Contains(errOut, "retrying in") {
		t.Fatalf("refused: exit %d, %q", code, errOut)
	}
}

func TestAnthropicBaseURLWithoutKeyLeavesNoCooldown(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}}`)
	}))
	defer srv.Close()
	state := t.TempDir()
	withState := func(e *env) {
		e.getenv = func(k string) string {
			if k == "XDG_STATE_HOME" {
				return state
			}
			return ""
		}
	}
	for i := 0; i < 2; i++ {
		code, _, errOut := runCLIEnv(t, "", withState, "-p", "-m", "sonnet", "--base-url", srv.URL, "-C", t.TempDir(), "hi")
		if code != 1 || !strings.Contains(errOut, "API key") {
			t.Fatalf("run %d: exit %d, %q", i, code, errOut)
		}
	}
	if n.Load() != 2 {
		t.Fatalf("%d requests: the second run was blocked by a cooldown", n.Load())
	}
	if b, err := os.ReadFile(filepath.Join(state, "rein", "cooldowns.json")); err == nil && strings.Contains(string(b), "anthropic") {
		t.Fatalf("the provider's cooldown state records the local server's refusal: %s", b)
	}
}
