//go:build unix

package proc

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestExecOutcomes(t *testing.T) {
	x := &Exec{MaxOutput: 8, Grace: 100 * time.Millisecond}
	ctx := context.Background()

	o := x.Run(ctx, Command{Command: `read line; echo "got $line"; echo oops >&2; exit 3`, Stdin: []byte("hi\n")})
	if o.ExitCode != 3 || string(o.Stdout) != "got hi\n" || string(o.Stderr) != "oops\n" || o.Truncated || o.TimedOut || o.Cancelled || o.StartErr != nil {
		t.Errorf("exit and output: %+v", o)
	}

	o = x.Run(ctx, Command{Command: `echo 0123456789abcdef`})
	if o.ExitCode != 0 || string(o.Stdout) != "01234567" || !o.Truncated {
		t.Errorf("output beyond MaxOutput: %+v", o)
	}

	o = (&Exec{}).Run(ctx, Command{Command: `pwd; echo "$X"`, Dir: "/", Env: []string{"X=from-env"}})
	if string(o.Stdout) != "/\nfrom-env\n" {
		t.Errorf("dir and env: %q", o.Stdout)
	}

	// A command that ignores SIGTERM and outlives its timeout is killed.
	o = x.Run(ctx, Command{Command: `trap "" TERM; sleep 30`, Timeout: 50 * time.Millisecond})
	if !o.TimedOut || o.Cancelled || o.ExitCode != -1 {
		t.Errorf("timeout: %+v", o)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	o = x.Run(cctx, Command{Command: `sleep 30`})
	if !o.Cancelled || o.TimedOut || o.ExitCode != -1 {
		t.Errorf("cancelled context: %+v", o)
	}

	o = x.Run(ctx, Command{Command: "true", Dir: "/no/such/dir"})
	if o.StartErr == nil || o.ExitCode != -1 {
		t.Errorf("start error: %+v", o)
	}
}

// Wrap may replace the command before it starts; what it returns runs.
func TestExecWrap(t *testing.T) {
	x := &Exec{Wrap: func(c *exec.Cmd) *exec.Cmd {
		w := exec.Command("/bin/sh", "-c", `echo wrapped; exec "$@"`, "sh")
		w.Args = append(w.Args, c.Args...)
		w.Dir, w.Env, w.Stdin, w.Stdout, w.Stderr, w.SysProcAttr = c.Dir, c.Env, c.Stdin, c.Stdout, c.Stderr, c.SysProcAttr
		return w
	}}
	o := x.Run(context.Background(), Command{Command: "echo inner"})
	if got := strings.Fields(string(o.Stdout)); len(got) != 2 || got[0] != "wrapped" || got[1] != "inner" || o.ExitCode != 0 {
		t.Errorf("wrapped run: %+v", o)
	}
}
