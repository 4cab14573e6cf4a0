package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

func opencodeEnv(home string) []string {
	return sandboxEnv(home, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_SHARE=1")
}

// rein → opencode → rein: opencode import accepts rein's export, opencode
// export gives back the same parts, and that export imports into rein as
// the same conversation.
func TestOpenCodeImportsExport(t *testing.T) {
	oc := program(t, "opencode")
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	env := opencodeEnv(home)
	path := sample(t)
	_, orig, _, _ := session.ReadFile(path)
	id, buf := openCodeImport(t, oc, path, home, ws, env)
	back, _ := run(t, ws, env, "", oc, "export", id)
	var mine, theirs ocExport
	if err := json.Unmarshal(buf.Bytes(), &mine); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(back), &theirs); err != nil {
		t.Fatalf("opencode export: %v\n%s", err, clipOut(back))
	}
	if len(theirs.Messages) != len(mine.Messages) {
		t.Fatalf("opencode holds %d messages, the export %d", len(theirs.Messages), len(mine.Messages))
	}
	for i := range mine.Messages {
		a, b := mine.Messages[i], theirs.Messages[i]
		if a.Info.ID != b.Info.ID || a.Info.Role != b.Info.Role || len(a.Parts) != len(b.Parts) {
			t.Fatalf("message %d: opencode %+v, exported %+v", i, b.Info, a.Info)
		}
		for j := range a.Parts {
			pa, pb := a.Parts[j], b.Parts[j]
			if pa.ID != pb.ID || pa.Type != pb.Type || pa.Text != pb.Text || pa.CallID != pb.CallID || pa.Tool != pb.Tool {
				t.Fatalf("message %d part %d: opencode %+v, exported %+v", i, j, pb, pa)
			}
			if pa.State != nil && (pb.State == nil || pa.State.Output != pb.State.Output || pa.State.Error != pb.State.Error || pa.State.Status != pb.State.Status || !sameJSON(pa.State.Input, pb.State.Input)) {
				t.Fatalf("message %d part %d state: opencode %+v, exported %+v", i, j, pb.State, pa.State)
			}
		}
	}
	c, err := Read(strings.NewReader(back), "opencode-export.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stripThinking(shapeOf(t, c.Entries, false)), stripThinking(shapeOf(t, orig, false)); !reflect.DeepEqual(got, want) {
		t.Fatalf("rein → opencode → rein changed the branch:\n got %+v\nwant %+v", got, want)
	}
}

// openCodeImport exports the rein session at path for opencode (its
// workspace set to ws), imports it with opencode import and returns
// opencode's session id and the export.
func openCodeImport(t *testing.T, oc, path, home, ws string, env []string) (string, *bytes.Buffer) {
	t.Helper()
	s, _ := LoadSession(path)
	s.Header.Cwd = ws
	var buf bytes.Buffer
	if _, err := Export(&buf, s, OpenCode, Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, "export.json")
	os.WriteFile(file, buf.Bytes(), 0o600)
	out, _ := run(t, ws, env, "", oc, "import", file)
	m := regexp.MustCompile(`Imported session: (ses_\w+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("opencode import said %q", out)
	}
	return m[1], &buf
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
