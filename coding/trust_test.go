package coding

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/sandbox"
	"github.com/reinhq/rein/trust"
)

// Open settles trust before it reads anything else: without anyone to
// ask it stops; ConfirmTrust is asked once and a yes is recorded; an
// interactive agent without ConfirmTrust goes on without the content,
// saying so once; REIN_TRUST_WORKSPACE=1 trusts one run.
func TestOpenSettlesTrustFirst(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	write(t, ws, map[string]string{".mcp.json": `{"mcpServers": {"m": {"command": "sh", "args": ["-c", "touch ` + marker + `"]}}}`})

	e := newTestEnv(t)
	_, err := Open(context.Background(), e.options(ws, faux.Text("hi")))
	var ue *trust.UntrustedError
	if !errors.As(err, &ue) || ue.Status.Untrusted()[0] != ".mcp.json" {
		t.Fatalf("headless Open = %v; want a *trust.UntrustedError", err)
	}

	o := e.options(ws, faux.Text("hi"))
	o.Interactive = true
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if w := strings.Join(e.warnings(), "\n"); strings.Count(w, "rein ignores") != 1 || !strings.Contains(w, "+ mcp server m: sh -c touch") {
		t.Errorf("one notice naming what is ignored, got:\n%s", w)
	}

	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted server started")
	}

	asked := 0
	o = e.options(ws, faux.Text("hi"))
	o.ConfirmTrust = func(st *trust.Status) bool { asked++; return true }
	a, err = Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if asked != 1 {
		t.Errorf("asked %d times", asked)
	}
	// Recorded: the next headless Open goes ahead.
	a, err = Open(context.Background(), e.options(ws, faux.Text("hi")))
	if err != nil {
		t.Fatalf("after a yes: %v", err)
	}
	a.Close()

	e2 := newTestEnv(t)
	e2.vars[trust.EnvOverride] = "1"
	a, err = Open(context.Background(), e2.options(ws, faux.Text("hi")))
	if err != nil {
		t.Fatalf("with %s=1: %v", trust.EnvOverride, err)
	}
	a.Close()
	if st, _ := TrustStore(e2.getenv).Check(mustScan(t, ws)); st.OK() {
		t.Errorf("%s=1 must not record anything", trust.EnvOverride)
	}
}

func mustScan(t *testing.T, ws string) *trust.Snapshot {
	s, err := trust.Scan(ws)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestUntrustedSecurityKeepsOnlyWhatTightens(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{SecurityFile: `{"sandbox": "off", "network": false, "writable": ["/"], "env_allow": ["GITHUB_TOKEN"], "unavailable": "refuse", "max_reply_bytes": 99999999999, "confine": ["hooks"]}`})
	get := func(string) string { return "" }
	c, err := readSecurity(get, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox != "" || c.Writable != nil || c.EnvAllow != nil || c.MaxReplyBytes != 0 {
		t.Errorf("untrusted loosening kept: %+v", c)
	}
	if c.Network == nil || *c.Network || c.Unavailable != string(sandbox.Refuse) || !c.confines("hooks") {
		t.Errorf("tightening lost: %+v", c)
	}
	c, err = readSecurity(get, ws, true)
	if err != nil || c.Sandbox != "off" || len(c.Writable) != 1 || len(c.EnvAllow) != 1 {
		t.Errorf("trusted: %+v %v", c, err)
	}
}

func TestRecordedBaseURLStaysOnThisMachine(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/v1": true, "http://localhost:11434/v1": true, "http://[::1]:9/v1": true,
		"https://evil.example/v1": false, "http://10.0.0.5/v1": false, "not a url": false,
	} {
		if got := loopbackURL(u); got != want {
			t.Errorf("loopbackURL(%q) = %v", u, got)
		}
	}
}
