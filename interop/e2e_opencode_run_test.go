package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// opencodeMockConfig points opencode at the mock as its Anthropic
// provider.
func opencodeMockConfig(t *testing.T, home string, m *mockModel) {
	t.Helper()
	cfgDir := filepath.Join(home, ".config", "opencode")
	os.MkdirAll(cfgDir, 0o700)
	cfg := `{"model":"anthropic/claude-sonnet-4-5","small_model":"anthropic/claude-sonnet-4-5","autoupdate":false,"share":"disabled",` +
		`"provider":{"anthropic":{"options":{"baseURL":"` + m.srv.URL + `/v1","apiKey":"dummy"}}}}`
	if err := os.WriteFile(filepath.Join(cfgDir, "opencode.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// opencode → rein: a session opencode runs against a loopback mock
// Anthropic server, exported with opencode export, imports into rein
// with its read call as rein's read. (opencode run takes about 10 s of
// its own here, 25 s with the export; it once took minutes on a machine
// at a load average near 40.)
func TestOpenCodeSessionImports(t *testing.T) {
	oc := program(t, "opencode")
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	hello := filepath.Join(ws, "hello.txt")
	os.WriteFile(hello, []byte("Hello from the test!\n"), 0o600)
	m := newMockModel(t, func(body []byte) mockReply {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		if len(req.Messages) == 0 {
			return mockReply{Text: "Title"}
		}
		last := req.Messages[len(req.Messages)-1].Content
		switch {
		case bytes.Contains(last, []byte(`"tool_result"`)):
			return mockReply{Text: "DONE: file read."}
		case bytes.Contains(last, []byte("read hello.txt")) && bytes.Contains(body, []byte(`"name":"read"`)):
			return mockReply{Tool: "read", ToolArgs: `{"filePath":"` + hello + `"}`}
		}
		return mockReply{Text: "Title"}
	})
	opencodeMockConfig(t, home, m)
	env := opencodeEnv(home)
	out, errs := run(t, ws, env, "", oc, "run", "read hello.txt")
	if !strings.Contains(out+errs, "DONE: file read.") {
		t.Fatalf("opencode run: %s\n%s", out, clipOut(errs))
	}
	list, _ := run(t, ws, env, "", oc, "session", "list")
	id := regexp.MustCompile(`ses_\w+`).FindString(list)
	if id == "" {
		t.Fatalf("opencode session list: %s", list)
	}
	doc, _ := run(t, ws, env, "", oc, "export", id)
	c, err := Read(strings.NewReader(doc), "opencode.json", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, clipOut(doc))
	}
	got := shapeOf(t, c.Entries, false)
	// opencode run stores the prompt quoted as its command line gave it.
	if len(got) != 4 || !strings.Contains(got[0].Texts[0], "read hello.txt") || got[1].Calls[0] != `toolu_mock1 read {"path":"`+hello+`"}` ||
		!strings.Contains(got[2].Result, "Hello from the test!") || got[3].Texts[0] != "text:DONE: file read." {
		t.Fatalf("imported %+v\nreport %s\n%s", got, c.Report.Summary(), clipOut(doc))
	}
}

// rein → opencode, continued: rein's export, imported with opencode
// import, is continued by opencode run --session against the mock, and
// opencode's request to the model carries the imported history — the
// user's question, the tool calls with their results, the answers.
func TestOpenCodeContinuesExport(t *testing.T) {
	oc := program(t, "opencode")
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	os.MkdirAll(ws, 0o700)
	m := newMockModel(t, func(body []byte) mockReply {
		if bytes.Contains(body, []byte("and now?")) {
			return mockReply{Text: "CONTINUED."}
		}
		return mockReply{Text: "Title"}
	})
	opencodeMockConfig(t, home, m)
	env := opencodeEnv(home)
	id, _ := openCodeImport(t, oc, sample(t), home, ws, env)
	out, errs := run(t, ws, env, "", oc, "run", "--session", id, "and now?")
	if !strings.Contains(out+errs, "CONTINUED.") {
		t.Fatalf("opencode run --session: %s\n%s", out, clipOut(errs))
	}
	var sent []byte
	for _, r := range m.requests() {
		if bytes.Contains(r, []byte("and now?")) {
			sent = r
		}
	}
	for _, want := range []string{"Why does TestPage fail?", "Let me look.", "go test ./store", "--- FAIL: TestPage", "The slice end is wrong.", "Fix it.", "end := i+1", "Fixed."} {
		if !bytes.Contains(sent, []byte(want)) {
			t.Errorf("opencode's request lacks %q from the imported session:\n%s", want, clipOut(string(sent)))
		}
	}
	if bytes.Contains(sent, []byte("Try cursors instead.")) {
		t.Error("opencode's request carries the branch that is not current")
	}
}
