package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/session"
)

// reference reads data as the importer did before the pipeline: all
// entries in memory, then orphans and the normalisation steps.
func reference(t *testing.T, data []byte, f Format) ([]session.Entry, Report) {
	t.Helper()
	sc := scanners[f]
	first := &scan{r: bytes.NewReader(data), name: "x", c: &Conversation{}, failed: map[string]bool{}}
	first.add = func(session.Entry, bool) error { return nil }
	if err := sc.scan(first); err != nil {
		t.Fatal(err)
	}
	var main, side []session.Entry
	s := &scan{r: bufio.NewReader(bytes.NewReader(data)), name: "x", c: &Conversation{}, first: first}
	s.add = func(e session.Entry, isSide bool) error {
		if isSide {
			side = append(side, e)
		} else {
			s.main++
			main = append(main, e)
		}
		return nil
	}
	if err := sc.scan(s); err != nil {
		t.Fatal(err)
	}
	entries := main
	if len(main) == 0 {
		entries = side
	}
	r := &s.c.Report
	if sc.linked {
		entries = orphans(entries, r, "x")
	}
	return normalize(entries, r), *r
}

// treeSession is a session with branches, calls to tools rein lacks (in
// Claude Code's and pi's terms), parallel calls, a call without a result
// and messages of one role in a row.
func treeSession() *Session {
	t0 := time.Date(2026, 5, 14, 10, 0, 0, 0, time.UTC)
	s := &Session{Header: session.Header{Type: session.HeaderType, Version: 1, ID: "fedcba9876543210fedcba9876543210", Created: t0, Cwd: "/w"}}
	n := 0
	add := func(parent string, m llm.Message) string {
		n++
		id := fmt.Sprintf("e%03d", n)
		ts := t0.Add(time.Duration(n) * time.Second)
		m.Timestamp = ts
		s.Entries = append(s.Entries, session.Entry{Type: session.TypeMessage, ID: id, Parent: parent, Timestamp: ts, Message: &m})
		return id
	}
	asst := func(c ...llm.Content) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: c, API: llm.APIAnthropicMessages, Provider: "anthropic", Model: "m", StopReason: llm.StopToolUse}
	}
	args := json.RawMessage(`{"url":"https://example.com"}`)
	u := add("", llm.UserText("start"))
	a := add(u, asst(llm.Text("two at once"), llm.ToolCall("c1", "web_fetch", args), llm.ToolCall("c2", "read", json.RawMessage(`{"path":"a"}`))))
	r1 := add(a, llm.ToolResult("c1", "web_fetch", false, llm.Text("page")))
	r2 := add(r1, llm.ToolResult("c2", "read", false, llm.Text("file a")))
	b1 := add(r2, asst(llm.Text("first branch"), llm.ToolCall("c3", "bash", json.RawMessage(`{"command":"ls"}`))))
	add(b1, llm.ToolResult("c3", "bash", true, llm.Text("boom")))
	b2 := add(r2, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("second branch")}, StopReason: llm.StopEnd})
	u2 := add(b2, llm.UserText("again"))
	u3 := add(u2, llm.UserText("and again"))
	a2 := add(u3, asst(llm.ToolCall("c4", "web_search", json.RawMessage(`{"q":"x"}`))))
	add(a2, llm.ToolResult("c4", "web_search", false, llm.Text("hits")))
	a3 := add(u3, asst(llm.ToolCall("c5", "read", json.RawMessage(`{"path":"b"}`))))
	add(a3, asst(llm.Text("no result for c5")))
	return s
}

