package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/reinhq/rein/internal/proc"
	"github.com/reinhq/rein/tool"
)

// Sensor is a check run after write and edit calls on matching files.
// Only its findings reach the model: a sensor that passes is silent.
type Sensor struct {
	// Name labels the findings; empty means the command's first word.
	Name string `json:"name"`
	// Files is a doublestar pattern relative to the workspace; a pattern
	// without a slash matches the file name at any depth ("*.go").
	Files string `json:"files"`
	// Command is a shell command; {file} is replaced by the changed
	// file's path relative to the workspace, quoted (REIN_FILE holds it
	// too).
	Command string `json:"command"`
	// Timeout in seconds; zero means 60.
	Timeout int `json:"timeout"`
	// OutputIsFinding makes any output a finding, for checkers such as
	// gofmt -l that exit 0 when they find something.
	OutputIsFinding bool `json:"outputIsFinding"`
}

func (s Sensor) check() error {
	if strings.TrimSpace(s.Command) == "" {
		return errors.New("a sensor needs a command")
	}
	if s.Files == "" || !doublestar.ValidatePattern(s.Files) {
		return fmt.Errorf("files %q is not a valid pattern such as \"**/*.go\"", s.Files)
	}
	return nil
}

func (s Sensor) name() string {
	if s.Name != "" {
		return s.Name
	}
	if f := strings.Fields(s.Command); len(f) > 0 {
		return f[0]
	}
	return "sensor"
}

func (s Sensor) matches(rel string) bool {
	pat := s.Files
	if !strings.Contains(pat, "/") {
		pat = "**/" + pat
	}
	ok, _ := doublestar.Match(pat, filepath.ToSlash(rel))
	return ok
}

// DefaultSensors are the sensors on by default: gofmt -d on Go files when
// gofmt is installed (it reads the file only and runs no project code).
func DefaultSensors() []Sensor {
	if _, err := exec.LookPath("gofmt"); err != nil {
		return nil
	}
	return []Sensor{{Name: "gofmt", Files: "*.go", Command: "gofmt -d {file}", Timeout: 30, OutputIsFinding: true}}
}

// CommitGate runs a test command before a git commit made through bash
// and blocks the commit when it fails.
type CommitGate struct {
	// Command is the test command ("go test ./..."); empty turns the gate
	// off.
	Command string `json:"command"`
	// Timeout in seconds; zero means 600.
	Timeout int `json:"timeout"`
}

// Enforcer is tool middleware for the checks that run commands: sensors
// after edits and the commit gate before commits. Put it after the Gate.
type Enforcer struct {
	Workdir string
	Sensors []Sensor
	Gate    *CommitGate
	// Exec runs the commands; nil means a zero proc.Exec.
	Exec *proc.Exec
	// Env is the commands' environment; nil means the process's.
	Env []string
}

// Notes the enforcer attaches to results.
const (
	NoteSensor     = "sensor:findings"
	NoteCommitGate = "commit_gate:blocked"
)

const maxFinding = 4 << 10

// Middleware returns the enforcer as tool middleware.
func (e *Enforcer) Middleware() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call *tool.Call) tool.Result {
			if call.Name == "bash" && e.Gate != nil && strings.TrimSpace(e.Gate.Command) != "" {
				var a struct {
					Command string `json:"command"`
				}
				_ = json.Unmarshal(call.Args, &a)
				if commits(parseScript(a.Command)) {
					if r, blocked := e.runGate(ctx); blocked {
						return r
					}
				}
			}
			res := next(ctx, call)
			if res.IsError || (call.Name != "write" && call.Name != "edit") || len(e.Sensors) == 0 {
				return res
			}
			var a struct {
				Path string `json:"path"`
			}
			_ = json.Unmarshal(call.Args, &a)
			if a.Path == "" {
				return res
			}
			if findings := e.sense(ctx, a.Path); findings != "" {
				res.Content = append(res.Content, tool.Text("\n\nChecks found problems in the file you changed; fix them:\n"+findings).Content...)
				res.Notes = append(res.Notes, NoteSensor)
			}
			return res
		}
	}
}

