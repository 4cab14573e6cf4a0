package main

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

	"github.com/reinhq/rein/agent"
	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/llm"
	"github.com/reinhq/rein/llm/faux"
	"github.com/spf13/cobra"
)

func newDemoCmd(e *env) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run an offline scripted session on real files (no model or API key needed)",
		Long: `Run a scripted session that shows what a harness does, with no model and no API
key: in a fresh workspace the scripted model lists the files, reads two of them
at once, views a third with cat, fixes a bug with edit, runs the tests with bash,
reads the unchanged test script again (a guard answers that it is still the
same, instead of sending it twice), gets a long output back (cut to its head and
tail, the full log saved under .rein/output/), searches the saved log, and
finishes. Every tool call is real: real files, real processes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd.Context(), e, dir)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "workspace directory to create the demo in (default: a new temporary directory)")
	return cmd
}

// demoFiles is the small project the demo works on: a greeting script
// with a typo, and its tests.
var demoFiles = map[string]string{
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

// demoScript is the scripted model. Each reply is a function of the
// request, so the model can react to what the tools really returned.
func demoScript() []faux.Reply {
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
			return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(demoConclusion(req))}}, nil
		}},
	}
}

var checksRE = regexp.MustCompile(`(\d+) checks, (\d+) failed`)

// demoConclusion sums up what the tools really reported: the counts of
// the last test run and what the search of its saved log found.
func demoConclusion(req *llm.Request) string {
	var b strings.Builder
	b.WriteString("Fixed the typo in greet.sh (\"Helo\" → \"Hello\").")
	var checks []string
	searched, matched := false, false
	for _, m := range req.Messages {
		if m.Role != llm.RoleToolResult {
			continue
		}
		text := m.Text()
		if all := checksRE.FindAllStringSubmatch(text, -1); len(all) > 0 && m.ToolName == "bash" {
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

var savedOutputRE = regexp.MustCompile(`\.rein/output/[A-Za-z0-9_.-]+\.(txt|log)`)

// savedOutput finds the path of a saved full output in the request's
// latest tool results.
func savedOutput(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llm.RoleToolResult {
			continue
		}
		if p := savedOutputRE.FindString(m.Text()); p != "" {
			return p
		}
	}
	return ""
}

const demoPrompt = `greet.sh prints the wrong greeting. Fix it and make sure all the tests pass.`

func runDemo(ctx context.Context, e *env, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "rein-demo-")
		if err != nil {
			return err
		}
		dir = d
	} else if err := demoDir(dir); err != nil {
		return &exitError{code: 2, err: err}
	}
	names := make([]string, 0, len(demoFiles))
	for name := range demoFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(demoFiles[name]), 0o644); err != nil {
			return err
		}
	}
	provider := faux.New(demoScript()...)
	provider.IDPrefix = "call_"
	a, err := coding.Open(ctx, coding.Options{
		Workdir: dir, Provider: provider, ModelInfo: faux.Model(), NoSession: true, MaxTurns: -1,
		Getenv: e.getenv, Warn: e.warn, Redactor: redactor(), Version: version,
	})
	if err != nil {
		return err
	}
	defer a.Close()
	p := &printer{out: e.stdout, info: e.stdout, color: e.color, preview: 4, showThinking: true}
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiBold, "rein demo — an offline scripted session (no model, no API key); every tool call is real"))
	fmt.Fprintf(e.stdout, "%s\n\n", p.style(ansiDim, "workspace: "+a.Workspace()))
	fmt.Fprintf(e.stdout, "%s\n", p.style(ansiCyan, "▸ "+demoPrompt))
	var end agent.Event
	defer a.Subscribe(func(_ context.Context, ev coding.Event) error {
		p.event(ev.Event.Event)
		if ev.Type == agent.EventAgentEnd {
			end = ev.Event.Event
		}
		return nil
	})()
	_, runErr := a.Submit(ctx, demoPrompt)
	printDemoSummary(e, p, a.Workspace(), end)
	return demoStop(end, runErr)
}

func printDemoSummary(e *env, p *printer, root string, end agent.Event) {
	fmt.Fprintf(e.stdout, "\n%s\n", p.style(ansiBold, "summary"))
	var tools []string
	for name, n := range p.byTool {
		tools = append(tools, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(tools)
	fmt.Fprintf(e.stdout, "  stop:       %s\n", end.Stop)
	fmt.Fprintf(e.stdout, "  turns:      %d\n", end.Turn)
	fmt.Fprintf(e.stdout, "  tool calls: %d (%s)\n", p.calls, strings.Join(tools, ", "))
	fmt.Fprintf(e.stdout, "  tokens:     %d in, %d out (estimated by the scripted model)\n", end.Usage.PromptTokens(), end.Usage.Output)
	if saved, _ := filepath.Glob(filepath.Join(root, ".rein", "output", "*.*")); len(saved) > 0 {
		for _, s := range saved {
			if strings.HasPrefix(filepath.Base(s), ".") {
				continue
			}
			fi, err := os.Stat(s)
			if err != nil {
				continue
			}
			rel, _ := filepath.Rel(root, s)
			fmt.Fprintf(e.stdout, "  saved:      %s (%d bytes, the full output the model saw only the head and tail of)\n", rel, fi.Size())
		}
	}
	fmt.Fprintf(e.stdout, "  workspace:  %s (kept, so you can look at the files)\n", root)
}

// demoDir makes dir, or accepts it when it exists and is empty: the demo
// never overwrites a user's files.
func demoDir(dir string) error {
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

// demoStop maps how the demo's run ended to an exit status.
func demoStop(end agent.Event, err error) error {
	if end.Stop == agent.StopCompleted {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("stopped (%s): %s", end.Stop, end.Detail)
	}
	return &exitError{code: 1, err: err}
}