// TestPipelineMatchesReference checks that the streaming pipeline makes
// the entries and the report the in-memory steps made, on recordings
// written by the real programs and on exports of trees with calls to
// tools rein lacks, parallel calls and missing results.
func TestPipelineMatchesReference(t *testing.T) {
	type input struct {
		name string
		f    Format
		data []byte
	}
	var inputs []input
	for _, p := range []string{"testdata/claude/handmade.jsonl", withSubagent, "testdata/pi/session-read-tool-error.jsonl", "testdata/pi/session-read-tool-then-followup.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{p, Detect(data), data})
	}
	for _, src := range []*Session{treeSession(), bigSession(400)} {
		for _, f := range []Format{Pi, Claude, Codex, OpenCode} {
			var buf bytes.Buffer
			if _, err := Export(&buf, src, f, Options{}); err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, input{fmt.Sprintf("%s/%d", f, len(src.Entries)), f, buf.Bytes()})
		}
	}
	// A Claude Code file of sidechain lines only: a sub-agent's own.
	side, _ := os.ReadFile("testdata/claude/with-subagent/5d1c0e34-2222-4222-8333-944455556666/subagents/agent-a7f3c2.jsonl")
	inputs = append(inputs, input{"sidechain", Claude, side})
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			want, wantR := reference(t, in.data, in.f)
			got, err := Read(bytes.NewReader(in.data), "x", in.f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Entries, want) {
				for i := range max(len(got.Entries), len(want)) {
					var g, w any
					if i < len(got.Entries) {
						g = got.Entries[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if !reflect.DeepEqual(g, w) {
						gj, _ := json.Marshal(g)
						wj, _ := json.Marshal(w)
						t.Fatalf("entry %d of %d/%d differs:\n got %s\nwant %s", i, len(got.Entries), len(want), gj, wj)
					}
				}
			}
			gr, wr := got.Report, wantR
			if gr.Messages != wr.Messages || gr.Calls != wr.Calls || gr.TextCalls != wr.TextCalls || gr.Synthetic != wr.Synthetic || gr.Merged != wr.Merged {
				t.Errorf("report counts %+v, want %+v", gr, wr)
			}
			key := func(ds []Dropped) []string {
				var out []string
				for _, d := range ds {
					out = append(out, d.String())
				}
				slices.Sort(out)
				return out
			}
			if !slices.Equal(key(gr.Dropped), key(wr.Dropped)) {
				t.Errorf("dropped %q, want %q", key(gr.Dropped), key(wr.Dropped))
			}
			if wr.Merged+wr.Synthetic+wr.TextCalls > 0 {
				t.Logf("merged %d, synthetic %d, text calls %d", wr.Merged, wr.Synthetic, wr.TextCalls)
			}
		})
	}
}

// ImportFile writes the session Read and Import write, without holding
// the conversation; a recording it cannot import leaves nothing behind.
func TestImportFileMatchesReadAndImport(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, f := range []Format{Pi, Claude, Codex, OpenCode} {
		var buf bytes.Buffer
		if _, err := Export(&buf, treeSession(), f, Options{}); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, string(f))
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	rs, err := session.CreateImported(session.Options{Dir: filepath.Join(dir, "rein")}, session.Source{Format: "pi"}, treeSession().Entries)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close()
	files = append(files, rs.Path(), withSubagent)
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			c, err := ReadFile(p, "")
			if err != nil {
				t.Fatal(err)
			}
			s, err := Import(c, session.Options{Dir: filepath.Join(dir, "a")})
			if err != nil {
				t.Fatal(err)
			}
			want := s.Path()
			s.Close()
			im, err := ImportFile(p, "", session.Options{Dir: filepath.Join(dir, "b")})
			if err != nil {
				t.Fatal(err)
			}
			wh, we, _, err := session.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			gh, ge, issues, err := session.ReadFile(im.Path)
			if err != nil || len(issues) > 0 {
				t.Fatal(err, issues)
			}
			if !reflect.DeepEqual(ge, we) || *gh.Source != *wh.Source || gh.Cwd != wh.Cwd || gh.ID != im.ID {
				t.Fatalf("ImportFile wrote %d entries (%+v), Read and Import %d (%+v)", len(ge), gh, len(we), wh)
			}
			gr, wr := im.Conversation.Report, c.Report
			if gr.Summary() != wr.Summary() {
				t.Fatalf("report %s\nwant %s", gr.Summary(), wr.Summary())
			}
			if len(im.Conversation.Children) != len(c.Children) {
				t.Fatalf("%d children, want %d", len(im.Conversation.Children), len(c.Children))
			}
		})
	}
	t.Run("nothing to import", func(t *testing.T) {
		p := filepath.Join(dir, "empty.jsonl")
		if err := os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"x","timestamp":"2026-05-14T10:00:00.000Z","cwd":"/w"}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "c")
		if _, err := ImportFile(p, "", session.Options{Dir: out}); err == nil || !strings.Contains(err.Error(), "nothing to import") {
			t.Fatalf("error %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(out, "*")); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
	})
}
