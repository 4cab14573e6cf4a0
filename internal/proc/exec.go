package proc

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"time"
)

// Exec runs shell command lines for command hooks, sensors and the
// commit gate: the one place rein runs them, so that a sandbox can wrap
// them. Each command runs as "sh -c COMMAND" in a process group of its
// own (Prepare), which is stopped (Stop: SIGTERM, then SIGKILL after Grace)
// when the command times out or ctx ends. Output beyond MaxOutput per stream is drained
// and dropped, so a command that prints without end never blocks nor
// fills memory. The zero value is ready to use; safe for concurrent use.
type Exec struct {
	// Wrap, when set, may replace the command before it starts (a sandbox
	// puts its launcher in front). It must keep Stdin, Stdout, Stderr,
	// Dir, Env and SysProcAttr.
	Wrap func(*exec.Cmd) *exec.Cmd
	// MaxOutput caps what is kept of stdout and of stderr; zero means
	// DefaultMaxOutput.
	MaxOutput int
	// Grace is the time between SIGTERM and SIGKILL; zero means
	// DefaultGrace.
	Grace time.Duration
}

// DefaultMaxOutput is what Exec keeps of each output stream when
// MaxOutput is zero.
const DefaultMaxOutput = 1 << 20

// Command is one command to run.
type Command struct {
	// Command is a shell command line.
	Command string
	Dir     string
	// Env is the whole environment (nil: the process's).
	Env   []string
	Stdin []byte
	// Timeout bounds the run; zero or negative means none (ctx still
	// ends it).
	Timeout time.Duration
}

// Outcome is how a command ended.
type Outcome struct {
	// ExitCode is the exit status; -1 when the command was killed or did
	// not start.
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	// Truncated is set when output beyond MaxOutput was dropped.
	Truncated bool
	// TimedOut is set when the timeout killed the command; Cancelled when
	// ctx did.
	TimedOut, Cancelled bool
	// StartErr is set when the command could not start.
	StartErr error
	Duration time.Duration
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) <= room {
			c.buf.Write(p)
		} else {
			c.buf.Write(p[:room])
			c.dropped = true
		}
	} else if len(p) > 0 {
		c.dropped = true
	}
	return len(p), nil
}

// Run runs c and returns how it ended. It never blocks past the timeout
// (plus Grace and a short wait for pipes) or past ctx's end.
func (x *Exec) Run(ctx context.Context, c Command) Outcome {
	max, grace := x.limits()
	start := time.Now()
	out, errb := &capped{max: max}, &capped{max: max}
	cmd := exec.Command("/bin/sh", "-c", c.Command)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin = bytes.NewReader(c.Stdin)
	cmd.Stdout, cmd.Stderr = out, errb
	Prepare(cmd)
	// Grandchildren that leave the group may keep the pipes open; stop
	// waiting for them shortly after the command itself has exited.
	cmd.WaitDelay = grace
	if x.Wrap != nil {
		cmd = x.Wrap(cmd)
	}
	o := Outcome{ExitCode: -1}
	if err := cmd.Start(); err != nil {
		o.StartErr, o.Duration = err, time.Since(start)
		return o
	}
	exited := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(exited)
	}()
	var timeout <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-exited:
	case <-timeout:
		o.TimedOut = true
		Stop(cmd.Process.Pid, exited, grace)
	case <-ctx.Done():
		o.Cancelled = true
		Stop(cmd.Process.Pid, exited, grace)
	}
	<-exited
	o.Duration = time.Since(start)
	o.Stdout, o.Stderr = out.buf.Bytes(), errb.buf.Bytes()
	o.Truncated = out.dropped || errb.dropped
	var ee *exec.ExitError
	switch {
	case err == nil:
		o.ExitCode = 0
	case errors.As(err, &ee) && !o.TimedOut && !o.Cancelled:
		o.ExitCode = ee.ExitCode()
	}
	return o
}

func (x *Exec) limits() (int, time.Duration) {
	max, grace := x.MaxOutput, x.Grace
	if max <= 0 {
		max = DefaultMaxOutput
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	return max, grace
}
