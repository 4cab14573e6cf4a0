package interop

import (
	"reflect"
	"strings"
	"testing"

	"github.com/reinhq/rein/session"
)

func TestRoundTripTreeFormats(t *testing.T) {
	path := sample(t)
	_, orig, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := treeKeys(shapeOf(t, orig, true))
	for _, f := range []Format{Pi, Claude} {
		t.Run(string(f), func(t *testing.T) {
			c, out := roundTrip(t, path, f)
			got := treeKeys(shapeOf(t, c.Entries, true))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip through %s changed the conversation:\n got %q\nwant %q\nexport:\n%s", f, got, want, out)
			}
			if c.Report.Synthetic != 0 || c.Report.TextCalls != 0 {
				t.Errorf("report %+v: nothing should be synthetic or text", c.Report)
			}
			// The leaf is the same: the active branch ends with "Fixed.".
			ctx := session.BuildContext(c.Entries, session.LastLeaf(c.Entries))
			last := ctx.Messages[len(ctx.Messages)-1]
			if last.Text() != "Fixed." {
				t.Errorf("the active branch ends with %q, want Fixed.", last.Text())
			}
			if c.Name != "fix pagination" {
				t.Errorf("name %q", c.Name)
			}
		})
	}
}

func TestImportPiFixtures(t *testing.T) {
	c, err := ReadFile(testdata("pi/session-read-tool-then-followup.jsonl"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Source.Format != "pi" || c.Source.Version != "3" || c.Source.ID != "01a201f0-9254-7007-a528-c7833d1c5b02" || c.Cwd != "/home/user/project" {
		t.Fatalf("source %+v cwd %q", c.Source, c.Cwd)
	}
	got := shapeOf(t, c.Entries, false)
	if len(got) != 6 || got[1].Calls[0] != `call_1 read {"path":"hello.txt"}` || !strings.HasPrefix(got[2].Result, "Hello from the fixture") ||
		got[5].Texts[0] != "text:DONE: file read." {
		t.Fatalf("messages %+v", got)
	}
	if len(c.Report.Dropped) != 0 {
		t.Errorf("dropped %v", c.Report.Dropped)
	}
	dir := t.TempDir()
	s, err := Import(c, session.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	infos, err := session.List(dir)
	if err != nil || len(infos) != 1 {
		t.Fatal(infos, err)
	}
	if src := infos[0].Source; src == nil || src.Format != "pi" || src.ID != c.Source.ID || !strings.HasSuffix(src.Path, "session-read-tool-then-followup.jsonl") {
		t.Fatalf("listed source %+v", src)
	}
}

// Linear formats keep the active branch: the same messages, calls and
// results in order.
func TestRoundTripLinearFormats(t *testing.T) {
	path := sample(t)
	_, orig, _, err := session.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := shapeOf(t, orig, false)
	for _, f := range []Format{OpenCode, Codex} {
		t.Run(string(f), func(t *testing.T) {
			c, out := roundTrip(t, path, f)
			got := shapeOf(t, c.Entries, false)
			if !reflect.DeepEqual(stripThinking(got), stripThinking(want)) {
				t.Fatalf("round trip through %s changed the branch:\n got %+v\nwant %+v\nexport:\n%s", f, got, want, out)
			}
		})
	}
}

// stripThinking leaves thinking out: formats that cannot carry its
// signature keep its text, which is compared elsewhere.
func stripThinking(msgs []shapeMsg) []shapeMsg {
	out := make([]shapeMsg, len(msgs))
	for i, m := range msgs {
		m.Parent = -1
		var texts []string
		for _, t := range m.Texts {
			texts = append(texts, strings.TrimPrefix(t, "thinking:"))
		}
		m.Texts = texts
		out[i] = m
	}
	return out
}