func (e *Enforcer) exec() *proc.Exec {
	if e.Exec != nil {
		return e.Exec
	}
	return &proc.Exec{}
}

// sense runs the sensors matching path and returns their findings.
func (e *Enforcer) sense(ctx context.Context, path string) string {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.Workdir, path)
	}
	rel, err := filepath.Rel(e.Workdir, abs)
	if err != nil || !within(e.Workdir, filepath.Clean(abs)) {
		return ""
	}
	var b strings.Builder
	for _, s := range e.Sensors {
		if !s.matches(rel) {
			continue
		}
		t := time.Duration(s.Timeout) * time.Second
		if t <= 0 {
			t = 60 * time.Second
		}
		env := e.Env
		if env == nil {
			env = environ()
		}
		env = append(env[:len(env):len(env)], "REIN_FILE="+rel, "REIN_PROJECT_DIR="+e.Workdir)
		o := e.exec().Run(ctx, proc.Command{Command: strings.ReplaceAll(s.Command, "{file}", shellQuote(rel)), Dir: e.Workdir, Env: env, Timeout: t})
		var finding string
		switch {
		case o.StartErr != nil:
			finding = "could not start: " + o.StartErr.Error()
		case o.TimedOut:
			finding = fmt.Sprintf("timed out after %s", t)
		case o.Cancelled:
			return ""
		case o.ExitCode != 0 || s.OutputIsFinding && len(strings.TrimSpace(string(o.Stdout)+string(o.Stderr))) > 0:
			finding = strings.TrimSpace(string(o.Stdout) + "\n" + string(o.Stderr))
			if finding == "" {
				finding = fmt.Sprintf("exited with status %d", o.ExitCode)
			}
		default:
			continue
		}
		if len(finding) > maxFinding {
			finding = finding[:maxFinding] + "\n…(cut)"
		}
		fmt.Fprintf(&b, "[%s] %s\n", s.name(), finding)
	}
	return strings.TrimSpace(b.String())
}

// runGate runs the test command; blocked is true with the result to
// return when the commit must not run.
func (e *Enforcer) runGate(ctx context.Context) (tool.Result, bool) {
	t := time.Duration(e.Gate.Timeout) * time.Second
	if t <= 0 {
		t = 10 * time.Minute
	}
	env := e.Env
	if env == nil {
		env = environ()
	}
	o := e.exec().Run(ctx, proc.Command{Command: e.Gate.Command, Dir: e.Workdir, Env: env, Timeout: t})
	var why string
	switch {
	case o.Cancelled:
		why = "the run was cancelled while the tests ran"
	case o.StartErr != nil:
		why = "the test command could not start: " + o.StartErr.Error()
	case o.TimedOut:
		why = fmt.Sprintf("the tests did not finish within %s", t)
	case o.ExitCode != 0:
		why = fmt.Sprintf("the tests failed (exit status %d)", o.ExitCode)
	default:
		return tool.Result{}, false
	}
	r := tool.Errorf("Commit blocked: %s. Test command: %s\n%s\nFix the failures, then commit again.", why, e.Gate.Command, failureSummary(string(o.Stdout)+"\n"+string(o.Stderr)))
	r.Notes = []string{NoteCommitGate}
	return r, true
}

// failureSummary keeps the lines that name failures, or else the tail.
func failureSummary(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var keep []string
	for _, l := range lines {
		u := strings.ToUpper(l)
		if strings.Contains(u, "FAIL") || strings.Contains(u, "ERROR") || strings.Contains(l, "_test.go:") || strings.Contains(u, "PANIC") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 || len(keep) > 60 {
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		keep = lines
	}
	s := strings.Join(keep, "\n")
	if len(s) > maxFinding {
		s = s[len(s)-maxFinding:]
	}
	return s
}

// commits reports whether the script runs git commit.
func commits(s *script) bool {
	for i := range s.cmds {
		c := &s.cmds[i]
		if c.name() != "git" {
			continue
		}
		sub, args, _ := gitArgs(c)
		if sub != "commit" {
			continue
		}
		dry := false
		for _, a := range args {
			if a == "--dry-run" {
				dry = true
			}
		}
		if !dry {
			return true
		}
	}
	return false
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
