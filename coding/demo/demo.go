// Package demo is rein's offline demo: a small project with a bug, and a
// scripted model that fixes it with real tool calls — listing, reading,
// editing, running the tests — and reacts to what the tools really
// returned. `rein demo` runs it through the coding agent; any front-end
// can.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
)

// Prompt is the task the demo gives the scripted model.
const Prompt = `greet.sh prints the wrong greeting. Fix it and make sure all the tests pass.`

// Files is the small project the demo works on: a greeting script
// with a typo, and its tests.
var Files = map[string]string{
	"README.md": "# greet\n\nA tiny shell tool that greets people.\n\nRun the tests with `sh test.sh` (add `-v` to see every check).\n",
	"greet.sh": `#!/bin/sh
# greet NAME prints a greeting for NAME (default: world).
greet() {
	echo "Helo, ${1:-world}!"
}

[ "${0##*/}" = "greet.sh" ] && greet "$@"
`,
	"test.sh": `#!/bin/sh
# Checks greet.sh. With -v, prints every check.
. ./greet.sh
verbose=""
[ "$1" = "-v" ] && verbose=1
n=0
failed=0
check() {
	n=$((n + 1))
	got=$(greet "$1")
	if [ "$got" = "$2" ]; then
		[ -n "$verbose" ] && echo "ok $n - greet '$1' says '$got'"
	else
		echo "FAIL $n - greet '$1': got '$got', want '$2'"
		failed=$((failed + 1))
	fi
	return 0
}
check "" "Hello, world!"
check Ada "Hello, Ada!"
check "Grace Hopper" "Hello, Grace Hopper!"
if [ -n "$verbose" ]; then
	i=1
	while [ $i -le 1500 ]; do
		check "user$i" "Hello, user$i!"
		i=$((i + 1))
	done
fi
echo "$n checks, $failed failed"
[ $failed -eq 0 ]
`,
}

// Script is the scripted model. Each reply is a function of the
// request, so the model can react to what the tools really returned.
func Script() []faux.Reply {
	call := func(name, args string) llm.Content { return faux.Call(name, args) }
	reply := func(thinking, text string, calls ...llm.Content) faux.Reply {
		m := &llm.Message{Role: llm.RoleAssistant}
		if thinking != "" {
			m.Content = append(m.Content, llm.Thinking(thinking, ""))
		}
		if text != "" {
			m.Content = append(m.Content, llm.Text(text))
		}
		m.Content = append(m.Content, calls...)
		return faux.Reply{Message: m}
	}
	return []faux.Reply{
		reply("The user says the greeting is wrong. First I should see what is in the workspace.",
			"I'll start by looking at the project.", call("ls", `{}`)),
		reply("", "Reading the script and its tests together.",
			call("read", `{"path": "greet.sh"}`), call("read", `{"path": "test.sh"}`)),
		reply("", "And a quick look at the README.", call("bash", `{"command": "cat README.md"}`)),
		reply("greet.sh prints \"Helo\" but the tests expect \"Hello\": a typo on line 4.",
			"Found it: a typo in the greeting. Fixing it.",
			call("edit", `{"path": "greet.sh", "edits": [{"old_text": "echo \"Helo, ", "new_text": "echo \"Hello, "}]}`)),
		reply("", "Running the tests.", call("bash", `{"command": "sh test.sh"}`)),
		reply("What does -v add? Looking at the test script again.", "", call("read", `{"path": "test.sh"}`)),
		reply("", "They pass. Running the full verbose suite as well.", call("bash", `{"command": "sh test.sh -v"}`)),
		{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
			path := savedOutput(req)
			if path == "" {
				return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("The verbose output came back whole, so there is nothing more to check.")}}, nil
			}
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{
				llm.Text("The output was long, so only its head and tail came back. Searching the saved log for failures."),
				faux.Call("grep", fmt.Sprintf(`{"pattern": "FAIL", "path": %q}`, path)),
			}}, nil
		}},
		{Func: func(ctx context.Context, req *llm.Request) (llm.Message, error) {
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(conclusion(req))}}, nil
		}},
	}
}

var checksRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+) checks, (\d+) failed`) })

// conclusion sums up what the tools really reported: the counts of
// the last test run and what the search of its saved log found.
func conclusion(req *llm.Request) string {
	var b strings.Builder
	b.WriteString("Fixed the typo in greet.sh (\"Helo\" → \"Hello\").")
	var checks []string
	searched, matched := false, false
	for _, m := range req.Messages {
		if m.Role != llm.RoleToolResult {
			continue
		}
		text := m.Text()
		if all := checksRE().FindAllStringSubmatch(text, -1); len(all) > 0 && m.ToolName == "bash" {
			checks = all[len(all)-1]
		}
		if m.ToolName == "grep" {
			searched, matched = true, !strings.HasPrefix(text, "No matches")
		}
	}
	switch {
	case checks == nil:
		b.WriteString(" The tests printed no summary, so I cannot say they pass.")
	case checks[2] == "0":
		fmt.Fprintf(&b, " The verbose suite ran %s checks and none failed.", checks[1])
	default:
		fmt.Fprintf(&b, " The verbose suite ran %s checks and %s failed.", checks[1], checks[2])
	}
	if path := savedOutput(req); path != "" && searched {
		if matched {
			fmt.Fprintf(&b, " Its full log, %s, has FAIL lines to look at.", path)
		} else {
			fmt.Fprintf(&b, " Its full log, %s, has no FAIL lines.", path)
		}
	}
	return b.String()
}

var savedOutputRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.rein/output/[A-Za-z0-9_.-]+\.(txt|log)`) })

// savedOutput finds the path of a saved full output in the request's
// latest tool results.
func savedOutput(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llm.RoleToolResult {
			continue
		}
		if p := savedOutputRE().FindString(m.Text()); p != "" {
			return p
		}
	}
	return ""
}

// Write makes dir (or accepts it when it exists and is empty: the demo
// never overwrites a user's files) and writes Files into it.
func Write(dir string) error {
	if err := prepare(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(Files))
	for name := range Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(Files[name]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func prepare(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return fmt.Errorf("cannot use %s for the demo: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty; the demo writes its own README.md, greet.sh and test.sh, so give a new or empty directory (or no --dir for a temporary one)", dir)
	}
	return nil
}
