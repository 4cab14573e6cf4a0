package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/permission"
)

// isTerminalIn reports whether the command's stdin is a terminal.
func isTerminalIn(e *env) bool {
	f, ok := e.stdin.(*os.File)
	return ok && isTTY(f)
}

// question renders a permission request for the line prompts.
func question(req permission.Request) string {
	var b strings.Builder
	b.WriteString(describeRequest(req))
	b.WriteString("\n  [y] yes once")
	if req.Suggest != "" {
		fmt.Fprintf(&b, " · [a] always, %s (this project) · [u] always (all projects)", req.Suggest)
	}
	b.WriteString(" · [n] no, optionally followed by a reason: ")
	return b.String()
}

// describeRequest says what a permission request is about: the tool, its
// command or path, the rule that asked and why.
func describeRequest(req permission.Request) string {
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

// parseAnswer reads a line typed at a permission question; ok is false
// when the line is not an answer.
func parseAnswer(line string, req permission.Request) (permission.Answer, bool) {
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	switch strings.ToLower(word) {
	case "y", "yes":
		return permission.Answer{Kind: permission.AllowOnce}, true
	case "a", "always":
		if req.Suggest == "" {
			return permission.Answer{Kind: permission.AllowOnce}, true
		}
		return permission.Answer{Kind: permission.AllowAlways, Scope: permission.ScopeProject}, true
	case "u":
		if req.Suggest == "" {
			return permission.Answer{Kind: permission.AllowOnce}, true
		}
		return permission.Answer{Kind: permission.AllowAlways, Scope: permission.ScopeUser}, true
	case "n", "no":
		return permission.Answer{Kind: permission.DenyCall, Reason: strings.TrimSpace(rest)}, true
	}
	return permission.Answer{}, false
}

// askTrust asks, once per workspace, whether to trust a workspace whose
// settings would run commands or widen permissions. It reads the answer
// byte by byte so that nothing typed after it is lost.
func askTrust(e *env, o *runOptions) {
	ws, err := coding.OpenWorkspace(o.workdir)
	if err != nil {
		return
	}
	trust := coding.TrustStore(e.getenv)
	if trust.Path == "" || trust.Trusted(ws.Root) {
		return
	}
	what := coding.UntrustedFeatures(ws.Root)
	if what == "" {
		return
	}
	fmt.Fprintf(e.stdout, "This workspace's settings %s.\nTrust %s? Only trust code you know. [y/N] ", what, ws.Root)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := e.stdin.Read(b)
		if n == 1 && b[0] != '\n' {
			line = append(line, b[0])
		}
		if err != nil || n == 1 && b[0] == '\n' {
			break
		}
	}
	if ans := strings.ToLower(strings.TrimSpace(string(line))); ans == "y" || ans == "yes" {
		if err := trust.Add(ws.Root); err != nil {
			fmt.Fprintln(e.stderr, "rein: could not store the trust:", err)
			return
		}
		fmt.Fprintln(e.stdout, "Trusted. (rein trust --revoke undoes it.)")
		return
	}
	fmt.Fprintln(e.stdout, "Not trusted: its hooks, sensors and allow rules stay off.")
}

// answerQuestion takes a line typed while asking[0] is on screen and
// returns the requests still to ask.
func answerQuestion(e *env, p *printer, asking []*coding.Approval, line string) []*coding.Approval {
	req := asking[0]
	ans, ok := parseAnswer(line, req.Request)
	if !ok {
		fmt.Fprint(e.stdout, p.style(ansiDim, "  answer y, a, u or n (a reason may follow n): "))
		return asking
	}
	if err := req.Answer(ans); err != nil {
		fmt.Fprintln(e.stdout, p.style(ansiRed, "  "+err.Error()))
	} else if ans.Kind == permission.AllowAlways {
		where := ".rein/settings.local.json"
		if ans.Scope == permission.ScopeUser {
			where = "your user settings"
		}
		fmt.Fprintln(e.stdout, p.style(ansiDim, "  (allowed; "+req.Suggest+" remembered in "+where+")"))
	}
	asking = asking[1:]
	if len(asking) > 0 {
		fmt.Fprint(e.stdout, "\n"+p.style(ansiBold, question(asking[0].Request)))
	}
	return asking
}

// askOnTerminal answers the approval requests of `rein run` from lines
// typed on the terminal, one request at a time. It returns the function
// that stops it.
func askOnTerminal(e *env, p *printer, a *coding.Agent) (stop func()) {
	if !a.Interactive() {
		return func() {}
	}
	var mu sync.Mutex
	in := bufio.NewReader(e.stdin)
	return a.Subscribe(func(ctx context.Context, ev coding.Event) error {
		req := ev.Approval
		if req == nil {
			return nil
		}
		go func() {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprint(e.stderr, "\n"+p.style(ansiBold, question(req.Request)))
			for {
				line, err := in.ReadString('\n')
				if ans, ok := parseAnswer(line, req.Request); ok {
					if err := req.Answer(ans); err != nil {
						fmt.Fprintln(e.stderr, "  "+err.Error())
					}
					return
				}
				if err != nil {
					return // stdin ended: the request times out or the run ends
				}
				fmt.Fprint(e.stderr, "  answer y, a, u or n (a reason may follow n): ")
			}
		}()
		return nil
	})
}
