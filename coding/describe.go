package coding

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/reinhq/rein/permission"
)

// DescribeRequest says what a permission request is about: the tool, its
// command or path, the rule that asked and why.
func DescribeRequest(req permission.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s", req.Tool)
	var a struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	_ = json.Unmarshal(req.Args, &a)
	switch {
	case a.Command != "":
		fmt.Fprintf(&b, ": %s", oneLine(a.Command, 200))
	case a.Path != "":
		fmt.Fprintf(&b, " %s", a.Path)
	}
	fmt.Fprintf(&b, "?  (%s", req.Rule)
	if req.Source != "" {
		fmt.Fprintf(&b, " in %s", req.Source)
	}
	b.WriteString(")")
	if req.Reason != "" {
		b.WriteString("\n  " + req.Reason)
	}
	return b.String()
}

// DescribeCall sums up a tool call's arguments on one line for people:
// the main argument (command, path, pattern, query or url, the first
// found), then the others as key=JSON sorted by key, with file content
// and edits counted ("(2 edits)", "(120 bytes)") rather than shown. No
// arguments give ""; arguments that are not a JSON object are returned
// as the model wrote them. The text is not cut and may hold newlines:
// each front-end folds and cuts it to its own width.
func DescribeCall(args json.RawMessage) string {
	var v map[string]any
	if json.Unmarshal(args, &v) != nil {
		var raw string
		if json.Unmarshal(args, &raw) == nil {
			return raw
		}
		return string(args)
	}
	for _, key := range []string{"command", "path", "pattern", "query", "url"} {
		main, ok := v[key].(string)
		if !ok {
			continue
		}
		var rest []string
		for k, x := range v {
			if k == key || k == "content" || k == "edits" {
				continue
			}
			b, _ := json.Marshal(x)
			rest = append(rest, k+"="+string(b))
		}
		slices.Sort(rest)
		if e, ok := v["edits"].([]any); ok {
			rest = append(rest, fmt.Sprintf("(%d edit%s)", len(e), plural(len(e))))
		}
		if c, ok := v["content"].(string); ok {
			rest = append(rest, fmt.Sprintf("(%d bytes)", len(c)))
		}
		return strings.TrimSpace(main + " " + strings.Join(rest, " "))
	}
	if len(v) == 0 {
		return ""
	}
	return string(args)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// AskLine is a permission request as a question answered by typing a
// line (see permission.ParseAnswer): what DescribeRequest says, then the
// answers it takes, ending with a space for the answer.
func AskLine(req permission.Request) string {
	var b strings.Builder
	b.WriteString(DescribeRequest(req))
	b.WriteString("\n  [y] yes once")
	if req.Suggest != "" {
		fmt.Fprintf(&b, " · [a] always, %s (this project) · [u] always (all projects)", req.Suggest)
	}
	b.WriteString(" · [n] no, optionally followed by a reason: ")
	return b.String()
}
