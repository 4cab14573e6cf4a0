package coding

import (
	"context"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm/faux"
)

// Open says once, in one line, what the Claude Code setup holds that rein
// does not honour, naming file and key; the hook events and types it
// names are not said again as warnings. The terminal UI gets it only
// through StartupNotice. A setup rein honours whole says nothing.
func TestStartupNotice(t *testing.T) {
	e := newTestEnv(t)
	write(t, e.home, map[string]string{".claude/settings.json": `{"statusLine": {"type": "command", "command": "x"},
		"hooks": {"Setup": [{"hooks": [{"type": "command", "command": "true"}]}],
			"Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1"}]}]}}`})
	ws := t.TempDir()
	a, err := Open(context.Background(), e.options(ws, faux.Text("ok")))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	warns := strings.Join(e.warnings(), "\n")
	if strings.Count(warns, "does not honour") != 1 || strings.Count(warns, "hooks.Setup") != 1 || strings.Count(warns, `"http"`) != 1 {
		t.Fatalf("want one notice naming each thing once; warnings:\n%s", warns)
	}
	for _, part := range []string{"~/.claude/settings.json: ", "statusLine (", "hooks.Setup (", "hooks.Stop[0].hooks[0] ("} {
		if !strings.Contains(warns, part) {
			t.Errorf("the notice lacks %q:\n%s", part, warns)
		}
	}
	if a.StartupNotice() == "" || !strings.Contains(warns, a.StartupNotice()) {
		t.Errorf("StartupNotice %q", a.StartupNotice())
	}

	tui := newTestEnv(t)
	tui.home = e.home
	tui.vars["HOME"] = e.home
	o := tui.options(ws, faux.Text("ok"))
	o.Frontend = "tui"
	b, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if w := strings.Join(tui.warnings(), "\n"); strings.Contains(w, "does not honour") || !strings.Contains(b.StartupNotice(), "statusLine") {
		t.Errorf("tui: warnings %q, StartupNotice %q", w, b.StartupNotice())
	}

	clean := newTestEnv(t)
	write(t, clean.home, map[string]string{".claude/settings.json": `{"env": {"A": "1"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	c, err := Open(context.Background(), clean.options(t.TempDir(), faux.Text("ok")))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if w := clean.warnings(); len(w) != 0 || c.StartupNotice() != "" {
		t.Errorf("an honoured setup: warnings %q, notice %q", w, c.StartupNotice())
	}
}
