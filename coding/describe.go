package coding

import (
	"encoding/json"
	"fmt"
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
