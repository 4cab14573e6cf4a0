package coding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// lastToolResult is the text of the last tool result the model was sent.
func lastToolResult(t *testing.T, p *faux.Provider) string {
	t.Helper()
	reqs := p.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		msgs := reqs[i].Messages
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == llm.RoleToolResult {
				return msgs[j].Text()
			}
		}
	}
	t.Fatal("no tool result reached the model")
	return ""
}

// What SessionStart hooks export through CLAUDE_ENV_FILE reaches every
// later bash command of the session: a malformed line is a note naming
// file and line while the other lines apply, a secret-looking name is
// held back with a note, the files live beside the session's log, a new
// session (/clear) starts without them and resuming the session brings
// them back.
func TestSessionStartEnvReachesBash(t *testing.T) {
	e := newTestEnv(t)
	write(t, e.home, map[string]string{".claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [
		{"type": "command", "command": "grep -q startup && printf 'export GREETING=hello FROM_HOME=\"$HOME/x\"\\nexport BROKEN=$(id)\\nexport DEPLOY_TOKEN=abcdefgh12345678\\n' >> \"$CLAUDE_ENV_FILE\"; exit 0"}]}]}}`})
	ws := t.TempDir()
	echo := faux.Calls("", faux.Call("bash", `{"command": "echo \"[$GREETING] [$FROM_HOME] [$BROKEN] [$DEPLOY_TOKEN]\""}`))
	o := e.options(ws, echo, faux.Text("done"), echo, faux.Text("done"), echo, faux.Text("done"))
	o.PermissionMode = "auto_all"
	a, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	p := o.Provider.(*faux.Provider)
	if _, err := a.Submit(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	want := "[hello] [" + e.home + "/x] [] []"
	if got := lastToolResult(t, p); !strings.Contains(got, want) {
		t.Errorf("bash printed %q, want %q", got, want)
	}
	first := a.Session()
	dir := filepath.Join(filepath.Dir(first.Path()), "env", first.ID())
	if _, err := os.Stat(filepath.Join(dir, "sessionstart-hook-0.sh")); err != nil {
		t.Errorf("the env file is not beside the session: %v", err)
	}
	warns := strings.Join(e.warnings(), "\n")
	for _, w := range []string{"sessionstart-hook-0.sh:2: a shell command", "DEPLOY_TOKEN, held back from bash"} {
		if strings.Count(warns, w) != 1 {
			t.Errorf("want one warning with %q, got:\n%s", w, warns)
		}
	}

	runLine(t, a, "/clear")
	if _, err := a.Submit(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if got := lastToolResult(t, p); !strings.Contains(got, "[] [] [] []") {
		t.Errorf("after /clear bash printed %q", got)
	}
	path := first.Path()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	o.Provider = p
	o.Session = path
	b, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Submit(context.Background(), "resumed"); err != nil {
		t.Fatal(err)
	}
	if got := lastToolResult(t, p); !strings.Contains(got, want) {
		t.Errorf("after resume bash printed %q, want %q", got, want)
	}
}
