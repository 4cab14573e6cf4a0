package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinhq/rein/llm"
)

// Multi-process tests re-execute the test binary as a helper child. The
// child runs helperMain instead of the tests, selected by these variables.
const (
	envHelper = "REIN_SESSION_HELPER" // the mode
	envPath   = "REIN_SESSION_PATH"   // the session file
	envCount  = "REIN_SESSION_COUNT"  // how many entries to append
	envTag    = "REIN_SESSION_TAG"    // text that marks the child's entries
)

// helperMain runs the child side of multi-process tests when this process
// is such a child (it then exits); otherwise it returns false.
func helperMain() bool {
	mode := os.Getenv(envHelper)
	if mode == "" {
		return false
	}
	if err := runHelper(mode); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	os.Exit(0)
	return true
}

func runHelper(mode string) error {
	path := os.Getenv(envPath)
	switch mode {
	case "exit":
		return nil
	case "hold":
		// Hold the session until stdin closes.
		s, err := Open(path, Options{})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return s.Close()
	case "crash":
		// Start a tool batch and wait to be killed while "running" it.
		s, err := Open(path, Options{})
		if err != nil {
			return err
		}
		if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Content{
			llm.ToolCall("call_a", "bash", json.RawMessage(`{"command":"make"}`)),
			llm.ToolCall("call_b", "read", json.RawMessage(`{"path":"x"}`)),
		}}); err != nil {
			return err
		}
		if _, err := s.AppendMessage(llm.ToolResult("call_a", "bash", false, llm.Text("ok"))); err != nil {
			return err
		}
		fmt.Println("ready")
		time.Sleep(time.Hour)
		return nil
	case "append":
		// Open as soon as the lock is free, append, close; repeatedly.
		n, _ := strconv.Atoi(os.Getenv(envCount))
		tag := os.Getenv(envTag)
		for i := 0; i < n; {
			s, err := Open(path, Options{})
			if errors.Is(err, ErrInUse) {
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				return err
			}
			for j := 0; j < 5 && i < n; j, i = j+1, i+1 {
				if _, err := s.AppendMessage(llm.UserText(fmt.Sprintf("%s %d %s", tag, i, strings.Repeat("x", 3000)))); err != nil {
					return err
				}
			}
			if err := s.Close(); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown helper mode %q", mode)
}

// helper is a running child process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startHelper starts a child in mode on path with extra environment.
func startHelper(t *testing.T, mode, path string, env ...string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{envHelper + "=" + mode, envPath + "=" + path}, env...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helper{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
	})
	return h
}

// ready waits for the child to say it is ready.
func (h *helper) ready(t *testing.T) {
	t.Helper()
	line, err := h.out.ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("helper said %q: %v", line, err)
	}
}

// wait waits for the child to exit and fails the test if it failed.
func (h *helper) wait(t *testing.T) {
	t.Helper()
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("helper %v: %v", h.cmd.Args, err)
	}
}
