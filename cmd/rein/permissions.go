package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/reinhq/rein/coding"
	"github.com/reinhq/rein/permission"
	"github.com/reinhq/rein/trust"
)

// isTerminalIn reports whether the command's stdin is a terminal.
func isTerminalIn(e *env) bool {
	f, ok := e.stdin.(*os.File)
	return ok && isTTY(f)
}

// confirmTrust asks, once per run, whether to trust what the
// workspace's files would do, showing each file and what is new in it.
// It reads the answer byte by byte so that nothing typed after it is
// lost, and takes only y/yes or n/no/empty as an answer: any other line
// is said not to have been sent, and the question is asked again.
func confirmTrust(e *env) func(*trust.Status) bool {
	return func(st *trust.Status) bool {
		fmt.Fprintf(e.stdout, "This workspace's files would run commands, send requests or keys elsewhere, or loosen the sandbox:\n%sTrust them? Only trust what you have read. [y/N] ", st.Describe())
		for {
			line, end := readLine(e.stdin)
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				fmt.Fprintln(e.stdout, "Trusted. (A change to these files asks again; rein trust --revoke undoes it.)")
				return true
			case "", "n", "no":
				fmt.Fprintln(e.stdout, "Not trusted: rein ignores what they would do for this run.")
				return false
			}
			if end {
				fmt.Fprintln(e.stdout, "\nNot trusted.")
				return false
			}
			fmt.Fprintf(e.stdout, "%q is not an answer and was not sent as a prompt. Trust them? [y/N] ", strings.TrimSpace(line))
		}
	}
}

// readLine reads one line from r a byte at a time; end reports that r
// ended.
func readLine(r io.Reader) (line string, end bool) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 && one[0] == '\n' {
			return string(b), false
		}
		if n == 1 {
			b = append(b, one[0])
		}
		if err != nil {
			return string(b), true
		}
	}
}

// answerQuestion takes a line typed while asking[0] is on screen and
// returns the requests still to ask.
func answerQuestion(e *env, p *printer, asking []*coding.Approval, line string) []*coding.Approval {
	req := asking[0]
	ans, ok := permission.ParseAnswer(line, req.Request)
	if !ok {
		msg := "  answer y, a, u or n (a reason may follow n): "
		if t := strings.TrimSpace(line); t != "" {
			msg = fmt.Sprintf("  %q is not an answer and was not sent as a prompt; answer y, a, u or n (a reason may follow n): ", t)
		}
		fmt.Fprint(e.stdout, p.style(ansiDim, msg))
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
		fmt.Fprint(e.stdout, "\n"+p.style(ansiBold, coding.AskLine(asking[0].Request)))
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
			fmt.Fprint(e.stderr, "\n"+p.style(ansiBold, coding.AskLine(req.Request)))
			for {
				line, err := in.ReadString('\n')
				if ans, ok := permission.ParseAnswer(line, req.Request); ok {
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
