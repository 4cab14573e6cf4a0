// Package otelpipe is the tracer the rein program links: it exports
// traces and metrics by streaming the tracer calls to the companion
// program rein-otel, which replays them through package telemetry/otel
// with OpenTelemetry's SDK and OTLP exporters.
//
// Why a companion: Go initialises every package a program links, and
// the SDK, the OTLP exporters and protobuf are some eighty packages
// that would otherwise be initialised (and ten megabytes loaded) on
// every start of rein, traces or not. This package imports none of them,
// so rein's start-up with telemetry off is what it was before traces
// existed; the cost of traces is paid only by runs that ask for them,
// in another process. Span and trace ids are made here, so TraceContext
// answers at once for hooks and MCP requests; every call carries its
// time, so the companion stamps spans as they happened.
//
// A program that embeds rein as a library and does not mind the weight
// can use telemetry/otel's Setup in process instead.
package otelpipe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/reinhq/rein/telemetry"
)

// Companion is the name of the companion program.
const Companion = "rein-otel"

// Install is how to install the companion, for messages.
const Install = "go install github.com/reinhq/rein/cmd/rein-otel@latest"

// exitExportFailed is rein-otel's exit code when its final export
// failed after it had sent the warning (telemetry/otel.ExitExportFailed).
const exitExportFailed = 3

// queue is how many calls may wait for the companion; past that, calls
// are dropped (and one warning says so) rather than slow the run.
const queue = 4096

// ErrNoCompanion is returned (wrapped) when rein-otel cannot be found.
var ErrNoCompanion = errors.New("the trace exporter " + Companion + " is not installed next to rein nor on PATH; install it with `" + Install + "` (traces are off, the run is not affected)")

// Find returns the path of rein-otel: beside the running executable,
// else on PATH.
func Find() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), Companion)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Companion); err == nil {
		return p, nil
	}
	return "", ErrNoCompanion
}

// Setup is a telemetry.TraceSetup that finds rein-otel and starts it.
func Setup(ctx context.Context, s telemetry.TraceSettings) (telemetry.Tracer, func(context.Context) error, error) {
	path, err := Find()
	if err != nil {
		return nil, nil, err
	}
	return With(path)(ctx, s)
}

// With returns a telemetry.TraceSetup that starts the companion at path.
// It waits for the companion's first answer (the settings checked, the
// exporters made; nothing is sent yet), so that a bad setting is an
// error of Setup, as in process. The returned stop closes the stream and
// waits for the companion to flush, at most the export timeout and a
// second; then it kills it.
func With(path string) telemetry.TraceSetup {
	return func(ctx context.Context, s telemetry.TraceSettings) (telemetry.Tracer, func(context.Context) error, error) {
		getenv := s.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		hello := Hello{Env: map[string]string{}, Config: s.Config, Version: s.Version}
		for _, n := range EnvNames {
			if v := getenv(n); v != "" {
				hello.Env[n] = v
			}
		}
		cmd := exec.Command(path)
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, nil, fmt.Errorf("starting %s: %w; reinstall it with `%s`", path, err, Install)
		}
		dead := func() {
			_ = stdin.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		line, _ := json.Marshal(hello)
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			dead()
			return nil, nil, fmt.Errorf("%s did not start: %w; reinstall it with `%s`", path, err, Install)
		}
		in := bufio.NewReader(stdout)
		first, err := in.ReadBytes('\n')
		var ready Ready
		if err != nil || json.Unmarshal(first, &ready) != nil {
			dead()
			return nil, nil, fmt.Errorf("%s did not answer (%v); reinstall it with `%s`", path, err, Install)
		}
		if ready.Error != "" {
			dead()
			return nil, nil, errors.New(ready.Error)
		}
		p := newPipe(stdin, s, ready, getenv)
		notes := make(chan struct{})
		go func() {
			defer close(notes)
			p.readNotes(in)
		}()
		timeout := time.Duration(ready.TimeoutMS)*time.Millisecond + time.Second
		stop := func(ctx context.Context) error {
			p.close()
			exited := make(chan error, 1)
			go func() {
				<-notes
				exited <- cmd.Wait()
			}()
			t := time.NewTimer(timeout)
			defer t.Stop()
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() == exitExportFailed {
					// The companion has sent its warning already.
					return errors.New("the OpenTelemetry export failed")
				}
				if err != nil {
					p.warnOnce(fmt.Sprintf("warning: %s ended badly (%v); some traces may be lost", Companion, err))
				}
				return err
			case <-t.C:
			case <-ctx.Done():
			}
			_ = cmd.Process.Kill()
			<-exited
			p.warnOnce(fmt.Sprintf("warning: %s did not finish its export within %s and was stopped; some traces are lost", Companion, timeout))
			return errors.New(Companion + " timed out")
		}
		return p, stop, nil
	}
}

// readNotes passes the companion's warnings on until it closes its
// output.
func (p *pipe) readNotes(in *bufio.Reader) {
	for {
		b, err := in.ReadBytes('\n')
		if len(b) > 0 {
			var n Note
			if json.Unmarshal(b, &n) == nil && n.Warn != "" && p.warn != nil {
				p.warn(n.Warn)
			}
		}
		if err != nil {
			return
		}
	}
}

// writer sends the queued lines to the companion until the queue is
// closed; a companion that stopped reading costs one warning.
func (p *pipe) writer(w io.WriteCloser) {
	defer close(p.flushed)
	bw := bufio.NewWriterSize(w, 32<<10)
	failed := false
	for line := range p.lines {
		if failed {
			continue
		}
		_, err := bw.Write(line)
		if err == nil && len(p.lines) == 0 {
			err = bw.Flush()
		}
		if err != nil {
			failed = true
			p.warnOnce(fmt.Sprintf("warning: %s stopped reading traces (%v); the run goes on without them — reinstall it with `%s`", Companion, err, Install))
		}
	}
	if !failed {
		_ = bw.Flush()
	}
	_ = w.Close()
}
