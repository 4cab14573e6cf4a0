package coding

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

// A copy made for another front-end (the server's and rpc's fork) is
// masked like everything else the agent writes, even when its source
// holds an unmasked secret (a file from an older build, or an import),
// and the agent stays on its own session.
func TestForkCopyMasksAndLeavesTheAgent(t *testing.T) {
	const secret = "zq-forkcopy-4f9a1c77e2b8d3"
	dir := t.TempDir()
	src, err := session.Create(session.Options{Cwd: dir, Dir: filepath.Join(dir, "sessions")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.AppendMessage(llm.UserText("the token is " + secret)); err != nil {
		t.Fatal(err)
	}
	path := src.Path()
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	e := newTestEnv(t)
	o := e.options(dir, faux.Text("ok"))
	o.Session, o.Redactor = path, redact.New(secret)
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	copied, err := a.ForkCopy("")
	if err != nil {
		t.Fatal(err)
	}
	if copied == path || a.Session().Path() != path {
		t.Fatalf("copy %s, agent on %s: want a new file and the agent left on %s", copied, a.Session().Path(), path)
	}
	b, err := os.ReadFile(copied)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte(redact.Mask)) {
		t.Fatalf("the copy is not masked:\n%s", b)
	}
	if _, err := a.ForkCopy("no-such-entry"); err == nil {
		t.Fatal("a copy at an unknown entry should fail")
	}
}
