package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/reinhq/rein/tool"
)

func TestToolsAndRegistry(t *testing.T) {
	w := newWorkspace(t)
	reg, err := Registry(w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read", "write", "edit", "bash", "grep", "find", "ls"}, reg.Names()); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	coding, err := reg.Select([]string{"coding"}, nil)
	if err != nil || len(coding.Names()) != 7 {
		t.Fatalf("coding toolset: %v, %v", coding.Names(), err)
	}
	readonly, err := reg.Select([]string{"readonly"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range reg.Tools() {
		wantRO := slices.Contains(readonly.Names(), tl.Name)
		if tl.ReadOnly != wantRO {
			t.Errorf("%s: ReadOnly = %v, want %v", tl.Name, tl.ReadOnly, wantRO)
		}
		if wantSeq := !wantRO; (tl.Mode == tool.Sequential) != wantSeq {
			t.Errorf("%s: Mode = %v, want sequential = %v", tl.Name, tl.Mode, wantSeq)
		}
		if len(tl.Description) < 200 {
			t.Errorf("%s: description is too short to guide a model: %q", tl.Name, tl.Description)
		}
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
			AdditionalProperties any `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tl.Schema, &schema); err != nil {
			t.Fatalf("%s: schema: %v", tl.Name, err)
		}
		for name, p := range schema.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %s has no description", tl.Name, name)
			}
		}
		if schema.AdditionalProperties != false {
			t.Errorf("%s: unknown arguments are not refused", tl.Name)
		}
	}
}

// TestMiddleware runs the tools behind rein's stock middleware: the
// generic timeout must not pre-empt bash's own, and the results of
// large outputs must already fit the default output limit.
func TestMiddleware(t *testing.T) {
	w := newWorkspace(t)
	reg, err := Registry(w)
	if err != nil {
		t.Fatal(err)
	}
	h := tool.Chain(reg.Execute, tool.Limit(tool.LimitOptions{Workdir: w.Root}), tool.Timeout(20*time.Millisecond))
	run := func(name, args string) tool.Result {
		return h(context.Background(), &tool.Call{ID: "c", Name: name, Args: json.RawMessage(args), Tool: reg.Get(name)})
	}
	res := run("bash", `{"command":"sleep 0.2; echo finished"}`)
	expect(t, res, false, "finished\nexit code: 0")
	res = run("bash", `{"command":"seq 1 200000"}`)
	expect(t, res, false, "1\n2\n", "199999\n200000\nexit code: 0", "the full output is in .rein/output/")
	// bash notes its own cut; the limit middleware would add a second note.
	if n := len(slices.DeleteFunc(slices.Clone(res.Notes), func(n string) bool { return n != "truncated" })); n != 1 {
		t.Fatalf("%d truncated notes, want bash's one (a second means the limit middleware cut it again):\n%s", n, res.Text())
	}
	if !strings.Contains(res.Text(), "omitted from the middle") {
		t.Fatalf("no omission marker:\n%s", res.Text())
	}

	// The tools that page or cap their own output stay within the limit.
	h = tool.Chain(reg.Execute, tool.Limit(tool.LimitOptions{Workdir: w.Root}), tool.Timeout(0))
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "line %d of a long file that somebody has to read page by page\n", i)
	}
	put(t, w.Root, map[string]string{"big.txt": big.String()})
	for i := range 700 {
		put(t, w.Root, map[string]string{fmt.Sprintf("many/entry-with-a-longish-name-%03d.txt", i): "x\n"})
	}
	for _, c := range []struct{ name, args, footer string }{
		{"read", `{"path":"big.txt"}`, "call read with offset="},
		{"grep", `{"pattern":"line","limit":1000}`, "(the output is capped at about 15 KB); 2"},
		{"grep", `{"pattern":"line","context":5,"limit":1000}`, "(the output is capped at about 15 KB)"},
		{"find", `{"pattern":"*.txt"}`, "(the output is capped at about 15 KB)"},
		{"ls", `{"path":"many"}`, "(the output is capped at about 15 KB)"},
	} {
		res := run(c.name, c.args)
		expect(t, res, false, c.footer)
		if slices.Contains(res.Notes, "truncated") || len(res.Text()) > MaxResultBytes+300 {
			t.Errorf("%s %s: %d bytes, notes %v", c.name, c.args, len(res.Text()), res.Notes)
		}
	}
}
