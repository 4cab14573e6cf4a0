package interop

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/session"
)

func TestTranscriptsRedactAndFold(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(session.Options{Dir: dir, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
	s.AppendMessage(llm.UserText("deploy with key " + secret))
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Model: "m1", Usage: &llm.Usage{Input: 10, Output: 3}, Content: []llm.Content{
		llm.Text("Running <it>."), llm.ToolCall("c1", "bash", json.RawMessage(`{"command":"deploy --key `+secret+`"}`))}})
	s.AppendMessage(llm.ToolResult("c1", "bash", false, llm.Text("ok ``` done")))
	s.Close()
	sess, _ := LoadSession(s.Path())
	red := redact.New(secret)
	for _, f := range []Format{Markdown, HTML} {
		var buf bytes.Buffer
		if _, err := Export(&buf, sess, f, Options{Redact: red.String}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, secret) {
			t.Fatalf("%s export shows the secret:\n%s", f, out)
		}
		if !strings.Contains(out, "<details") || !strings.Contains(out, "deploy --key") || !strings.Contains(out, "ok ``` done") && f == Markdown {
			t.Fatalf("%s export lacks the folded call:\n%s", f, out)
		}
		if f == HTML && (strings.Contains(out, "Running <it>.") || !strings.Contains(out, "Running &lt;it&gt;.")) {
			t.Fatalf("html does not escape text:\n%s", out)
		}
		if !strings.Contains(out, "m1") || !strings.Contains(out, "10") {
			t.Fatalf("%s export lacks the usage table:\n%s", f, out)
		}
	}
	// Without a redactor the session is shown as it is.
	var buf bytes.Buffer
	Export(&buf, sess, Markdown, Options{})
	if !strings.Contains(buf.String(), secret) {
		t.Fatal("no redactor, yet the text changed")
	}
}

func TestBundleRoundTrip(t *testing.T) {
	path := sample(t)
	_, orig, _, _ := session.ReadFile(path)
	sess, _ := LoadSession(path)
	var buf bytes.Buffer
	if _, err := Export(&buf, sess, Bundle, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	c, err := Read(strings.NewReader(out), "bundle.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Format != "rein" || c.Source.ID != sess.Header.ID {
		t.Fatalf("bundle read as %s", c.Source.Format)
	}
	if got, want := treeKeys(shapeOf(t, c.Entries, true)), treeKeys(shapeOf(t, orig, true)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("bundle changed the session:\n%s", out)
	}
	s, err := Import(c, session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s.Name() != "fix pagination" {
		t.Fatalf("name %q", s.Name())
	}
}
