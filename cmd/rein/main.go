// Command rein is an agent harness for the terminal: one-shot runs,
// scripted offline sessions, and (with a model configured) real work on
// the files of a workspace.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/reinhq/rein/coding/claudecode"
	"github.com/reinhq/rein/llm/failover"
	"github.com/reinhq/rein/redact"
	"github.com/reinhq/rein/sandbox"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// versionString is the version, completed from the build information:
// the module version when installed with go install, the commit (and
// whether the tree was modified) when built from a checkout, and the Go
// release.
func versionString() string {
	v := version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev != "" {
		v += " (" + rev[:min(12, len(rev))] + modified + ")"
	}
	return v + " " + bi.GoVersion
}

// env is everything a command touches outside itself, so that tests can
// run commands with their own streams and environment.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// color enables ANSI styling of terminal output.
	color bool
	// piped: standard output is not a terminal. rein run then prints the
	// progress of a text run to standard error and only the final answer
	// to standard output, so that it can be piped or captured.
	piped bool
	// tty: standard input and output are both terminals, so rein with no
	// command starts the terminal UI. errTerm: standard error is one, so
	// a run shows how long it has been waiting for the model.
	tty, errTerm bool
	// screen is the terminal the UI draws on: standard output before the
	// redactor wraps it (see redactOutputs); nil means stdout.
	screen io.Writer

	mu sync.Mutex
	// onRetry, when set, receives the failover's retries instead of
	// standard error.
	onRetry func(failover.Event)
	// onInterrupt, when set, handles Ctrl-C instead of cancelling the
	// command; it reports whether it did.
	onInterrupt func() bool
	// exits run when the command returns, last added first.
	exits []func()
}

// setInterrupt installs a Ctrl-C handler; nil restores the default
// (cancel the command).
func (e *env) setInterrupt(f func() bool) {
	e.mu.Lock()
	e.onInterrupt = f
	e.mu.Unlock()
}

// atExit runs f when the command returns.
func (e *env) atExit(f func()) {
	e.mu.Lock()
	e.exits = append(e.exits, f)
	e.mu.Unlock()
}

// exit runs the functions atExit was given, last first.
func (e *env) exit() {
	e.mu.Lock()
	fs := e.exits
	e.exits = nil
	e.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// interrupt handles one Ctrl-C and reports whether the command took care
// of it; otherwise the caller cancels the command.
func (e *env) interrupt() bool {
	e.mu.Lock()
	f := e.onInterrupt
	e.mu.Unlock()
	return f != nil && f()
}

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func main() {
	sandbox.RunHelper() // returns unless this process is the sandbox helper
	redact.HideEnv()    // keeps keys out of what other processes can read of rein
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, color: isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "", piped: !isTerminal(os.Stdout)}
	e.tty, e.errTerm = isTerminal(os.Stdin) && isTerminal(os.Stdout), isTerminal(os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			if s == os.Interrupt && e.interrupt() {
				continue
			}
			cancel()
		}
	}()
	code := execute(ctx, e, os.Args[1:])
	cancel()
	sandbox.RemovePrivateTemp() // what commands left in their /tmp
	os.Exit(code)
}

// execute runs the command line and returns the exit code.
func execute(ctx context.Context, e *env, args []string) int {
	defer redactOutputs(e)()
	defer e.exit()
	root := newRootCmd(e)
	root.SetArgs(claudecode.ResumeArgs(args, pickRef))
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(e.stderr, "rein:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(e.stderr, "rein:", err)
	return 2
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "rein",
		Short: "An agent harness: the loop, tools, context and guards around a language model",
		Long: `rein runs a language model as an agent on the files of a workspace: it gives the
model tools (read, write, edit, bash, grep, find, ls), runs the loop of turns and
tool calls, keeps tool output within limits, and stops wasted calls before they
cost tokens.

Try it without a model or an API key:
  rein demo

Run a one-shot task:
  rein run --model sonnet "fix the failing test"`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addRootFlags(root, e)
	root.AddCommand(newRunCmd(e), newChatCmd(e), newDemoCmd(e), newSessionsCmd(e), newGuardCmd(), newModelsCmd(e), newVersionCmd(e), newTrustCmd(e), newMCPCmd(e), newACPCmd(e))
	root.AddCommand(newSkillsCmd(e), newPromptsCmd(e), newPromptCmd(e))
	root.AddCommand(newContextCmd(), newRunsCmd(e), newAgentsCmd(e))
	root.AddCommand(newServeCmd(e), newTasksCmd(e))
	root.AddCommand(newLongCmd(e))
	return root
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rein's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(e.stdout, "rein %s\n", versionString())
			return nil
		},
	}
}

// isTerminal reports whether f is a terminal (not merely a character
// device: /dev/null is one, and must count as a file).
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(f.Fd())
}
